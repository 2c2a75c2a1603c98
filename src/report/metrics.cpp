// Roofline, occupancy and waves: the same rules as the CUDA occupancy calculator
// (cuda_occupancy.h), with registers allocated per warp in four SM sub-partitions.
#include "report/metrics.hpp"

#include <algorithm>
#include <cstdlib>

#include "common/int_math.hpp"

namespace sgt::report {
namespace {

int round_up(int v, int unit) { return unit <= 0 ? v : (v + unit - 1) / unit * unit; }
constexpr int kWarpSize = 32;
constexpr int kSubPartitions = 4;

// Per compute capability, what differs from sm_90 (the CUDA occupancy calculator's tables):
// threads and blocks per SM, shared memory per SM and reserved per block.
struct ArchRow {
  int cc, max_threads, max_blocks, smem_bytes, smem_reserved_per_block;
};
constexpr ArchRow kArchRows[] = {
    {70, 2048, 32, 98304, 0},     {72, 2048, 32, 98304, 0},      {75, 1024, 16, 65536, 0},
    {80, 2048, 32, 167936, 1024}, {86, 1536, 16, 102400, 1024},  {87, 2048, 16, 167936, 1024},
    {89, 1536, 24, 102400, 1024}, {120, 1536, 32, 102400, 1024}, {121, 1536, 32, 102400, 1024},
};

}  // namespace

SmLimits sm_limits(std::string_view arch) {
  int cc = 90;
  if (arch.starts_with("sm_")) cc = std::atoi(std::string(arch.substr(3)).c_str());
  SmLimits l;  // sm_90, sm_100 and unknown
  for (const ArchRow& row : kArchRows)
    if (row.cc == cc) {
      l.max_threads = row.max_threads;
      l.max_blocks = row.max_blocks;
      l.smem_bytes = row.smem_bytes;
      l.smem_reserved_per_block = row.smem_reserved_per_block;
    }
  return l;
}

double peak_fp32_tflops(int sm_count, int clock_mhz) {
  return sm_count * 128.0 * 2.0 * clock_mhz * 1e6 / 1e12;
}

double minimal_bytes(const ProblemKey& p) {
  return 4.0 * (static_cast<double>(p.m) * p.k + static_cast<double>(p.k) * p.n +
                static_cast<double>(p.m) * p.n);
}

double arithmetic_intensity(const ProblemKey& p) {
  const double bytes = minimal_bytes(p);
  return bytes > 0 ? flops(p) / bytes : 0.0;
}

double ridge_point(double peak_tflops, double bandwidth_tbps) {
  return bandwidth_tbps > 0 ? peak_tflops / bandwidth_tbps : 0.0;
}

Bound bound(const ProblemKey& p, double peak_tflops, double bandwidth_tbps) {
  return arithmetic_intensity(p) >= ridge_point(peak_tflops, bandwidth_tbps) ? Bound::compute
                                                                             : Bound::memory;
}

std::string bound_name(Bound b) { return b == Bound::compute ? "compute" : "memory"; }

double tflops(const ProblemKey& p, double time_us) {
  return time_us > 0 ? flops(p) / (time_us * 1e6) : 0.0;
}

Occupancy occupancy(int threads_per_block, int registers_per_thread, int smem_bytes_per_block,
                    const SmLimits& limits) {
  Occupancy o;
  o.registers_known = registers_per_thread > 0;
  if (threads_per_block <= 0 || threads_per_block > 1024) {
    o.limiter = "none";
    return o;
  }
  const int warps_per_block = ceil_div(threads_per_block, kWarpSize);
  const int max_warps = limits.max_threads / kWarpSize;

  int blocks = limits.max_blocks;
  std::string limiter = "blocks";
  const auto limit = [&](int candidate, const char* name) {
    if (candidate < blocks) {
      blocks = candidate;
      limiter = name;
    }
  };
  limit(max_warps / warps_per_block, "threads");
  if (o.registers_known) {
    if (registers_per_thread > limits.max_registers_per_thread) {
      limit(0, "registers");
    } else {
      const int regs_per_warp = round_up(registers_per_thread * kWarpSize, limits.register_unit);
      const int warps = kSubPartitions * (limits.registers / kSubPartitions / regs_per_warp);
      limit(warps / warps_per_block, "registers");
    }
  }
  const int smem = round_up(std::max(0, smem_bytes_per_block) + limits.smem_reserved_per_block,
                            limits.smem_unit);
  if (smem > 0) limit(limits.smem_bytes / smem, "smem");

  o.blocks_per_sm = std::max(0, blocks);
  o.limiter = limiter;
  o.warps_per_sm = o.blocks_per_sm * warps_per_block;
  o.fraction = max_warps > 0 ? static_cast<double>(o.warps_per_sm) / max_warps : 0.0;
  if (o.blocks_per_sm == 0) o.limiter = limiter + " (does not fit)";
  return o;
}

double waves(std::int64_t grid_blocks, int sm_count, int blocks_per_sm) {
  if (sm_count <= 0 || blocks_per_sm <= 0) return 0.0;
  return static_cast<double>(grid_blocks) / (static_cast<double>(sm_count) * blocks_per_sm);
}

}  // namespace sgt::report
