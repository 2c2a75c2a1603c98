// An analytical estimate of a candidate's time, used to rank candidates before any is measured
// (the best-ranked are tried first, and a candidate budget keeps the best-ranked).
#pragma once

#include "space/family.hpp"

namespace sgt {

struct CostEstimate {
  double time_us = 0;
  double wave_efficiency = 0;  // blocks over SMs x the busiest SM's blocks: how evenly they spread
  double compute_us = 0, memory_us = 0;
};

// The busiest SM's time: the blocks dealt to it, each issuing the FMAs of its whole tile at the
// SM's share of peak, scaled by the FMAs per shared-memory operand of a thread's tile and by the
// latency its resident warps hide; against that, the bytes from HBM and from L2; before it, the
// copies of packed operands; after it, the split-K reduce. Occupancy comes from threads and shared
// memory (registers are not known before compiling).
CostEstimate estimate_cost(const LaunchGeometry& g, const ProblemKey& p, const DeviceLimits& limits,
                           double peak_tflops = 66.9, double bandwidth_tbps = 4.3);

}  // namespace sgt
