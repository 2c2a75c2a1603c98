// The host side of kernel_templates/test_faults.cu: one knob, FAULT (1: out-of-bounds write,
// 2: hang). Only for tests of crash isolation; see family_registry.cpp.
#include <fmt/format.h>

#include "space/family.hpp"

namespace sgt {
namespace {

class TestFaultsFamily final : public Family {
 public:
  std::string name() const override { return "test_faults"; }
  std::vector<std::string> knob_names() const override { return {"FAULT"}; }
  std::vector<Constraint> constraints(const DeviceLimits&) const override {
    return {{"fault_is_1_or_2",
             [](const Knobs& k) { return knob(k, "FAULT") == 1 || knob(k, "FAULT") == 2; }}};
  }
  std::string cannot_implement(const Knobs&, const ProblemKey& p) const override {
    return validate(p);
  }
  std::vector<std::string> defines(const Knobs& k, const ProblemKey&) const override {
    return {fmt::format("-DFAULT={}", knob(k, "FAULT"))};
  }
  LaunchGeometry geometry(const Knobs&, const ProblemKey&, const DeviceLimits&) const override {
    LaunchGeometry g;
    g.block.x = 32;
    return g;
  }
  int complexity(const Knobs& k) const override { return knob(k, "FAULT"); }
};

}  // namespace

const Family& test_faults_family() {
  static const TestFaultsFamily family;
  return family;
}

}  // namespace sgt
