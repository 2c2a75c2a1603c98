// libFuzzer target for search-space files: a parsed space names a registered family, lists
// every knob of it with a non-empty value list, and nothing else; errors name file:line. Small
// spaces are also enumerated, so the family's constraints see arbitrary knob values.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/search_space.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string file = "fuzz_space.yaml";
  sgt::fuzz::expect_result_or_input_error(
      file, [&] { return sgt::parse_family_space(text, file); },
      [&](const sgt::FamilySpace& space) {
        if (space.family == nullptr) sgt::fuzz::finding("space without a family", text);
        const auto allowed = space.family->knob_names();
        if (space.knobs.size() < allowed.size()) sgt::fuzz::finding("knob missing", text);
        for (const auto& [name, values] : space.knobs) {
          if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
            sgt::fuzz::finding("unknown knob accepted", name);
          if (values.empty()) sgt::fuzz::finding("empty value list accepted", name);
        }
        double points = 1;
        for (const auto& knob : space.knobs) points *= static_cast<double>(knob.second.size());
        if (points <= 5000) {
          sgt::SearchSpace whole;
          whole.families.push_back(space);
          const sgt::Enumeration e = sgt::enumerate(whole, sgt::DeviceLimits{});
          if (e.valid.size() + static_cast<std::size_t>(e.pruned) !=
              static_cast<std::size_t>(points))
            sgt::fuzz::finding("enumeration lost points", text);
        }
      });
  return 0;
}
