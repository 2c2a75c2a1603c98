// Measurement -> TimingRecord / MeasureConditions; 0 in a Measurement means "not observed".
#include "tuner/measurement_record.hpp"

namespace sgt {
namespace {

std::optional<double> known(double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; }

}  // namespace

MeasureConditions measure_conditions(const Measurement& m) {
  MeasureConditions c;
  c.sm_clock_min_mhz = known(m.sm_clock_min_mhz);
  c.sm_clock_max_mhz = known(m.sm_clock_max_mhz);
  c.nvml_sm_clock_mhz = m.nvml_sm_clock_mhz;
  c.power_mw = m.power_mw;
  c.temperature_c = m.temperature_c;
  c.clock_reasons = m.reasons_seen;
  c.cache = m.cache;
  return c;
}

TimingRecord timing_record(const Measurement& m) {
  TimingRecord t;
  t.median_us = m.median_us;
  t.min_us = m.min_us;
  t.mean_us = m.mean_us;
  t.stdev_us = m.stdev_us;
  t.samples = static_cast<int>(m.samples_us.size());
  t.discarded = m.discarded;
  t.sm_clock_mhz = m.sm_clock_mhz;
  t.conditions = measure_conditions(m);
  return t;
}

}  // namespace sgt
