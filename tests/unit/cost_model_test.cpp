// The cost model's orderings that the search relies on, on launch geometries written out by hand
// (an H200: 132 SMs).
#include "tuner/cost_model.hpp"

#include <gtest/gtest.h>

#include "sgemm_args.h"

namespace {

using namespace sgt;

ProblemKey square(int n) { return {Op::N, Op::N, n, n, n, n, n, n, 4}; }

// A grid of tile_m x tile_n tiles over the problem, `threads` per block, `smem` bytes each.
LaunchGeometry tiled(const ProblemKey& p, int tile_m, int tile_n, unsigned threads, unsigned smem) {
  LaunchGeometry g;
  g.grid.x = static_cast<unsigned>(((p.m + tile_m - 1) / tile_m) * ((p.n + tile_n - 1) / tile_n));
  g.block.x = threads;
  g.smem_bytes = smem;
  g.tile_m = tile_m;
  g.tile_n = tile_n;
  return g;
}

TEST(CostModel, MoreOutputsPerThreadIssueFewerSharedLoadsPerFma) {
  const ProblemKey p = square(4096);
  const DeviceLimits h200;
  // The same 128 x 128 tiles: 64 outputs per thread beat 16.
  const double r64 = estimate_cost(tiled(p, 128, 128, 256, 40000), p, h200).time_us;
  const double r16 = estimate_cost(tiled(p, 128, 128, 1024, 40000), p, h200).time_us;
  EXPECT_LT(r64, r16);
}

TEST(CostModel, ABlockPerSmIsNotChargedForEmptySlots) {
  // 2048^3 with 256 x 128 tiles is 128 blocks on 132 SMs: one each, nearly all SMs busy. The old
  // slot count (blocks over SMs x occupancy) called that a third of the machine.
  const ProblemKey p = square(2048);
  const CostEstimate e = estimate_cost(tiled(p, 256, 128, 256, 75000), p, DeviceLimits{});
  EXPECT_NEAR(e.wave_efficiency, 128.0 / 132.0, 1e-12);
  // 133 blocks need a second round on one SM: half the machine's time is wasted.
  ProblemKey q = p;
  q.m = 2048 + 128;
  q.lda = q.ldc = q.m;
  LaunchGeometry g = tiled(q, 256, 128, 256, 75000);
  g.grid.x = 133;
  EXPECT_NEAR(estimate_cost(g, q, DeviceLimits{}).wave_efficiency, 133.0 / 264.0, 1e-12);
}

TEST(CostModel, FewerWarpsThanSubPartitionsLeaveIssueSlotsIdle) {
  // One block per SM, 32 outputs per thread either way: 64x64 tiles on four warps finish twice
  // the FMAs of 32x64 tiles on two warps sooner, since two warps issue on two of four slots.
  const ProblemKey p{Op::N, Op::N, 4224, 64, 65536, 4224, 65536, 4224, 4};
  LaunchGeometry two = tiled(p, 32, 64, 64, 20000), four = tiled(p, 64, 64, 128, 20000);
  two.grid.x = four.grid.x = 132;
  const DeviceLimits h200;
  EXPECT_LT(estimate_cost(four, p, h200).compute_us, estimate_cost(two, p, h200).compute_us);
}

TEST(CostModel, ATileOverhangingASkinnyMatrixCostsItsWholeWork) {
  // N = 16: a 128 x 64 tile computes four times the useful columns, a 256 x 16 tile none extra.
  const ProblemKey p{Op::N, Op::N, 4096, 16, 4096, 4096, 4096, 4096, 4};
  const DeviceLimits h200;
  const CostEstimate wide = estimate_cost(tiled(p, 128, 64, 256, 60000), p, h200);
  const CostEstimate exact = estimate_cost(tiled(p, 32, 16, 256, 60000), p, h200);
  EXPECT_GT(wide.compute_us, 3.0 * exact.compute_us * (32.0 / 128.0));
  EXPECT_GT(wide.time_us, exact.time_us);
}

TEST(CostModel, SplitKPaysForItsPartialsAndTheReduceAfterwards) {
  const ProblemKey p = square(2048);
  const DeviceLimits h200;
  const LaunchGeometry whole = tiled(p, 128, 128, 256, 40000);
  LaunchGeometry split = whole;
  split.grid.z = 8;
  split.k_splits = 8;
  split.k_slice = 256;
  split.has_reduce = true;
  split.workspace_floats = std::size_t{8} * 2048 * 2048;
  const CostEstimate a = estimate_cost(whole, p, h200), b = estimate_cost(split, p, h200);
  // The reduce alone reads 8 partials of 16 MiB and writes C: more than 30 us at 4.3 TB/s.
  EXPECT_GT(b.time_us - std::max(b.compute_us, b.memory_us), 30.0);
  // 256 blocks already fill the machine twice over: splitting only adds the partials' traffic.
  EXPECT_GT(b.time_us, a.time_us);
}

// K split `splits` ways over the tiles of `g`, summed by sgemm_reduce or in the kernel.
LaunchGeometry split_k(LaunchGeometry g, const ProblemKey& p, int splits, bool second_kernel) {
  g.grid.z = static_cast<unsigned>(splits);
  g.k_splits = splits;
  g.k_slice = (p.k + splits - 1) / splits;
  g.has_reduce = second_kernel;
  g.workspace_floats = SGEMM_TILE_COUNTERS + std::size_t{static_cast<std::size_t>(splits)} *
                                                 static_cast<std::size_t>(p.m) * p.n;
  return g;
}

TEST(CostModel, SplitsSummedInTheKernelWaitOnEachTilesLastBlock) {
  const DeviceLimits h200;
  // 64x64x65536 in one tile of 128 splits: one block reads all 2 MB of partials alone (measured
  // 70.2 us against 25.7 with sgemm_reduce).
  const ProblemKey deep{Op::N, Op::N, 64, 64, 65536, 64, 65536, 64, 4};
  const LaunchGeometry tile = tiled(deep, 64, 64, 256, 50000);
  const CostEstimate in_kernel = estimate_cost(split_k(tile, deep, 128, false), deep, h200);
  const CostEstimate second = estimate_cost(split_k(tile, deep, 128, true), deep, h200);
  EXPECT_GT(in_kernel.time_us, second.time_us + 30.0);
  // 2048^2 in 256 tiles of 2 splits: each SM sums two tiles, and no second launch waits.
  const ProblemKey wide{Op::N, Op::N, 2048, 2048, 512, 2048, 512, 2048, 4};
  const LaunchGeometry tiles = tiled(wide, 128, 128, 256, 40000);
  EXPECT_LT(estimate_cost(split_k(tiles, wide, 2, false), wide, h200).time_us,
            estimate_cost(split_k(tiles, wide, 2, true), wide, h200).time_us);
  // Even a tiny split pays its fences and arrival counters: 9x37x53 unsplit ran 1.5-2.5 us faster.
  const ProblemKey tiny{Op::N, Op::N, 9, 37, 53, 9, 53, 9, 1};
  const LaunchGeometry small = tiled(tiny, 32, 32, 256, 20000);
  EXPECT_GT(estimate_cost(split_k(small, tiny, 2, false), tiny, h200).time_us,
            estimate_cost(small, tiny, h200).time_us);
}

TEST(CostModel, AStreamCopiedInNarrowVectorsRanksBehindWindows) {
  const DeviceLimits h200;
  // NN 39030x8x1151 in F4's 128 x 8 tiles: 180 MB of A streamed once.
  const ProblemKey p{Op::N, Op::N, 39030, 8, 1151, 39030, 1151, 39030, 1};
  LaunchGeometry g = tiled(p, 128, 8, 256, 70000);
  g.stream_floats = 39030.0 * 1151;
  const CostEstimate wide = estimate_cost(g, p, h200);
  g.narrow_stream = true;
  const CostEstimate narrow = estimate_cost(g, p, h200);
  // Only a tie-break between F4's points with and without windows (see kNarrowStreamRate).
  EXPECT_GT(narrow.memory_us, 1.015 * wide.memory_us);
  EXPECT_GT(narrow.time_us, wide.time_us);
}

TEST(CostModel, PackedOperandsAddTheirCopiesBeforeTheKernelNotPartials) {
  ProblemKey p = square(1023);
  p.align = 1;
  const DeviceLimits h200;
  LaunchGeometry split = tiled(p, 128, 64, 256, 40000);
  split.grid.z = 3;
  split.k_splits = 3;
  split.k_slice = 352;
  split.workspace_floats = SGEMM_TILE_COUNTERS + std::size_t{3} * 8 * 16 * 128 * 64;
  LaunchGeometry packed = split;
  const PackedOperands copies = pack_layout(p, split.workspace_floats);
  packed.pack_a = copies.a;
  packed.pack_b = copies.b;
  packed.workspace_floats = copies.end_floats;
  const CostEstimate a = estimate_cost(split, p, h200), b = estimate_cost(packed, p, h200);
  // One launch and about 2 x 1024 x 1027 floats read and written at the copies' rate (about
  // 9 us in all): the copies only, the kernel's own estimate (its partials included) unchanged.
  EXPECT_EQ(a.compute_us, b.compute_us);
  EXPECT_EQ(a.memory_us, b.memory_us);
  EXPECT_NEAR(b.time_us - a.time_us, 8.6, 0.5);
}

// NN 1024 x 1023 x 1023 at lda 1024: TMA reads A in place, so only B's copy (its launch and
// about 2.8 us of traffic) comes before the kernel; with ldb 1024 too, no copy at all.
TEST(CostModel, AnOperandReadInPlaceAddsNoCopy) {
  const ProblemKey odd{Op::N, Op::N, 1024, 1023, 1023, 1027, 1023, 1024, 1};
  ProblemKey a_aligned = odd;
  a_aligned.lda = 1024;
  const DeviceLimits h200;
  auto packed = [&](const ProblemKey& p) {
    LaunchGeometry g = tiled(p, 128, 128, 256, 70000);
    const PackedOperands copies = pack_layout(p, 0);
    g.pack_a = copies.a;
    g.pack_b = copies.b;
    g.workspace_floats = copies.end_floats;
    return estimate_cost(g, p, h200);
  };
  const CostEstimate both = packed(odd), b_only = packed(a_aligned);
  EXPECT_EQ(both.compute_us, b_only.compute_us);
  // 1024 x 1023 floats read and written at the copies' 3 TB/s.
  EXPECT_NEAR(both.time_us - b_only.time_us, 8.0 * 1024 * 1023 / 3e6, 0.01);
  ProblemKey c_only = a_aligned;
  c_only.ldb = 1024;
  const CostEstimate none = packed(c_only);
  EXPECT_NEAR(none.time_us, none.compute_us > none.memory_us ? none.compute_us : none.memory_us,
              1e-9);
}

TEST(CostModel, TransposingAKContiguousOperandPaysOffOnlyWhereTheKernelOutweighsTheCopy) {
  // F2 on NN: B K-contiguous in place, or copied transposed so that both operands are read
  // M/N-contiguous (PACK = 2).
  const DeviceLimits h200;
  auto nn_and_transposed = [&](int n) {
    const ProblemKey p = square(n);
    LaunchGeometry in_place = tiled(p, 128, 128, 256, 70000);
    in_place.tma_a.used = in_place.tma_b.used = true;
    in_place.tma_b.k_inner = true;
    LaunchGeometry transposed = in_place;
    transposed.tma_b.k_inner = false;
    transposed.pack_b = transposed_pack_layout(p, 0).b;
    return std::pair{estimate_cost(in_place, p, h200), estimate_cost(transposed, p, h200)};
  };
  const auto [large_in_place, large_transposed] = nn_and_transposed(4096);
  EXPECT_LT(large_transposed.time_us, large_in_place.time_us);
  EXPECT_LT(large_transposed.compute_us, large_in_place.compute_us);
  const auto [small_in_place, small_transposed] = nn_and_transposed(256);
  EXPECT_GT(small_transposed.time_us, small_in_place.time_us);
}

TEST(CostModel, AnUnalignedCIsWrittenSlowerUnlessInSectorWindows) {
  // 5471 x 5868 x 22 at ldc 5471: writing C is most of the time.
  const ProblemKey p{Op::N, Op::N, 5471, 5868, 22, 5471, 22, 5471, 1};
  const DeviceLimits h200;
  const LaunchGeometry direct = tiled(p, 128, 64, 128, 34000);
  LaunchGeometry windows = direct;
  windows.c_sector_windows = true;
  const CostEstimate d = estimate_cost(direct, p, h200), w = estimate_cost(windows, p, h200);
  EXPECT_GT(d.memory_us, 1.5 * w.memory_us);
  EXPECT_LT(w.time_us, d.time_us);
  // At a ldc that is a multiple of 4, C is written at the copy rate either way.
  ProblemKey aligned = p;
  aligned.ldc = aligned.lda = 5472;
  aligned.align = 4;
  EXPECT_DOUBLE_EQ(estimate_cost(direct, aligned, h200).memory_us,
                   estimate_cost(windows, aligned, h200).memory_us);
}

TEST(CostModel, AStreamLargerThanL2ReadAgainPerTileComesFromHbmAgain) {
  // F4 on NN 39030x8x1151 in S tiles of 4: A (180 MB) streams once per tile, so twice.
  const ProblemKey p{Op::N, Op::N, 39030, 8, 1151, 39030, 1151, 39030, 1};
  const DeviceLimits h200;
  LaunchGeometry one = tiled(p, 128, 8, 256, 66000);
  one.stream_floats = 39030.0 * 1151;
  LaunchGeometry two = tiled(p, 128, 4, 256, 66000);
  two.stream_floats = one.stream_floats;
  two.stream_passes = 2;
  const CostEstimate e1 = estimate_cost(one, p, h200), e2 = estimate_cost(two, p, h200);
  EXPECT_NEAR(e2.memory_us - e1.memory_us, 4.0 * 39030 * 1151 / 4.3e6, 1e-6);  // 4.3 TB/s
  EXPECT_GT(e2.time_us, e1.time_us);
  // An operand L2 holds whole (4 MB) comes from L2 the second time: no HBM traffic added.
  const ProblemKey q{Op::N, Op::N, 4096, 8, 256, 4096, 256, 4096, 4};
  LaunchGeometry once = tiled(q, 128, 4, 256, 66000);
  once.stream_floats = 4096.0 * 256;
  LaunchGeometry again = once;
  again.stream_passes = 2;
  EXPECT_EQ(estimate_cost(again, q, h200).memory_us, estimate_cost(once, q, h200).memory_us);
}

TEST(CostModel, EmptyGridsHaveNoEstimate) {
  LaunchGeometry g;
  g.grid.x = 0;
  EXPECT_EQ(estimate_cost(g, square(64), DeviceLimits{}).time_us, 0.0);
}

}  // namespace
