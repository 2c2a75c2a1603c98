// The list of kernel families; each lives in space/families/<name>.cpp.
#include <fmt/format.h>

#include "common/error.hpp"
#include "space/family.hpp"

namespace sgt {

const Family& f1_simt_family();
const Family& f4_skinny_family();

const std::vector<const Family*>& families() {
  static const std::vector<const Family*> all = {&f1_simt_family(), &f4_skinny_family()};
  return all;
}

const Family& find_family(std::string_view name) {
  for (const Family* f : families())
    if (f->name() == name) return *f;
  throw Error(ErrorKind::invalid_value, fmt::format("unknown kernel family '{}'", name));
}

std::string failed_constraint(const Family& family, const Knobs& knobs, const DeviceLimits& limits) {
  for (const std::string& name : family.knob_names())
    if (!knobs.contains(name)) return fmt::format("missing knob {}", name);
  for (const auto& [name, value] : knobs) {
    const auto names = family.knob_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
      return fmt::format("unknown knob {}", name);
  }
  for (const Constraint& c : family.constraints(limits))
    if (!c.holds(knobs)) return c.name;
  return {};
}

}  // namespace sgt
