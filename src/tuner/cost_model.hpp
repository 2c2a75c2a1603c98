// An analytical estimate of a candidate's time, used to rank candidates before any is measured
// (the best-ranked are tried first, and a candidate budget keeps the best-ranked).
#pragma once

#include "space/family.hpp"

namespace sgt {

struct CostEstimate {
  double time_us = 0;
  double wave_efficiency = 0;  // useful block slots over occupied slots, last wave included
  double compute_us = 0, memory_us = 0;
};

// Roofline per block over waves: compute at peak x an amortisation factor that grows with the
// work per thread, memory at bandwidth for the bytes each block loads, and wave quantisation on
// the SM count. Occupancy comes from threads and shared memory.
CostEstimate estimate_cost(const LaunchGeometry& g, const ProblemKey& p, const DeviceLimits& limits,
                           double peak_tflops = 66.9, double bandwidth_tbps = 4.3);

}  // namespace sgt
