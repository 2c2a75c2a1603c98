// Pure arithmetic of the reports: FP32 peak, roofline (intensity, bound), occupancy from threads,
// registers and shared memory, and waves. No database and no GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "space/problem.hpp"

namespace sgt::report {

constexpr double kDefaultBandwidthTbps = 4.3;  // HBM3e of an H200, TB/s

// Per-SM limits of an architecture, as the CUDA occupancy calculator uses them.
struct SmLimits {
  int max_threads = 2048;
  int max_blocks = 32;
  int registers = 65536;
  int register_unit = 256;  // registers are allocated per warp in units of this
  int max_registers_per_thread = 255;
  int smem_bytes = 233472;  // shared memory per SM usable by blocks (228 KB)
  int smem_reserved_per_block = 1024;
  int smem_unit = 128;  // allocation granularity, bytes
};
// Limits of "sm_XY" (sm_70 .. sm_120); an unknown architecture gets sm_90's.
SmLimits sm_limits(std::string_view arch);

// sm_count x 128 FP32 lanes x 2 (FMA) x clock, in TFLOP/s.
double peak_fp32_tflops(int sm_count, int clock_mhz);

// The minimal traffic roofline_floor_us assumes: A and B read once, C written once, in bytes.
double minimal_bytes(const ProblemKey& p);
double arithmetic_intensity(const ProblemKey& p);  // FLOP per byte of minimal traffic
// FLOP/byte where the bandwidth ceiling meets the compute ceiling.
double ridge_point(double peak_tflops, double bandwidth_tbps);
enum class Bound { compute, memory };
Bound bound(const ProblemKey& p, double peak_tflops, double bandwidth_tbps);
std::string bound_name(Bound b);  // "compute" or "memory"

double tflops(const ProblemKey& p, double time_us);  // achieved TFLOP/s; 0 when time_us <= 0

// Resident blocks per SM and what limits them.
struct Occupancy {
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double fraction = 0;  // resident warps / maximum warps per SM
  std::string limiter;  // "threads", "blocks", "registers" or "smem"; "... (does not fit)" at 0
  bool registers_known = true;  // false: registers were not recorded (limit not applied)
};
// registers 0 means unknown: only threads, blocks and shared memory limit.
Occupancy occupancy(int threads_per_block, int registers_per_thread, int smem_bytes_per_block,
                    const SmLimits& limits);

// Grid blocks / (SMs x resident blocks per SM): how many full rounds of the machine the grid
// takes (0.5: half the SMs idle; 1.02: a nearly empty tail wave). 0 when blocks_per_sm is 0.
double waves(std::int64_t grid_blocks, int sm_count, int blocks_per_sm);

}  // namespace sgt::report
