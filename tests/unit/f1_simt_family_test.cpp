// Host tests of family F1 (src/space/families/f1_simt.cpp): constraints, cannot_implement,
// NVRTC defines, launch geometry and split-K slicing, and the default search space.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "config/search_space.hpp"
#include "sgemm_args.h"
#include "space/family.hpp"
#include "support/problem_and_knobs.hpp"

namespace sgt {
namespace {

const DeviceLimits kDevice;  // the reference device: DeviceLimits' defaults, an H200's

using testing::problem;
using testing::with;

const Family& f1() { return find_family("f1_simt"); }

// The template's own defaults (kernel_templates/f1_simt.cu): 128x128x8, 8 warps of 32x64.
Knobs base() {
  return {{"BM", 128},   {"BN", 128},   {"BK", 8},   {"WM", 32},   {"WN", 64},        {"TM", 8},
          {"TN", 8},     {"STAGES", 3}, {"PAD", 4},  {"REGDB", 1}, {"MIN_BLOCKS", 1}, {"RASTER", 1},
          {"SPLITK", 1}, {"REDUCE", 0}, {"XCHG", 0}, {"CWIN", 0},  {"EVICT", 0}};
}

std::string why(const Knobs& k, const DeviceLimits& lim = {}) {
  return failed_constraint(f1(), k, lim);
}

TEST(F1SimtFamily, IsRegisteredUnderItsTemplateName) {
  EXPECT_EQ(f1().name(), "f1_simt");
  const auto& all = families();
  EXPECT_NE(std::find(all.begin(), all.end(), &f1()), all.end());
  const auto names = f1().knob_names();
  for (const auto& [name, value] : base())
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  EXPECT_EQ(names.size(), base().size());
}

TEST(F1SimtFamily, TemplateDefaultsAreValid) { EXPECT_EQ(why(base()), ""); }

TEST(F1SimtFamily, LargeAndSmallTilesAreValid) {
  // 256x128 with 128 accumulators per thread (the cuBLAS-like large tile).
  Knobs big = base();
  big["BM"] = 256, big["WM"] = 64, big["TN"] = 16;
  EXPECT_EQ(why(big), "");
  // 32x32 with 2 warps of 16x32 and 4x4 thread tiles, BK = 16.
  Knobs small = base();
  small["BM"] = 32, small["BN"] = 32, small["BK"] = 16, small["WM"] = 16, small["WN"] = 32;
  small["TM"] = 4, small["TN"] = 4;
  EXPECT_EQ(why(small), "");
  // 96x64: 3 warps of 32x64 along M; the 64x8 tile of B leaves a third of the second pass empty.
  Knobs three = base();
  three["BM"] = 96, three["BN"] = 64;
  EXPECT_EQ(why(three), "");
  // 192x64x16: 3 x 2 warps of 64x32.
  Knobs six = base();
  six["BM"] = 192, six["BN"] = 64, six["BK"] = 16, six["WM"] = 64, six["WN"] = 32;
  EXPECT_EQ(why(six), "");
}

TEST(F1SimtFamily, EachConstraintRejectsWhatItNames) {
  EXPECT_EQ(why(with(base(), "BM", 160)), "tiles_power_of_two_block_or_three_times");
  EXPECT_EQ(why(with(base(), "WM", 48)), "tiles_power_of_two_block_or_three_times");
  EXPECT_EQ(why(with(base(), "TM", 0)), "tiles_power_of_two_block_or_three_times");
  EXPECT_EQ(why(with(base(), "BK", 4)), "bk_8_to_64");
  EXPECT_EQ(why(with(with(base(), "BN", 512), "WN", 64)), "block_tile_16_to_256");
  EXPECT_EQ(why(with(base(), "WM", 256)), "warp_tile_divides_block");
  EXPECT_EQ(why(with(base(), "TN", 4)), "lanes_per_warp_32");  // 4 x 16 lanes
  // 16 x 2 lanes: 32 lanes, but 16 distinct float4 per k row of A.
  Knobs wide = base();
  wide["WM"] = 128, wide["WN"] = 16, wide["TN"] = 8;
  EXPECT_EQ(why(wide), "lane_layout_4x8_or_8x4");
  // One warp: 32 threads.
  Knobs one_warp = base();
  one_warp["BM"] = 32, one_warp["BN"] = 64;
  EXPECT_EQ(why(one_warp), "threads_in_range");
  // 256 threads have less than one 16-byte copy each of a 64x8 tile.
  Knobs thin = base();
  thin["BN"] = 64, thin["WN"] = 32, thin["TN"] = 4;  // 4x2 warps of 32x32, lanes 4x8
  EXPECT_EQ(why(thin), "loader_fills_a_pass");
  EXPECT_EQ(why(with(thin, "BK", 16)), "");
  EXPECT_EQ(why(with(base(), "STAGES", 1)), "stages_2_to_6");
  EXPECT_EQ(why(with(base(), "PAD", 2)), "pad_0_or_4");
  EXPECT_EQ(why(with(base(), "REGDB", 2)), "regdb_0_or_1");
  EXPECT_EQ(why(with(base(), "RASTER", 0)), "raster_1_to_64");
  EXPECT_EQ(why(with(base(), "SPLITK", 0)), "splitk_1_to_256");
  EXPECT_EQ(why(with(base(), "SPLITK", 257)), "splitk_1_to_256");
  EXPECT_EQ(why(with(base(), "SPLITK", 256)), "");
  EXPECT_EQ(why(with(base(), "MIN_BLOCKS", 0)), "min_blocks_1_to_4");
  // 96x96 in 3 x 3 warps of 32x32: 288 threads cap the registers at 224.
  Knobs nine = base();
  nine["BM"] = 96, nine["BN"] = 96, nine["BK"] = 16, nine["WN"] = 32, nine["TN"] = 4;
  EXPECT_EQ(why(nine), "three_times_tile_uncapped");
  EXPECT_EQ(why(with(nine, "BM", 64)), "");  // 2 x 3 warps
  EXPECT_EQ(why(with(with(nine, "BM", 64), "MIN_BLOCKS", 2)), "three_times_tile_uncapped");
}

TEST(F1SimtFamily, SharedMemoryLimitIsTheDevices) {
  // 6 stages x 64 x (256 + 128 + 8) floats = 602 KB > 227 KB.
  Knobs k = base();
  k["BM"] = 256, k["WM"] = 64, k["TN"] = 16, k["BK"] = 64, k["STAGES"] = 6;
  EXPECT_EQ(why(k), "smem_fits");
  // 3 x 32 x 264 x 4 = 101376 bytes: fits the 227 KB opt-in, not a 48 KB device.
  Knobs mid = with(base(), "BK", 32);
  EXPECT_EQ(why(mid), "");
  DeviceLimits small;
  small.smem_optin_bytes = 48 * 1024;
  EXPECT_EQ(why(mid, small), "smem_fits");
}

TEST(F1SimtFamily, RegisterEstimateAndOccupancy) {
  // 16 x 16 accumulators: 256 + 64 + 30 registers.
  Knobs k = base();
  k["BM"] = 256, k["BN"] = 256, k["WM"] = 64, k["WN"] = 128, k["TM"] = 16, k["TN"] = 16;
  EXPECT_EQ(why(k), "registers_estimate");
  // 8x8: 126 -> 128 registers x 256 threads x 2 blocks = 65536: fits; 3 blocks do not.
  EXPECT_EQ(why(with(base(), "MIN_BLOCKS", 2)), "");
  EXPECT_EQ(why(with(base(), "MIN_BLOCKS", 3)), "min_blocks_registers");
  // 256x128x8 / 8x16: 206 registers; 2 blocks of 256 threads cannot be resident.
  Knobs big = base();
  big["BM"] = 256, big["WM"] = 64, big["TN"] = 16, big["MIN_BLOCKS"] = 2;
  EXPECT_EQ(why(big), "min_blocks_registers");
  // 128 threads x 2 blocks leave the cap at 256 registers: the same code as MIN_BLOCKS = 1.
  Knobs four_warps = base();
  four_warps["WM"] = 64, four_warps["TN"] = 16, four_warps["MIN_BLOCKS"] = 2;
  EXPECT_EQ(why(four_warps), "min_blocks_binds");
  EXPECT_EQ(why(with(four_warps, "MIN_BLOCKS", 1)), "");
  // Under the 128-register cap: 128x128x8 (8 copies per thread) fits, 128x128x16 (16) does not.
  Knobs capped = with(base(), "MIN_BLOCKS", 2);
  EXPECT_EQ(why(capped), "");
  capped["BK"] = 16;
  EXPECT_EQ(why(capped), "copies_under_128_register_cap");
  EXPECT_EQ(why(with(capped, "MIN_BLOCKS", 1)), "");
  // Shared memory per SM: 2 x (5 x 32 x 264 x 4 + 1 KB) > 228 KB.
  Knobs deep = base();
  deep["BK"] = 32, deep["STAGES"] = 5, deep["MIN_BLOCKS"] = 2, deep["REGDB"] = 0;
  EXPECT_EQ(why(deep), "min_blocks_smem");
}

// EVICT = 1 reads the larger operand under a streaming L2 window: the same build and launch
// otherwise; configurations stored before it read as EVICT = 0.
TEST(F1SimtFamily, EvictFirstIsAWindowOverTheLargerOperandOnTheSameBuild) {
  const Knobs evict = with(base(), "EVICT", 1);
  EXPECT_EQ(why(evict), "");
  EXPECT_EQ(why(with(base(), "EVICT", 2)), "evict_0_or_1");
  const ProblemKey tall = problem(38861, 177, 180, Op::T, Op::N);  // A stored 180 x 38861
  EXPECT_EQ(f1().defines(evict, tall), f1().defines(base(), tall));
  const LaunchGeometry plain = f1().geometry(base(), tall, kDevice),
                       windowed = f1().geometry(evict, tall, kDevice);
  EXPECT_EQ(plain.l2_streamed.which, L2StreamedOperand::Which::none);
  EXPECT_EQ(windowed.l2_streamed.which, L2StreamedOperand::Which::a);
  EXPECT_EQ(windowed.l2_streamed.bytes, 4u * (180u * 38860u + 180u));
  EXPECT_EQ(windowed.grid.x, plain.grid.x);
  EXPECT_EQ(windowed.smem_bytes, plain.smem_bytes);
  // A wide problem streams B (ldb padded to 200).
  ProblemKey wide = problem(96, 50000, 150);
  wide.ldb = 200;
  const LaunchGeometry b = f1().geometry(evict, wide, kDevice);
  EXPECT_EQ(b.l2_streamed.which, L2StreamedOperand::Which::b);
  EXPECT_EQ(b.l2_streamed.bytes, 4u * (200u * 49999u + 150u));
  EXPECT_LT(f1().complexity(base()), f1().complexity(evict));
  Knobs stored = base();
  stored.erase("EVICT");
  EXPECT_EQ(with_knobs_added_later(f1(), stored), base());
}

TEST(F1SimtFamily, DefinesCarryEveryKnobAndTheProblemClass) {
  const auto d = f1().defines(with(base(), "SPLITK", 4), problem(100, 200, 300, Op::T, Op::N, 1));
  auto has = [&](const std::string& s) { return std::find(d.begin(), d.end(), s) != d.end(); };
  EXPECT_TRUE(has("-DBM=128"));
  EXPECT_TRUE(has("-DBK=8"));
  EXPECT_TRUE(has("-DSPLITK=2"));  // the count comes at launch
  EXPECT_TRUE(has("-DMIN_BLOCKS=1"));
  EXPECT_TRUE(has("-DTRANS_A=1"));
  EXPECT_TRUE(has("-DTRANS_B=0"));
  EXPECT_TRUE(has("-DALIGN=1"));
  EXPECT_TRUE(has("-DC_LD4=1"));  // ldc 100: C may take float4 accesses below class 4
  // SPLITK, REDUCE, the problem's class (4) and C_LD4; XCHG and CWIN only where set; EVICT never
  // (a launch attribute).
  EXPECT_EQ(d.size(), f1().knob_names().size() + 1);
  EXPECT_FALSE(has("-DEVICT=0"));
  const auto d2 = f1().defines(base(), problem(8, 8, 8, Op::N, Op::T, 2));
  EXPECT_NE(std::find(d2.begin(), d2.end(), "-DTRANS_B=1"), d2.end());
  EXPECT_NE(std::find(d2.begin(), d2.end(), "-DALIGN=2"), d2.end());
  // An odd ldc rules float4 C out at compile time; class 4 needs no C_LD4 (every ldc allows it).
  ProblemKey odd_c = problem(101, 200, 300, Op::N, Op::N, 1);
  const auto d3 = f1().defines(base(), odd_c);
  EXPECT_NE(std::find(d3.begin(), d3.end(), "-DC_LD4=0"), d3.end());
  const auto d4 = f1().defines(base(), problem(100, 200, 300));
  EXPECT_EQ(std::count_if(d4.begin(), d4.end(),
                          [](const std::string& s) { return s.rfind("-DC_LD4", 0) == 0; }),
            0);
}

// The lane exchange serves C stored narrower than float4 only: a ldc that is not a multiple of 4.
// Elsewhere XCHG = 1 would compile to the same stores as 0 and is refused; 0 adds no define, so
// the builds of configurations stored before XCHG are unchanged.
TEST(F1SimtFamily, ExchangeServesOnlyALdcThatIsNotAMultipleOfFour) {
  const Knobs xchg = with(base(), "XCHG", 1);
  const ProblemKey odd_c = problem(101, 200, 300, Op::N, Op::N, 1);
  EXPECT_EQ(f1().cannot_implement(xchg, odd_c), "");
  EXPECT_TRUE(testing::contains(f1().defines(xchg, odd_c), "-DXCHG=1"));
  EXPECT_NE(f1().cannot_implement(xchg, problem(100, 200, 300, Op::N, Op::N, 1)), "");
  EXPECT_NE(f1().cannot_implement(xchg, problem(100, 200, 300)), "");
  ProblemKey even_c = problem(102, 200, 300, Op::T, Op::N, 2);
  EXPECT_EQ(f1().cannot_implement(xchg, even_c), "");
  for (const std::string& d : f1().defines(base(), odd_c)) EXPECT_NE(d.rfind("-DXCHG", 0), 0u);
  EXPECT_EQ(why(with(base(), "XCHG", 2)), "xchg_0_or_1");
}

// Sector-aligned windows of C serve a ldc that is not a multiple of 4, like the exchange, and only
// an unsplit kernel without it. M tiles are BM - 8 rows apart, and the staged C tile may need more
// shared memory than the stages.
TEST(F1SimtFamily, WindowsServeAnUnalignedLdcWithOverlappingMTiles) {
  const Knobs win = with(base(), "CWIN", 1);
  const ProblemKey odd_c = problem(1023, 1025, 1027, Op::N, Op::N, 1);
  EXPECT_EQ(why(win), "");
  EXPECT_EQ(f1().cannot_implement(win, odd_c), "");
  EXPECT_TRUE(testing::contains(f1().defines(win, odd_c), "-DCWIN=1"));
  for (const std::string& d : f1().defines(base(), odd_c)) EXPECT_NE(d.rfind("-DCWIN", 0), 0u);
  EXPECT_NE(f1().cannot_implement(win, problem(1024, 1025, 1027, Op::N, Op::N, 1)), "");
  EXPECT_NE(f1().cannot_implement(win, problem(1024, 1025, 1027)), "");
  EXPECT_EQ(why(with(base(), "CWIN", 2)), "cwin_0_or_1");
  EXPECT_EQ(why(with(win, "SPLITK", 2)), "cwin_unsplit_without_exchange");
  EXPECT_EQ(why(with(win, "XCHG", 1)), "cwin_unsplit_without_exchange");
  EXPECT_GT(f1().complexity(win), f1().complexity(base()));

  const LaunchGeometry g = f1().geometry(win, odd_c, kDevice);
  // 1023 rows: the first tile takes 128, each further one 120 more: 1 + ceil(895 / 120) = 9.
  EXPECT_EQ(g.grid.x, 9u * 9u);
  EXPECT_TRUE(g.c_sector_windows);
  EXPECT_FALSE(f1().geometry(base(), odd_c, kDevice).c_sector_windows);
  EXPECT_EQ(g.smem_bytes, 128u * (128u + 4u) * 4u);  // the staged tile outgrows 3 stages of 8
  EXPECT_EQ(f1().geometry(win, problem(128, 5, 5, Op::N, Op::N, 1), kDevice).grid.x, 1u);
  EXPECT_EQ(f1().geometry(win, problem(129, 5, 5, Op::N, Op::N, 1), kDevice).grid.x, 2u);
  EXPECT_EQ(f1().geometry(win, problem(248, 5, 5, Op::N, Op::N, 1), kDevice).grid.x, 2u);
  EXPECT_EQ(f1().geometry(win, problem(249, 5, 5, Op::N, Op::N, 1), kDevice).grid.x, 3u);
  // Deep stages keep their own size where it is larger.
  const Knobs deep = with(with(win, "BK", 16), "STAGES", 6);
  EXPECT_EQ(f1().geometry(deep, odd_c, kDevice).smem_bytes, 6u * 16u * (128u + 128u + 8u) * 4u);
}

TEST(F1SimtFamily, GeometryCoversEveryTileWithoutSplit) {
  const LaunchGeometry g = f1().geometry(base(), problem(1023, 1025, 1027), kDevice);
  EXPECT_EQ(g.grid.x, 8u * 9u);  // ceil(1023/128) x ceil(1025/128)
  EXPECT_EQ(g.grid.y, 1u);
  EXPECT_EQ(g.grid.z, 1u);
  EXPECT_EQ(g.block.x, 256u);
  EXPECT_EQ(g.smem_bytes, 3u * 8u * (128u + 128u + 8u) * 4u);
  EXPECT_EQ(g.k_splits, 1);
  EXPECT_EQ(g.k_slice, 0);
  EXPECT_FALSE(g.has_reduce);
  EXPECT_EQ(g.workspace_floats, 0u);
  // m = n = 1: one block.
  EXPECT_EQ(f1().geometry(base(), problem(1, 1, 1), kDevice).grid.x, 1u);
}

// A deep split of a small output: the splits of a run are shared out among up to 8 threads (a
// power of two, about 8 splits each), so that the few runs still make a grid that fills the GPU.
TEST(F1SimtFamily, DeepSplitReduceSharesEachRunsSplitsAmongThreads) {
  for (const auto& [splitk, groups] : std::vector<std::pair<int, unsigned>>{{2, 1},
                                                                            {8, 1},
                                                                            {9, 2},
                                                                            {16, 2},
                                                                            {17, 4},
                                                                            {32, 4},
                                                                            {33, 8},
                                                                            {64, 8},
                                                                            {128, 8},
                                                                            {256, 8}}) {
    const LaunchGeometry g =
        f1().geometry(with(base(), "SPLITK", splitk), problem(356, 72, 65536), kDevice);
    SCOPED_TRACE(::testing::Message() << "splitk=" << splitk);
    ASSERT_EQ(g.k_splits, splitk);
    EXPECT_EQ(g.reduce_block.y, groups);
    EXPECT_EQ(g.reduce_block.x * g.reduce_block.y, 256u);
    EXPECT_GE(std::uint64_t{g.reduce_grid.x} * g.reduce_block.x, 89u * 72u);  // every run
    EXPECT_EQ(g.grid.z, static_cast<unsigned>(splitk));
    EXPECT_EQ(g.workspace_floats, SGEMM_TILE_COUNTERS + std::size_t(splitk) * 356u * 72u);
  }
}

// A split count beyond the slices K holds gives as many slices as there are BK multiples, and a
// split whose partial sums would exceed the workspace limit is refused.
TEST(F1SimtFamily, DeepSplitsStopAtTheSlicesKHoldsAndTheWorkspaceLimit) {
  const LaunchGeometry g =
      f1().geometry(with(base(), "SPLITK", 256), problem(95, 72, 1000), kDevice);
  EXPECT_EQ(g.k_slice, 8);  // ceil(1000 / 256) = 4, rounded up to BK = 8
  EXPECT_EQ(g.k_splits, 125);
  EXPECT_EQ(f1().cannot_implement(with(base(), "SPLITK", 256), problem(512, 512, 65536)), "");
  EXPECT_NE(f1().cannot_implement(with(base(), "SPLITK", 256), problem(1024, 1024, 65536)), "");
}

TEST(F1SimtFamily, SplitKSlicesAreBkMultiplesAndCoverK) {
  const LaunchGeometry g =
      f1().geometry(with(base(), "SPLITK", 4), problem(1023, 1025, 1027), kDevice);
  EXPECT_EQ(g.k_slice, 264);  // ceil(1027 / 4) = 257, rounded up to a multiple of BK = 8
  EXPECT_EQ(g.k_splits, 4);
  EXPECT_EQ(g.grid.z, 4u);
  EXPECT_TRUE(g.has_reduce);
  EXPECT_EQ(g.workspace_floats, SGEMM_TILE_COUNTERS + 4u * 1023u * 1025u);
  EXPECT_EQ(g.reduce_block.x, 256u);  // 4 splits: one thread sums them all
  EXPECT_EQ(g.reduce_block.y, 1u);
  EXPECT_GE(std::uint64_t{g.reduce_grid.x} * g.reduce_block.x, 256u * 1025u);  // runs of 4 rows

  for (int splitk : {2, 3, 5, 8, 16}) {
    for (int k : {1, 7, 8, 9, 63, 64, 65, 129, 700, 1000, 4096, 65536}) {
      for (int bk : {8, 16, 32}) {
        Knobs kn = with(with(base(), "SPLITK", splitk), "BK", bk);
        const LaunchGeometry s = f1().geometry(kn, problem(64, 64, k), kDevice);
        SCOPED_TRACE(::testing::Message() << "splitk=" << splitk << " k=" << k << " bk=" << bk);
        if (s.k_splits == 1) {
          EXPECT_FALSE(s.has_reduce);
          EXPECT_EQ(s.workspace_floats, 0u);
          EXPECT_LE(k, bk);  // any K beyond one BK tile is split
          continue;
        }
        EXPECT_LE(s.k_splits, splitk);
        EXPECT_EQ(s.k_slice % bk, 0);
        EXPECT_LT(static_cast<long long>(s.k_splits - 1) * s.k_slice, k);  // no empty slice
        EXPECT_GE(static_cast<long long>(s.k_splits) * s.k_slice, k);      // all of K
        EXPECT_EQ(s.grid.z, static_cast<unsigned>(s.k_splits));
        EXPECT_EQ(s.workspace_floats,
                  SGEMM_TILE_COUNTERS + static_cast<std::size_t>(s.k_splits) * 64 * 64);
      }
    }
  }
  // K within one BK: a split would leave empty slices, so there is none.
  const LaunchGeometry tiny = f1().geometry(with(base(), "SPLITK", 4), problem(64, 64, 5), kDevice);
  EXPECT_EQ(tiny.k_splits, 1);
  EXPECT_FALSE(tiny.has_reduce);
  EXPECT_EQ(tiny.grid.z, 1u);
}

TEST(F1SimtFamily, InKernelReduceNeedsNoSecondKernelAndKeepsTileCounters) {
  const Knobs fused = with(with(base(), "SPLITK", 4), "REDUCE", 1);
  EXPECT_EQ(why(fused), "");
  const LaunchGeometry g = f1().geometry(fused, problem(1023, 1025, 1027), kDevice);
  EXPECT_EQ(g.k_splits, 4);
  EXPECT_EQ(g.grid.z, 4u);
  EXPECT_FALSE(g.has_reduce);
  // The counters, then one 128 x 128 partial tile per split and tile (8 x 9 tiles).
  EXPECT_EQ(g.workspace_floats, SGEMM_TILE_COUNTERS + 4u * 72u * 128u * 128u);
  // K within one BK: no split, so nothing to sum and no workspace.
  const LaunchGeometry tiny = f1().geometry(fused, problem(64, 64, 5), kDevice);
  EXPECT_EQ(tiny.k_splits, 1);
  EXPECT_EQ(tiny.workspace_floats, 0u);
  // One arrival counter per output tile: 129 x 129 tiles of 32 x 32 are too many to share K.
  Knobs small = with(fused, "SPLITK", 2);
  small["BM"] = 32, small["BN"] = 32, small["WM"] = 32, small["WN"] = 16, small["TM"] = 4;
  small["TN"] = 4;
  ASSERT_EQ(why(small), "");
  EXPECT_NE(f1().cannot_implement(small, problem(4128, 4128, 64)), "");
  EXPECT_EQ(f1().cannot_implement(small, problem(4096, 4096, 64)), "");
  EXPECT_EQ(f1().cannot_implement(with(small, "REDUCE", 0), problem(4128, 4128, 64)), "");
  // Configurations stored before REDUCE existed sum in sgemm_reduce.
  Knobs old = with(base(), "SPLITK", 4);
  old.erase("REDUCE");
  EXPECT_TRUE(f1().geometry(old, problem(1023, 1025, 1027), kDevice).has_reduce);
  EXPECT_EQ(with_knobs_added_later(f1(), old), with(with(base(), "SPLITK", 4), "REDUCE", 0));
  const auto d = f1().defines(old, problem(8, 8, 8));
  EXPECT_NE(std::find(d.begin(), d.end(), "-DREDUCE=0"), d.end());
  const auto d1 = f1().defines(fused, problem(8, 8, 8));
  EXPECT_NE(std::find(d1.begin(), d1.end(), "-DREDUCE=1"), d1.end());
  EXPECT_LT(f1().complexity(with(fused, "REDUCE", 0)), f1().complexity(fused));
  EXPECT_EQ(why(with(fused, "REDUCE", 2)), "reduce_0_or_1");
  EXPECT_EQ(why(with(base(), "REDUCE", 1)), "reduce_needs_split");
}

TEST(F1SimtFamily, CannotImplementInvalidOrDegenerateProblems) {
  EXPECT_EQ(f1().cannot_implement(base(), problem(1000, 1300, 700)), "");
  EXPECT_EQ(f1().cannot_implement(base(), problem(1, 1, 1, Op::T, Op::T, 1)), "");
  ProblemKey bad = problem(100, 100, 100);
  bad.lda = 50;  // fewer than the 100 rows of A
  EXPECT_NE(f1().cannot_implement(base(), bad), "");
  ProblemKey odd = problem(100, 100, 100);
  odd.align = 3;
  EXPECT_NE(f1().cannot_implement(base(), odd), "");
  EXPECT_NE(f1().cannot_implement(base(), problem(0, 100, 100)), "");
  EXPECT_NE(f1().cannot_implement(base(), problem(100, 0, 100)), "");
  // k = 0 is C = beta C, which the kernel does without loading a tile.
  EXPECT_EQ(f1().cannot_implement(base(), problem(100, 100, 0)), "");
  // 16 x 8192 x 8192 floats of split-K workspace is refused; unsplit it runs.
  EXPECT_NE(f1().cannot_implement(with(base(), "SPLITK", 16), problem(8192, 8192, 8192)), "");
  EXPECT_EQ(f1().cannot_implement(base(), problem(8192, 8192, 8192)), "");
  EXPECT_EQ(f1().cannot_implement(with(base(), "SPLITK", 16), problem(64, 64, 65536)), "");
}

TEST(F1SimtFamily, ComplexityGrowsWithMechanisms) {
  Knobs plain = base();
  plain["STAGES"] = 2, plain["REGDB"] = 0, plain["PAD"] = 0;
  const int c0 = f1().complexity(plain);
  EXPECT_LT(c0, f1().complexity(with(plain, "STAGES", 4)));
  EXPECT_LT(c0, f1().complexity(with(plain, "SPLITK", 2)));
  EXPECT_LT(c0, f1().complexity(with(plain, "RASTER", 8)));
  EXPECT_LT(f1().complexity(with(plain, "STAGES", 3)), f1().complexity(with(plain, "STAGES", 5)));
}

TEST(F1SimtFamily, DefaultSpaceIsSmallAndValid) {
  const SearchSpace space = load_search_space(SGEMM_SOURCE_DIR "/configs/spaces/f1_simt.yaml");
  ASSERT_EQ(space.families.size(), 1u);
  EXPECT_EQ(space.families[0].family, &f1());
  const Enumeration e = enumerate(space, DeviceLimits{});
  EXPECT_GE(e.valid.size(), 50u);
  bool has_split = false, has_deep_split = false, has_large = false;
  for (const Candidate& c : e.valid) {
    EXPECT_EQ(why(c.knobs), "") << knobs_to_string(c.knobs);
    has_split |= knob(c.knobs, "SPLITK") > 1;
    has_deep_split |= knob(c.knobs, "SPLITK") >= 32;
    has_large |= knob(c.knobs, "TM") * knob(c.knobs, "TN") == 128;
  }
  // Every distinct set of defines is one NVRTC compile per problem class; a ldc that is not a
  // multiple of 4 doubles them (XCHG 0 and 1) and adds the unsplit ones with CWIN 1.
  std::size_t aligned_c = 0, unsplit = 0;
  for (const Candidate& c : e.valid)
    unsplit +=
        knob(c.knobs, "SPLITK") == 1 && knob(c.knobs, "XCHG") == 0 && knob(c.knobs, "CWIN") == 1;
  for (const ProblemKey& p :
       {problem(300, 200, 40000), problem(301, 200, 40000, Op::N, Op::N, 1)}) {
    std::set<std::vector<std::string>> compiles;
    for (const Candidate& c : e.valid)
      if (f1().cannot_implement(c.knobs, p).empty()) compiles.insert(f1().defines(c.knobs, p));
    EXPECT_LE(compiles.size(), p.ldc % 4 == 0 ? 400u : 800u) << p.to_string();
    EXPECT_LT(compiles.size(), e.valid.size());  // split counts share a compile
    if (p.ldc % 4 == 0)
      aligned_c = compiles.size();
    else
      EXPECT_EQ(compiles.size(), 2 * aligned_c + unsplit);
  }
  EXPECT_TRUE(has_split);
  EXPECT_TRUE(has_deep_split);
  EXPECT_TRUE(has_large);
}

TEST(F1SimtFamily, EverySplitCountSharesOneCompile) {
  const ProblemKey p = problem(356, 72, 32827);
  const auto two = f1().defines(with(base(), "SPLITK", 2), p);
  EXPECT_EQ(f1().defines(with(base(), "SPLITK", 32), p), two);
  EXPECT_NE(f1().defines(base(), p), two);  // one slice: no split code at all
  // The count itself reaches the kernel at launch.
  EXPECT_EQ(f1().geometry(with(base(), "SPLITK", 32), p, kDevice).k_splits, 32);
}

TEST(F1SimtFamily, FusedReduceSpaceIsValidAndSplitsInTheKernel) {
  const SearchSpace space =
      load_search_space(SGEMM_SOURCE_DIR "/configs/spaces/f1_simt_fused_reduce.yaml");
  ASSERT_EQ(space.families.size(), 1u);
  EXPECT_EQ(space.families[0].family, &f1());
  const Enumeration e = enumerate(space, DeviceLimits{});
  EXPECT_GE(e.valid.size(), 20u);
  EXPECT_LE(e.valid.size(), 200u);
  for (const Candidate& c : e.valid) {
    EXPECT_EQ(why(c.knobs), "") << knobs_to_string(c.knobs);
    EXPECT_GT(knob(c.knobs, "SPLITK"), 1) << knobs_to_string(c.knobs);
    EXPECT_EQ(knob(c.knobs, "REDUCE"), 1) << knobs_to_string(c.knobs);
    EXPECT_FALSE(f1().geometry(c.knobs, problem(1023, 1025, 1027), kDevice).has_reduce);
  }
}

}  // namespace
}  // namespace sgt
