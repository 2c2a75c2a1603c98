// Deliberately simple: it only has to order candidates well enough that the measured search
// starts near the optimum; measurement decides. Each factor is a standard first-order effect of
// a tiled GEMM; their constants were fitted to an exhaustive H200 search of the public suite
// (tools/bench/strategy_replay shows the model's ranking against such a search).
#include "tuner/cost_model.hpp"

#include <algorithm>
#include <cmath>

#include "sgemm_args.h"

namespace sgt {
namespace {

constexpr int kSmemPerSm = 233472;  // 228 KB per SM on sm_90
constexpr double kL2Tbps = 11.0;    // L2 to SM bandwidth, all SMs together
// What L2 keeps of an operand that is read again later: the H100's 50 MiB (the H200 has 60).
constexpr double kL2Bytes = 50.0 * 1024 * 1024;
constexpr double kIssueHalf = 1.0;  // FMAs per shared operand read at which issue is half efficient
constexpr double kLatencyWarps = 1.0;   // resident warps per SM at which latency is half hidden
constexpr double kSubPartitions = 4.0;  // FP32 issue slots per SM, one warp each per cycle
constexpr double kReduceFixedUs = 2.0;  // the split-K reduce's launch
// Splits summed in the kernel (REDUCE = 1): each split fences its partials and counts in, and
// the last block of each output tile then reads all the tile's partials alone, at one block's
// rate. Fitted to same-configuration pairs (docs/findings.md, "Splits summed in the kernel only
// where tiles are many and splits few"): 64x64x65536, one tile of 128 splits, 70.2 us summed in
// the kernel and 25.7 in sgemm_reduce (2.1 MB by one block: about 45 GB/s); on 9x37x53 and
// 11x315x99 (H100) a split summed in the kernel ran 1.5-2.5 us behind the same tile unsplit.
constexpr double kInKernelSumFixedUs = 1.5;
constexpr double kLastBlockSumTbps = 0.045;
// Packing's copies: sgemm_pack's launch, then bytes read plus written. Measured as packed points
// less the same points in place on aligned twins: 8.7 us on 1023x1025x1027, 3.5 us on 257x511x129
// (docs/findings.md, "Packed operands"; cudaMemcpy2DAsync took 16.9 and 6.4).
constexpr double kPackFixedUs = 3.0;
constexpr double kPackTbps = 3.0;
constexpr double kBlockFixedUs = 1.0;  // a block's prologue and epilogue (pipeline fill, stores)
// Issue efficiency lost per K-contiguous operand of a TMA-fed kernel: F2 on 4096^3 took about
// 2550 us NT (both operands M/N-contiguous), 2700 NN (B K-contiguous), 2950 TN (both).
constexpr double kKContiguousCost = 0.06;
// A C whose ldc is not a multiple of 4, stored straight from register tiles, is written at
// 1.5-2.1 TB/s where an aligned one takes the 3.0 TB/s copy rate (H100, docs/findings.md, "C's
// stores alone are no ceiling"); stored in sector-aligned windows, at the copy rate. (F1 with
// windows then ran at 1.4 TB/s on 5471x5868x22, held back by the epilogue's instructions, which
// the model does not count: it ranks windows too high where K is small; see "C in sector-aligned
// windows".)
constexpr double kUnalignedCRate = 0.6;
// F4's streamed operand copied 4 or 8 bytes at a time (below alignment class 4, without windows)
// is charged 2% more time than in 16-byte copies: enough to rank F4's windows (WIN = 1) ahead of
// the same points without, not to move F4 against the other families, which copy unaligned
// operands in narrow pieces too and are not charged for it. At 0.6 (NN 39030x8x1151 streamed its
// 180 MB at 2.2 TB/s on the H200, aligned streams 3.9) the model's first 8 candidates lost 1%
// against the best recorded on both databases' replays (strategy_replay --plan recorded).
constexpr double kNarrowStreamRate = 0.98;

}  // namespace

CostEstimate estimate_cost(const LaunchGeometry& g, const ProblemKey& p, const DeviceLimits& limits,
                           double peak_tflops, double bandwidth_tbps) {
  CostEstimate e;
  const double blocks = static_cast<double>(g.grid.x) * g.grid.y * g.grid.z;
  const double threads = static_cast<double>(g.block.x) * g.block.y * g.block.z;
  if (blocks <= 0 || threads <= 0) return e;
  int occupancy = static_cast<int>(2048 / threads);
  if (g.smem_bytes > 0)
    occupancy = std::min<int>(occupancy, kSmemPerSm / static_cast<int>(g.smem_bytes + 1024));
  occupancy = std::clamp(occupancy, 1, 32);
  // Blocks are dealt round-robin to the SMs: the busiest SM runs ceil(blocks / SMs) of them,
  // at most `occupancy` at a time, and its FMA rate depends on how many warps hide latency.
  const double sms = limits.sm_count;
  const double per_sm = std::ceil(blocks / sms);
  e.wave_efficiency = blocks / (per_sm * sms);
  const double resident_warps = std::min<double>(occupancy, per_sm) * threads / 32;

  const double flop = 2.0 * p.m * p.n * static_cast<double>(p.k);
  const double k_per_block = g.k_slice > 0 ? g.k_slice : p.k;
  double issue = 1, l2_bytes = 0;
  if (g.tile_m > 0 && g.tile_n > 0) {
    // A thread's r outputs read about 2 sqrt(r) operands from shared memory per k: more
    // outputs per thread, fewer shared loads (and address instructions) per FMA.
    const double r = static_cast<double>(g.tile_m) * g.tile_n / threads;
    const double intensity = std::sqrt(std::max(r, 1.0)) / 2;
    issue = intensity / (intensity + kIssueHalf);
    // A K-contiguous TMA operand lands swizzled and is read 4 k of one row per load, streamed
    // against the other operand's fragments; two M/N-contiguous ones read densely are faster.
    issue *= (g.tma_a.used && g.tma_a.k_inner ? 1.0 - kKContiguousCost : 1.0) *
             (g.tma_b.used && g.tma_b.k_inner ? 1.0 - kKContiguousCost : 1.0);
    // Every block streams its A rows and B columns from L2.
    l2_bytes = 4.0 * blocks * (g.tile_m + g.tile_n) * k_per_block;
  } else {
    const double per_thread = flop / (blocks * threads);
    issue = per_thread / (per_thread + 4096.0);
  }
  // A warp issues on one of the SM's four sub-partitions: fewer than four warps leave some idle.
  const double latency = resident_warps / (resident_warps + kLatencyWarps) *
                         std::min(1.0, resident_warps / kSubPartitions);
  const double sm_tflops = peak_tflops / sms * issue * latency;
  // A block issues the FMAs of its whole tile, also where the tile overhangs the matrix.
  const double block_flop =
      g.tile_m > 0 && g.tile_n > 0 ? 2.0 * g.tile_m * g.tile_n * k_per_block : flop / blocks;
  e.compute_us =
      per_sm * block_flop / (sm_tflops * 1e6) + std::ceil(per_sm / occupancy) * kBlockFixedUs;

  // Packed copies of A and/or B, written once before the kernel, which then reads them; an
  // operand TMA reads in place at aligned pointers (as tuned) is not copied.
  const double pack_floats = static_cast<double>(copied_floats_when_aligned(g.pack_a) +
                                                 copied_floats_when_aligned(g.pack_b));
  const double pack_us =
      pack_floats > 0 ? kPackFixedUs + 8.0 * pack_floats / (kPackTbps * 1e6) : 0.0;
  const bool packs = g.pack_a.used || g.pack_b.used;  // the workspace holds room for copies
  // The workspace before the copies, beyond its tile counters: the partial sums.
  const double split_floats =
      packs ? static_cast<double>(g.pack_a.used ? g.pack_a.offset_floats : g.pack_b.offset_floats)
            : static_cast<double>(g.workspace_floats);
  const double partial_floats = g.k_splits > 1 ? split_floats - SGEMM_TILE_COUNTERS : 0.0;
  // Bytes from HBM: each operand once (the tiles of a wave share them through L2), plus the
  // split-K partials written.
  const double mn = static_cast<double>(p.m) * p.n;
  const bool c_in_passes = p.ldc % 4 != 0 && !g.c_sector_windows;
  // An operand streamed again by blocks that run later comes from L2 (counted above) where L2
  // holds all of it; a larger one has replaced its own first lines by then: HBM again.
  const double reread_bytes = 4.0 * g.stream_floats * std::max(g.stream_passes - 1, 0);
  const double hbm_reread = 4.0 * g.stream_floats > kL2Bytes ? reread_bytes : 0.0;
  const double narrow_bytes =
      g.narrow_stream ? 4.0 * g.stream_floats * (1.0 / kNarrowStreamRate - 1.0) : 0.0;
  const double bytes = 4.0 * (static_cast<double>(p.m) * p.k + static_cast<double>(p.k) * p.n) +
                       4.0 * mn / (c_in_passes ? kUnalignedCRate : 1.0) + 4.0 * partial_floats +
                       hbm_reread + narrow_bytes;
  e.memory_us =
      std::max(bytes / (bandwidth_tbps * 1e6), l2_bytes / (kL2Tbps * 1e6 * e.wave_efficiency));
  // The final sum comes after the partials: it reads them all and writes C, in a second launch
  // (sgemm_reduce) or in the last block of each tile (REDUCE = 1).
  double reduce_us = 0;
  if (g.k_splits > 1) {
    reduce_us = 4.0 * (partial_floats + mn) / (bandwidth_tbps * 1e6);
    if (g.has_reduce) {
      reduce_us += kReduceFixedUs;
    } else {
      // The tiles' last blocks are spread over the SMs; one SM sums ceil(tiles / SMs) in turn.
      const double tiles = std::max(blocks / g.k_splits, 1.0);
      const double serial_us =
          std::ceil(tiles / sms) * 4.0 * partial_floats / tiles / (kLastBlockSumTbps * 1e6);
      reduce_us = kInKernelSumFixedUs + std::max(reduce_us, serial_us);
    }
  }
  e.time_us = pack_us + std::max(e.compute_us, e.memory_us) + reduce_us;
  return e;
}

}  // namespace sgt
