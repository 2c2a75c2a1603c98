// The list of kernel families; each lives in space/families/<name>.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "common/error.hpp"
#include "space/family.hpp"

namespace sgt {

const Family& f1_simt_family();
const Family& f2_tma_family();
const Family& f4_skinny_family();

namespace {
std::vector<const Family*>& registered() {
  static std::vector<const Family*> extra;
  return extra;
}
}  // namespace

bool register_family(const Family& family) {
  registered().push_back(&family);
  return true;
}

const std::vector<const Family*>& families() {
  static const std::vector<const Family*> all = [] {
    std::vector<const Family*> list = {&f1_simt_family(), &f2_tma_family(), &f4_skinny_family()};
    list.insert(list.end(), registered().begin(), registered().end());
    return list;
  }();
  return all;
}

const Family& find_family(std::string_view name) {
  for (const Family* f : families())
    if (f->name() == name) return *f;
  throw Error(ErrorKind::invalid_value, fmt::format("unknown kernel family '{}'", name));
}

Knobs with_knobs_added_later(const Family& family, Knobs stored) {
  for (const auto& [name, value] : family.knobs_added_later()) stored.try_emplace(name, value);
  return stored;
}

std::string failed_constraint(const Family& family, const Knobs& knobs,
                              const DeviceLimits& limits) {
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
