// Measurement -> TimingRecord / MeasureConditions; 0 in a Measurement means "not observed".
#include "tuner/measurement_record.hpp"

namespace sgt {
namespace {

std::optional<double> known(double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; }

}  // namespace

MeasureConditions measure_conditions(const Measurement& m) {
  return {.sm_clock_min_mhz = known(m.sm_clock_min_mhz),
          .sm_clock_max_mhz = known(m.sm_clock_max_mhz),
          .nvml_sm_clock_mhz = m.nvml_sm_clock_mhz,
          .power_mw = m.power_mw,
          .temperature_c = m.temperature_c,
          .clock_reasons = m.reasons_seen,
          .cache = m.cache};
}

TimingRecord timing_record(const Measurement& m) {
  return {.median_us = m.median_us,
          .min_us = m.min_us,
          .mean_us = m.mean_us,
          .stdev_us = m.stdev_us,
          .samples = static_cast<int>(m.samples_us.size()),
          .discarded = m.discarded,
          .sm_clock_mhz = m.sm_clock_mhz,
          .conditions = measure_conditions(m)};
}

}  // namespace sgt
