// A deliberately faulty kernel family for the crash-isolation tests: the host side of
// test_faults.cu, one knob, FAULT (1: out-of-bounds write, 2: hang). Linked only into
// sgemm-tune-test-families (sgemm-tune's objects plus this file), which registers it.
#include <fmt/format.h>

#include <map>
#include <string>
#include <string_view>

#include "jit/templates.hpp"
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

const TestFaultsFamily family;

}  // namespace

namespace testing {
const std::map<std::string, std::string_view, std::less<>>& test_templates();  // embedded
}  // namespace testing

namespace {
[[maybe_unused]] const bool registered =
    register_family(family) &&
    register_template("test_faults.cu", testing::test_templates().at("test_faults.cu"));
}  // namespace

}  // namespace sgt
