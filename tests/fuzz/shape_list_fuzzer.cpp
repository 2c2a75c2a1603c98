// libFuzzer target for the shape-list parsers (CSV, or YAML when built with SGT_FUZZ_YAML): every
// shape returned passes sgt::validate with positive sizes and a line; errors name file:line.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/shape_list.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
#ifdef SGT_FUZZ_YAML
  const std::string file = "fuzz.yaml";
  auto parse = [&] { return sgt::parse_shape_yaml(text, file); };
#else
  const std::string file = "fuzz.csv";
  auto parse = [&] { return sgt::parse_shape_csv(text, file); };
#endif
  sgt::fuzz::expect_result_or_input_error(file, parse, [](const std::vector<sgt::Shape>& shapes) {
    if (shapes.empty()) sgt::fuzz::finding("parsed an empty list", "");
    for (const sgt::Shape& s : shapes) {
      const sgt::ProblemKey& p = s.problem.key;
      if (const std::string why = sgt::validate(p); !why.empty())
        sgt::fuzz::finding("parsed shape fails validate", p.to_string() + ": " + why);
      if (p.m <= 0 || p.n <= 0 || p.k <= 0) sgt::fuzz::finding("non-positive size", p.to_string());
      if (s.line <= 0) sgt::fuzz::finding("shape without a line", p.to_string());
    }
  });
  return 0;
}
