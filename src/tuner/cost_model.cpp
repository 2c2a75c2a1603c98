// Deliberately simple: it only has to order candidates well enough that the measured search
// starts near the optimum; measurement decides.
#include "tuner/cost_model.hpp"

#include <algorithm>
#include <cmath>

#include "sgemm_args.h"

namespace sgt {

CostEstimate estimate_cost(const LaunchGeometry& g, const ProblemKey& p, const DeviceLimits& limits,
                           double peak_tflops, double bandwidth_tbps) {
  CostEstimate e;
  const double blocks = static_cast<double>(g.grid.x) * g.grid.y * g.grid.z;
  const double threads = static_cast<double>(g.block.x) * g.block.y * g.block.z;
  if (blocks <= 0 || threads <= 0) return e;
  const int smem_per_sm = 233472;  // 228 KB per SM on sm_90
  int occupancy = static_cast<int>(2048 / threads);
  if (g.smem_bytes > 0) occupancy = std::min<int>(occupancy, smem_per_sm / static_cast<int>(g.smem_bytes + 1024));
  occupancy = std::clamp(occupancy, 1, 32);
  const double slots = static_cast<double>(limits.sm_count) * occupancy;
  const double waves = std::ceil(blocks / slots);
  e.wave_efficiency = blocks / (waves * slots);

  // Work per thread: more FMAs per thread amortise loads, addressing and barriers.
  const double flop = 2.0 * p.m * p.n * static_cast<double>(p.k);
  const double per_thread = flop / (blocks * threads);
  const double amortisation = per_thread / (per_thread + 4096.0);
  e.compute_us = flop / (peak_tflops * 1e6 * amortisation * e.wave_efficiency);

  // The workspace beyond its tile counters: the partial sums.
  const double partial_floats =
      g.k_splits > 1 ? static_cast<double>(g.workspace_floats) - SGEMM_TILE_COUNTERS : 0.0;
  // Bytes from HBM: each operand once (the tiles of a wave share them through L2), plus split-K
  // partials written and read back.
  const double bytes = 4.0 * (static_cast<double>(p.m) * p.k + static_cast<double>(p.k) * p.n +
                              static_cast<double>(p.m) * p.n) +
                       8.0 * partial_floats;
  e.memory_us = bytes / (bandwidth_tbps * 1e6);
  e.time_us = std::max(e.compute_us, e.memory_us) + (g.has_reduce ? 2.0 : 0.0);
  return e;
}

}  // namespace sgt
