// A Timer measurement as the database stores it: the timing summary and what was observed
// while it was taken (clock probe range, NVML clock, power, temperature, reasons, cache mode).
#pragma once

#include "db/records.hpp"
#include "measure/measurement.hpp"

namespace sgt {

MeasureConditions measure_conditions(const Measurement& m);
TimingRecord timing_record(const Measurement& m);

}  // namespace sgt
