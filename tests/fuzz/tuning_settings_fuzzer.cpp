// libFuzzer target for measurement-settings files: the result or an error naming file:line.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/tuning_settings.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string file = "fuzz_measure.yaml";
  sgt::fuzz::expect_result_or_input_error(
      file, [&] { return sgt::parse_tuning_settings(text, file); },
      [](const sgt::TuningSettings& s) {
        if (!(s.verify.tolerance_factor >= 0)) sgt::fuzz::finding("bad tolerance accepted", "");
        if (s.measure.min_samples < 0 || !(s.measure.timeout_s >= 0))
          sgt::fuzz::finding("negative setting accepted", "");
      });
  return 0;
}
