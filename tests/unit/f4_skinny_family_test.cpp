// Host tests of family F4 (src/space/families/f4_skinny.cpp): constraints, the problems a
// configuration claims, NVRTC defines, split-K geometry and the default search space.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "config/search_space.hpp"
#include "sgemm_args.h"
#include "space/family.hpp"
#include "support/problem_and_knobs.hpp"

namespace sgt {
namespace {

const DeviceLimits kDevice;  // the reference device: DeviceLimits' defaults, an H200's

using testing::contains;
using testing::problem;
using testing::with;

const Family& f4() { return find_family("f4_skinny"); }

// The template's own defaults (kernel_templates/f4_skinny.cu): a 256 x 16 tile, 4 K slices.
Knobs base() {
  return {{"BS", 16}, {"TS", 16},    {"TG", 4},     {"WARPS", 8}, {"KSL", 4},
          {"BK", 32}, {"STAGES", 4}, {"SPLITK", 1}, {"OCC", 8},   {"DIRECT", 0},
          {"PF", 0},  {"REDUCE", 0}, {"EVICT", 0},  {"WIN", 0}};
}

std::string why(const Knobs& k, const DeviceLimits& lim = {}) {
  return failed_constraint(f4(), k, lim);
}

// Knob sets of the default space (configs/spaces/f4_skinny.yaml) that pass every constraint.
std::vector<Knobs> default_space() {
  const SearchSpace space =
      load_search_space(std::string(SGEMM_SOURCE_DIR) + "/configs/spaces/f4_skinny.yaml");
  std::vector<Knobs> out;
  for (const Candidate& c : enumerate(space, DeviceLimits{}).valid) out.push_back(c.knobs);
  return out;
}

TEST(F4SkinnyFamily, IsRegisteredUnderItsTemplateName) {
  EXPECT_EQ(f4().name(), "f4_skinny");
  const auto& all = families();
  EXPECT_NE(std::find(all.begin(), all.end(), &f4()), all.end());
  const auto names = f4().knob_names();
  EXPECT_EQ(names.size(), base().size());
  for (const auto& [name, value] : base()) EXPECT_TRUE(contains(names, name)) << name;
}

TEST(F4SkinnyFamily, TemplateDefaultsAreValid) { EXPECT_EQ(why(base()), ""); }

TEST(F4SkinnyFamily, TargetConfigurationsAreValid) {
  // GEMV: 32 rows x 32 K slices of 4 k, no split.
  Knobs gemv = {{"BS", 1},   {"TS", 1},     {"TG", 4},     {"WARPS", 8}, {"KSL", 32},
                {"BK", 128}, {"STAGES", 6}, {"SPLITK", 0}, {"OCC", 8},   {"DIRECT", 0},
                {"PF", 0},   {"REDUCE", 0}, {"EVICT", 0},  {"WIN", 0}};
  EXPECT_EQ(why(gemv), "");
  // 64 x 64 tile, 8 x 8 per thread, 4 K slices, split over the GPU.
  Knobs square = {{"BS", 64}, {"TS", 8},     {"TG", 8},     {"WARPS", 8}, {"KSL", 4},
                  {"BK", 32}, {"STAGES", 3}, {"SPLITK", 1}, {"OCC", 8},   {"DIRECT", 0},
                  {"PF", 0},  {"REDUCE", 0}, {"EVICT", 0},  {"WIN", 0}};
  EXPECT_EQ(why(square), "");
  // Two-warp blocks for short K, four resident per SM.
  Knobs tall = with(with(with(square, "WARPS", 2), "KSL", 1), "SPLITK", 0);
  EXPECT_EQ(why(tall), "");
}

TEST(F4SkinnyFamily, ConstraintsRejectByName) {
  EXPECT_EQ(why(with(base(), "BS", 128)), "bs_power_of_two_up_to_64");
  EXPECT_EQ(why(with(base(), "BS", 12)), "bs_power_of_two_up_to_64");
  EXPECT_EQ(why(with(base(), "TS", 32)), "ts_power_of_two_dividing_bs_up_to_16");
  EXPECT_EQ(why(with(with(base(), "BS", 4), "TS", 8)), "ts_power_of_two_dividing_bs_up_to_16");
  EXPECT_EQ(why(with(base(), "TS", 8)), "ts_is_bs_up_to_16_else_8_or_16");
  EXPECT_EQ(why(with(base(), "TG", 2)), "tg_is_4_or_8");
  EXPECT_EQ(why(with(base(), "WARPS", 3)), "threads_power_of_two_in_range");
  EXPECT_EQ(why(with(base(), "WARPS", 64)), "threads_power_of_two_in_range");
  EXPECT_EQ(why(with(base(), "KSL", 3)), "k_slices_and_s_groups_divide_the_block");
  EXPECT_EQ(why(with(with(base(), "WARPS", 4), "OCC", 8)), "small_blocks_have_no_k_slices");
  // 8 warps, 64 K slices: 4 threads along G.
  EXPECT_EQ(why(with(with(base(), "KSL", 64), "BK", 128)), "at_least_8_lanes_along_g");
  EXPECT_EQ(why(with(base(), "BK", 8)), "bk_power_of_two_16_to_128");
  EXPECT_EQ(why(with(base(), "BK", 256)), "bk_power_of_two_16_to_128");
  EXPECT_EQ(why(with(base(), "KSL", 16)), "k_per_slice_4_to_32");  // 2 k per slice
  EXPECT_EQ(why(with(with(base(), "KSL", 1), "BK", 64)), "k_per_slice_4_to_32");
  EXPECT_EQ(why(with(base(), "STAGES", 1)), "stages_2_to_8");
  EXPECT_EQ(why(with(base(), "SPLITK", -1)), "splitk_0_to_16");
  EXPECT_EQ(why(with(base(), "OCC", 12)), "occ_multiple_of_warps_up_to_64");
  EXPECT_EQ(why(with(with(base(), "TG", 8), "TS", 16)), "accumulators_at_most_64");
  // 32 warps per SM cap registers at 64: less than 64 accumulators need.
  EXPECT_EQ(why(with(base(), "OCC", 32)), "registers_fit");
}

TEST(F4SkinnyFamily, KPerSliceBoundaryIsInclusive) {
  EXPECT_EQ(why(with(base(), "KSL", 8)), "");  // 4 k per slice and stage
  // 32 k per slice: one slice in a 2-warp block (OCC = 2 keeps one block's ring in bounds).
  Knobs one_slice = with(with(with(with(base(), "KSL", 1), "WARPS", 2), "OCC", 2), "STAGES", 3);
  EXPECT_EQ(why(one_slice), "");
}

TEST(F4SkinnyFamily, OccupancyKnobMustChangeTheKernel) {
  // A GEMV thread needs about 70 registers: a 128-register cap compiles the same kernel.
  Knobs gemv = {{"BS", 1},   {"TS", 1},     {"TG", 4},     {"WARPS", 8}, {"KSL", 32},
                {"BK", 128}, {"STAGES", 6}, {"SPLITK", 0}, {"OCC", 8},   {"DIRECT", 0},
                {"PF", 0},   {"REDUCE", 0}, {"EVICT", 0},  {"WIN", 0}};
  EXPECT_EQ(why(with(gemv, "OCC", 16)), "occupancy_cap_binds");
  // 64 accumulators: the cap binds (128 x 64 tile so that two blocks fit in shared memory).
  EXPECT_EQ(why(with(with(with(base(), "KSL", 8), "STAGES", 3), "OCC", 16)), "");
}

TEST(F4SkinnyFamily, CappedRegistersKeepSGroupTilesNarrow) {
  const Knobs wide = {{"BS", 64}, {"TS", 16},    {"TG", 4},     {"WARPS", 8}, {"KSL", 4},
                      {"BK", 32}, {"STAGES", 3}, {"SPLITK", 0}, {"OCC", 8},   {"DIRECT", 0},
                      {"PF", 0},  {"REDUCE", 0}, {"EVICT", 0},  {"WIN", 0}};
  EXPECT_EQ(why(wide), "");
  EXPECT_EQ(why(with(wide, "OCC", 16)), "capped_s_groups_take_8_columns");
  EXPECT_EQ(why(with(with(with(wide, "OCC", 16), "TS", 8), "TG", 8)), "");
}

TEST(F4SkinnyFamily, RingDepthIsBoundedBothWays) {
  // 2 warps, one 64 x 64 stage of 16 KB: a 2-stage ring has too little in flight.
  Knobs tall = {{"BS", 64}, {"TS", 8},     {"TG", 8},     {"WARPS", 2}, {"KSL", 1},
                {"BK", 32}, {"STAGES", 2}, {"SPLITK", 0}, {"OCC", 2},   {"DIRECT", 0},
                {"PF", 0},  {"REDUCE", 0}, {"EVICT", 0},  {"WIN", 0}};
  EXPECT_EQ(why(tall), "at_least_32_kb_in_flight_per_sm");
  // 256 x 16 tile, 35 KB stages: 8 stages keep far more than 96 KB in flight.
  EXPECT_EQ(why(with(base(), "STAGES", 8)), "no_needless_stage");
}

TEST(F4SkinnyFamily, SharedMemoryLimitsPerBlockAndPerSm) {
  // The defaults need up to 153 KB (K-contiguous X: 4 stages of 256 x 36 + 16 x 36 floats).
  DeviceLimits small_smem;
  small_smem.smem_optin_bytes = 100 * 1024;
  EXPECT_EQ(why(base(), small_smem), "shared_memory_fits");
  // 3 stages take 115 KB: one block fits, the two blocks per SM that OCC = 16 asks for do not.
  EXPECT_EQ(why(with(base(), "STAGES", 3)), "");
  EXPECT_EQ(why(with(with(base(), "STAGES", 3), "OCC", 16)), "shared_memory_fits");
}

TEST(F4SkinnyFamily, ClaimsOnlySkinnyWellFormedProblems) {
  const Knobs k = base();  // BS = 16: small dimension 5..32
  EXPECT_EQ(f4().cannot_implement(k, problem(4096, 16, 4096)), "");
  EXPECT_EQ(f4().cannot_implement(k, problem(16, 4096, 4096)), "");  // M small: symmetric code
  EXPECT_EQ(f4().cannot_implement(k, problem(4096, 32, 100, Op::T, Op::T, 1)), "");
  EXPECT_EQ(f4().cannot_implement(k, problem(5, 5, 1)), "");
  EXPECT_NE(f4().cannot_implement(k, problem(4096, 33, 4096)), "");  // three tiles of 16
  EXPECT_NE(f4().cannot_implement(k, problem(4096, 4, 4096)), "");   // 16 >= 4 * 4
  EXPECT_NE(f4().cannot_implement(k, problem(100, 100, 100)), "");   // not skinny
  EXPECT_NE(f4().cannot_implement(k, problem(4096, 16, 0)), "");     // empty: dispatcher's
  EXPECT_NE(f4().cannot_implement(k, problem(0, 16, 10)), "");
  ProblemKey bad = problem(100, 16, 10);
  bad.lda = 50;
  EXPECT_NE(f4().cannot_implement(k, bad), "");
  const Knobs gemv = with(with(base(), "BS", 1), "TS", 1);
  EXPECT_EQ(f4().cannot_implement(gemv, problem(4096, 1, 4096)), "");
  EXPECT_EQ(f4().cannot_implement(gemv, problem(1, 4096, 4096)), "");
  EXPECT_EQ(f4().cannot_implement(gemv, problem(1, 1, 1)), "");
  EXPECT_NE(f4().cannot_implement(gemv, problem(4096, 3, 4096)), "");  // three tiles of 1
}

TEST(F4SkinnyFamily, EverySmallDimensionUpTo64IsClaimedByTheDefaultSpace) {
  const std::vector<Knobs> space = default_space();
  for (int s = 1; s <= 64; ++s) {
    for (const ProblemKey& p : {problem(1000, s, 300), problem(s, 1000, 300, Op::T, Op::N, 1)}) {
      const bool claimed = std::any_of(space.begin(), space.end(), [&](const Knobs& k) {
        return f4().cannot_implement(k, p).empty();
      });
      EXPECT_TRUE(claimed) << p.to_string();
    }
  }
}

TEST(F4SkinnyFamily, DefinesCarryKnobsAndProblemClass) {
  const auto d = f4().defines(base(), problem(4096, 16, 4096, Op::T, Op::N, 2));
  for (const auto& [name, value] : base()) {
    if (name == "WIN") continue;  // only where set (WindowsOnlyForStreamsAlongGBelowClass4)
    EXPECT_TRUE(contains(d, "-D" + name + "=" + std::to_string(value))) << name;
  }
  EXPECT_TRUE(contains(d, "-DTRANS_A=1"));
  EXPECT_TRUE(contains(d, "-DTRANS_B=0"));
  EXPECT_TRUE(contains(d, "-DALIGN=2"));
  EXPECT_TRUE(contains(d, "-DSMALL_M=0"));
  EXPECT_TRUE(contains(f4().defines(base(), problem(16, 4096, 4096)), "-DSMALL_M=1"));
  EXPECT_TRUE(contains(f4().defines(base(), problem(16, 16, 4096)), "-DSMALL_M=0"));  // ties: N
  EXPECT_EQ(d.size(), base().size() - 1 + 4);
}

// SPLITK counts waves of the device's SMs: 16 tiles on 66 SMs ask for 4 splits, not 8.
TEST(F4SkinnyFamily, SplitKWavesFollowTheDevicesSmCount) {
  DeviceLimits half;
  half.sm_count = 66;
  EXPECT_EQ(f4().geometry(base(), problem(4096, 16, 4096), half).k_splits, 4);
  EXPECT_EQ(f4().geometry(base(), problem(4096, 16, 4096), kDevice).k_splits, 8);
}

TEST(F4SkinnyFamily, SplitKFillsTheGpuWithDisjointSlices) {
  // 256 x 16 tiles: 16 of them; one wave of 132 asks for 8 splits of 512 k.
  const LaunchGeometry g = f4().geometry(base(), problem(4096, 16, 4096), kDevice);
  EXPECT_EQ(g.grid.x, 16u);
  EXPECT_EQ(g.grid.y, 1u);
  EXPECT_EQ(g.grid.z, 8u);
  EXPECT_EQ(g.block.x, 256u);
  EXPECT_EQ(g.k_splits, 8);
  EXPECT_EQ(g.k_slice, 512);
  EXPECT_TRUE(g.has_reduce);
  EXPECT_EQ(g.workspace_floats, SGEMM_TILE_COUNTERS + std::size_t{8} * 4096 * 16);
  EXPECT_GE(std::size_t{g.reduce_grid.x} * g.reduce_block.x, std::size_t{4096} * 16);
  // 4 x (256 x 32 + 16 x 36) floats of ring (X is M-contiguous, B K-contiguous).
  EXPECT_EQ(g.smem_bytes, 4u * 4 * (256 * 32 + 16 * 36));
}

TEST(F4SkinnyFamily, NoSplitWritesCDirectly) {
  const LaunchGeometry g =
      f4().geometry(with(base(), "SPLITK", 0), problem(4096, 16, 4096), kDevice);
  EXPECT_EQ(g.grid.z, 1u);
  EXPECT_EQ(g.k_splits, 1);
  EXPECT_FALSE(g.has_reduce);
  EXPECT_EQ(g.k_slice, 0);  // all of K
  EXPECT_EQ(g.workspace_floats, 0u);
  // K near 2^31 (A is 1 x K): no int overflow in the chunk count or the grid.
  const LaunchGeometry huge =
      f4().geometry(with(base(), "SPLITK", 0), problem(1, 1, 2147483600), kDevice);
  EXPECT_EQ(huge.grid.x, 1u);
  EXPECT_EQ(huge.k_slice, 0);
  // Enough tiles already: SPLITK = 1 does not split 32000 rows (125 tiles < 132, 1 split each).
  const LaunchGeometry big = f4().geometry(base(), problem(32000, 16, 4096), kDevice);
  EXPECT_EQ(big.grid.x, 125u);
  EXPECT_EQ(big.k_splits, 1);
  EXPECT_FALSE(big.has_reduce);
}

TEST(F4SkinnyFamily, SmallMIsTiledAlongN) {
  const LaunchGeometry g = f4().geometry(base(), problem(16, 4096, 4096, Op::N, Op::T), kDevice);
  EXPECT_EQ(g.grid.x, 16u);  // 4096 columns of B in 256-wide tiles
  EXPECT_EQ(g.grid.y, 1u);
  // B stored n x k (transb T) is N-contiguous: X ring 32 x 256; A m x k is M-contiguous: 32 x 16.
  EXPECT_EQ(g.smem_bytes, 4u * 4 * (32 * 256 + 32 * 16));
}

TEST(F4SkinnyFamily, ShortKAllocatesOnlyTheStagesItUses) {
  // K = 64 in stages of 32: 2 of the 3 stages (2 x (32 x 64 + 64 x 36) floats) and the 64 x 65
  // partial tile fits inside them.
  const Knobs tall = {{"BS", 64}, {"TS", 8},     {"TG", 8},     {"WARPS", 2}, {"KSL", 1},
                      {"BK", 32}, {"STAGES", 3}, {"SPLITK", 0}, {"OCC", 8},   {"DIRECT", 0},
                      {"PF", 0},  {"REDUCE", 0}, {"EVICT", 0},  {"WIN", 0}};
  const LaunchGeometry g = f4().geometry(tall, problem(65536, 64, 64), kDevice);
  EXPECT_EQ(g.grid.x, 1024u);
  EXPECT_EQ(g.smem_bytes, 4u * 2 * (32 * 64 + 64 * 36));
  // K = 1: one stage; with 4 K slices the partial tiles (4 x 64 x 65 floats) are the larger.
  EXPECT_EQ(f4().geometry(tall, problem(65536, 64, 1), kDevice).smem_bytes,
            4u * (32 * 64 + 64 * 36));
  const Knobs sliced = {{"BS", 64}, {"TS", 8},     {"TG", 8},     {"WARPS", 8}, {"KSL", 4},
                        {"BK", 32}, {"STAGES", 3}, {"SPLITK", 0}, {"OCC", 8},   {"DIRECT", 0},
                        {"PF", 0},  {"REDUCE", 0}, {"EVICT", 0},  {"WIN", 0}};
  EXPECT_EQ(f4().geometry(sliced, problem(65536, 64, 1), kDevice).smem_bytes, 4u * 4 * 64 * 65);
}

TEST(F4SkinnyFamily, HugeKSplitsAreBoundedAndReduceThreadsSpanSplits) {
  const Knobs square = {{"BS", 64}, {"TS", 8},     {"TG", 8},     {"WARPS", 8}, {"KSL", 4},
                        {"BK", 32}, {"STAGES", 3}, {"SPLITK", 1}, {"OCC", 8},   {"DIRECT", 0},
                        {"PF", 0},  {"REDUCE", 0}, {"EVICT", 0},  {"WIN", 0}};
  const LaunchGeometry g = f4().geometry(square, problem(64, 64, 65536), kDevice);
  EXPECT_EQ(g.grid.x * g.grid.y, 1u);
  EXPECT_EQ(g.k_splits, 128);  // 2048 chunks of 32 in 132 splits: 16 chunks each, 128 splits
  EXPECT_EQ(g.k_slice, 512);
  EXPECT_EQ(g.reduce_block.y, 16u);  // 16 threads per output, 8 splits each
  EXPECT_EQ(g.reduce_block.x * g.reduce_block.y, 512u);
  const LaunchGeometry many =
      f4().geometry(with(square, "SPLITK", 16), problem(64, 64, 1 << 24), kDevice);
  EXPECT_LE(many.k_splits, 1024);
  EXPECT_LE(many.reduce_block.x * many.reduce_block.y, 1024u);
}

TEST(F4SkinnyFamily, TheStreamedOperandIsReadOncePerTileOfTheSmallDimension) {
  const ProblemKey p = problem(39030, 8, 1151);
  const LaunchGeometry two = f4().geometry(with(with(base(), "BS", 4), "TS", 4), p, kDevice);
  EXPECT_EQ(two.grid.y, 2u);
  EXPECT_EQ(two.stream_passes, 2);
  EXPECT_EQ(two.stream_floats, 39030.0 * 1151);
  EXPECT_EQ(f4().geometry(base(), p, kDevice).stream_passes, 1);
  // Small M: B is the streamed operand, n x k.
  const LaunchGeometry b = f4().geometry(base(), problem(5, 8835, 2842, Op::N, Op::N, 1), kDevice);
  EXPECT_EQ(b.stream_floats, 8835.0 * 2842);
}

// Every configuration of the default space on a spread of claimed problems: the grid covers the
// output, splits are disjoint and non-empty and cover K, resources are within the device.
TEST(F4SkinnyFamily, DefaultSpaceGeometryIsConsistent) {
  const std::vector<Knobs> space = default_space();
  ASSERT_GE(space.size(), 60u);
  ASSERT_LE(space.size(), 600u);
  const DeviceLimits lim;
  int checked = 0;
  for (const Knobs& k : space) {
    for (int s : {1, 2, 3, 5, 16, 17, 33, 64}) {
      for (int k_len : {1, 64, 1000, 65536}) {
        for (const ProblemKey& p :
             {problem(3000, s, k_len), problem(s, 777, k_len, Op::T, Op::T, 1)}) {
          if (!f4().cannot_implement(k, p).empty()) continue;
          ++checked;
          const LaunchGeometry g = f4().geometry(k, p, kDevice);
          const int big = std::max(p.m, p.n);
          const int bs = k.at("BS");
          EXPECT_GE(std::int64_t{g.grid.y} * bs, std::min(p.m, p.n));
          EXPECT_LT(std::int64_t{g.grid.y - 1} * bs, std::min(p.m, p.n));
          EXPECT_GE(g.grid.x, 1u);
          EXPECT_LE(std::int64_t{g.grid.x - 1} * 32, big);  // tiles are at least 32 wide
          EXPECT_EQ(g.block.x, 32u * k.at("WARPS"));
          EXPECT_LE(g.smem_bytes, static_cast<unsigned>(lim.smem_optin_bytes));
          EXPECT_EQ(static_cast<int>(g.grid.z), g.k_splits);
          EXPECT_EQ(g.has_reduce, g.k_splits > 1 && k.at("REDUCE") == 0);
          EXPECT_TRUE(g.k_splits > 1 || k.at("REDUCE") == 0);  // REDUCE = 1 only with a split
          if (g.k_splits == 1) {
            EXPECT_EQ(g.k_slice, 0);  // all of K
          } else {
            if (k.at("DIRECT") == 1) {
              EXPECT_EQ(g.k_slice % 16, 0);      // Y slices of 16 k...
              EXPECT_LE(g.k_slice, k.at("BK"));  // ... fit in BK k of shared memory
            } else {
              EXPECT_EQ(g.k_slice % k.at("BK"), 0);
            }
            EXPECT_GE(std::int64_t{g.k_splits} * g.k_slice, p.k);
            EXPECT_LT(std::int64_t{g.k_splits - 1} * g.k_slice, p.k);  // no empty split
          }
          if (g.k_splits > 1) {
            EXPECT_EQ(g.workspace_floats,
                      SGEMM_TILE_COUNTERS + std::size_t(g.k_splits) * p.m * p.n);
            EXPECT_LE(std::int64_t{g.grid.x} * g.grid.y, SGEMM_TILE_COUNTERS);
          } else {
            EXPECT_EQ(g.workspace_floats, 0u);
          }
          if (g.has_reduce) {
            EXPECT_GE(std::size_t{g.reduce_grid.x} * g.reduce_block.x, std::size_t(p.m) * p.n);
            EXPECT_LE(g.reduce_block.x * g.reduce_block.y, 1024u);
            EXPECT_EQ(g.reduce_block.y & (g.reduce_block.y - 1), 0u);
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

// WIN = 1: X contiguous along G below class 4 copied in 16-byte windows, one float4 more per k
// row of each stage; everything else refuses it, and its define is passed only where set.
TEST(F4SkinnyFamily, WindowsOnlyForStreamsAlongGBelowClass4) {
  const Knobs win = with(base(), "WIN", 1);
  EXPECT_EQ(why(win), "");
  EXPECT_EQ(why(with(win, "WIN", 2)), "win_is_0_or_1");
  const Knobs gemv = {{"BS", 1},   {"TS", 1},     {"TG", 4},     {"WARPS", 8}, {"KSL", 8},
                      {"BK", 512}, {"STAGES", 3}, {"SPLITK", 1}, {"OCC", 16},  {"DIRECT", 1},
                      {"PF", 0},   {"REDUCE", 0}, {"EVICT", 0},  {"WIN", 0}};
  EXPECT_EQ(why(gemv), "");
  EXPECT_EQ(why(with(gemv, "WIN", 1)), "win_only_on_the_ring");
  const ProblemKey odd = problem(39030, 8, 1151, Op::N, Op::N, 1);    // X = A, along G
  const ProblemKey odd_t = problem(8, 39030, 1151, Op::T, Op::T, 2);  // X = B^T, along G
  EXPECT_EQ(f4().cannot_implement(win, odd), "");
  EXPECT_EQ(f4().cannot_implement(win, odd_t), "");
  EXPECT_NE(f4().cannot_implement(win, problem(39030, 8, 1151)), "");                   // class 4
  EXPECT_NE(f4().cannot_implement(win, problem(39030, 8, 1151, Op::T, Op::N, 1)), "");  // along K
  const std::vector<std::string> d = f4().defines(win, odd), d0 = f4().defines(base(), odd);
  EXPECT_TRUE(contains(d, "-DWIN=1"));
  EXPECT_TRUE(std::none_of(d0.begin(), d0.end(),
                           [](const std::string& s) { return s.starts_with("-DWIN"); }));
  // 4 stages of 32 k rows, each 4 floats longer (the ring outgrows the K-slice partials).
  const LaunchGeometry g = f4().geometry(win, odd, kDevice),
                       g0 = f4().geometry(base(), odd, kDevice);
  EXPECT_EQ(g.smem_bytes, g0.smem_bytes + 4u * 4 * 32 * 4);
  EXPECT_FALSE(g.narrow_stream);
  EXPECT_TRUE(g0.narrow_stream);
  EXPECT_FALSE(f4().geometry(base(), problem(39030, 8, 1151), kDevice).narrow_stream);
}

TEST(F4SkinnyFamily, DirectStreamsGContiguousXInSlicesOfAtMostBK) {
  // The 4096x1x4096 DIRECT shape on the H200: 8 warps, all along K, 128 rows per block, 8 splits.
  const Knobs gemv = {{"BS", 1},   {"TS", 1},     {"TG", 4},     {"WARPS", 8}, {"KSL", 8},
                      {"BK", 512}, {"STAGES", 3}, {"SPLITK", 1}, {"OCC", 16},  {"DIRECT", 1},
                      {"PF", 0},   {"REDUCE", 0}, {"EVICT", 0},  {"WIN", 0}};
  EXPECT_EQ(why(gemv), "");
  const LaunchGeometry g = f4().geometry(gemv, problem(4096, 1, 4096), kDevice);
  EXPECT_EQ(g.grid.x, 32u);  // 1 warp along G x 32 lanes x 4 rows = 128 rows
  EXPECT_EQ(g.k_splits, 8);
  EXPECT_EQ(g.k_slice, 512);
  EXPECT_EQ(g.block.x, 256u);
  // max(512 k x 1 column of Y, 8 slices x 1 x (128 + 4) partial sums) floats.
  EXPECT_EQ(g.smem_bytes, 4u * 8 * 132);
  EXPECT_EQ(f4().cannot_implement(gemv, problem(4096, 1, 4096)), "");
  // X must be contiguous along G: A transposed (K-contiguous) is left to the ring.
  EXPECT_NE(f4().cannot_implement(gemv, problem(4096, 1, 4096, Op::T, Op::N)), "");
  EXPECT_EQ(why(with(with(gemv, "BS", 16), "TS", 16)), "direct_only_for_s_up_to_4");
  EXPECT_EQ(why(with(gemv, "KSL", 4)), "direct_blocks_are_8_warps_along_k");
  EXPECT_EQ(why(with(gemv, "BK", 256)), "direct_blocks_are_8_warps_along_k");
  EXPECT_EQ(why(with(base(), "PF", 32)), "pf_only_with_direct_0_or_8_to_256");
}

TEST(F4SkinnyFamily, ComplexityPrefersNoSplitAndShallowRings) {
  EXPECT_LT(f4().complexity(with(base(), "SPLITK", 0)), f4().complexity(base()));
  EXPECT_LT(f4().complexity(with(base(), "STAGES", 3)), f4().complexity(base()));
  EXPECT_LT(f4().complexity(base()), f4().complexity(with(base(), "REDUCE", 1)));
}

TEST(F4SkinnyFamily, InKernelReduceIsOneLaunchOverTheSameSplits) {
  const Knobs fused = with(base(), "REDUCE", 1);
  EXPECT_EQ(why(fused), "");
  const ProblemKey p = problem(4096, 16, 4096);
  ASSERT_EQ(f4().cannot_implement(fused, p), "");
  const LaunchGeometry two = f4().geometry(base(), p, kDevice);
  const LaunchGeometry one = f4().geometry(fused, p, kDevice);
  EXPECT_FALSE(one.has_reduce);  // no sgemm_reduce launch
  EXPECT_EQ(one.grid.x, two.grid.x);
  EXPECT_EQ(one.grid.y, two.grid.y);
  EXPECT_EQ(one.grid.z, 8u);
  EXPECT_EQ(one.k_splits, two.k_splits);
  EXPECT_EQ(one.k_slice, two.k_slice);
  EXPECT_EQ(one.smem_bytes, two.smem_bytes);
  // The same partial sums after the same counters (16 tiles use 16 of them).
  EXPECT_EQ(one.workspace_floats, SGEMM_TILE_COUNTERS + std::size_t{8} * 4096 * 16);
  EXPECT_TRUE(contains(f4().defines(fused, p), "-DREDUCE=1"));
  // DIRECT = 1 splits K by itself: REDUCE = 1 applies there with SPLITK = 0 too.
  const Knobs gemv = {{"BS", 1},   {"TS", 1},     {"TG", 4},     {"WARPS", 8}, {"KSL", 8},
                      {"BK", 512}, {"STAGES", 3}, {"SPLITK", 0}, {"OCC", 16},  {"DIRECT", 1},
                      {"PF", 0},   {"REDUCE", 1}, {"EVICT", 0},  {"WIN", 0}};
  EXPECT_EQ(why(gemv), "");
  const LaunchGeometry direct = f4().geometry(gemv, problem(4096, 1, 4096), kDevice);
  EXPECT_EQ(direct.k_splits, 8);
  EXPECT_FALSE(direct.has_reduce);
}

TEST(F4SkinnyFamily, InKernelReduceNeedsASplitAndACounterPerTile) {
  EXPECT_EQ(why(with(base(), "REDUCE", 2)), "reduce_is_0_or_1");
  EXPECT_EQ(why(with(with(base(), "SPLITK", 0), "REDUCE", 1)), "reduce_only_where_k_splits");
  const Knobs fused = with(base(), "REDUCE", 1);
  // 125 tiles already fill the GPU: no split, so REDUCE = 1 would duplicate REDUCE = 0.
  EXPECT_NE(f4().cannot_implement(fused, problem(32000, 16, 4096)), "");
  EXPECT_EQ(f4().cannot_implement(with(fused, "SPLITK", 2), problem(32000, 16, 4096)), "");
  EXPECT_NE(f4().cannot_implement(fused, problem(4096, 16, 32)), "");  // one chunk of K
  // DIRECT = 1 splits 2097280 rows (16385 tiles of 128) into 2: more tiles than counters.
  const Knobs gemv = {{"BS", 1},   {"TS", 1},     {"TG", 4},     {"WARPS", 8}, {"KSL", 8},
                      {"BK", 512}, {"STAGES", 3}, {"SPLITK", 0}, {"OCC", 16},  {"DIRECT", 1},
                      {"PF", 0},   {"REDUCE", 1}, {"EVICT", 0},  {"WIN", 0}};
  const ProblemKey tall = problem(16384 * 128 + 128, 1, 600);
  EXPECT_EQ(f4().geometry(gemv, tall, kDevice).k_splits, 2);
  EXPECT_NE(f4().cannot_implement(gemv, tall).find("counter"), std::string::npos);
  EXPECT_EQ(f4().cannot_implement(with(gemv, "REDUCE", 0), tall), "");
}

// The dispatcher reads winners stored before REDUCE and EVICT existed (cannot_implement, defines,
// geometry).
TEST(F4SkinnyFamily, ConfigurationsStoredWithoutReduceOrEvictMeanZero) {
  Knobs stored = base();
  stored.erase("REDUCE");
  stored.erase("EVICT");
  const ProblemKey p = problem(4096, 16, 4096);
  EXPECT_EQ(f4().cannot_implement(stored, p), "");
  EXPECT_EQ(f4().defines(stored, p), f4().defines(base(), p));
  const LaunchGeometry g = f4().geometry(stored, p, kDevice);
  EXPECT_TRUE(g.has_reduce);
  EXPECT_EQ(g.workspace_floats, f4().geometry(base(), p, kDevice).workspace_floats);
  EXPECT_EQ(with_knobs_added_later(f4(), stored), base());
}

// EVICT only changes the L2 policy of X's loads: in registers a define over the same launch, on
// the ring a streaming access-policy window over EVICT = 0's build.
TEST(F4SkinnyFamily, EvictFirstIsADefineInRegistersAndAWindowOnTheRing) {
  const Knobs plain = {{"BS", 1},   {"TS", 1},     {"TG", 4},     {"WARPS", 8}, {"KSL", 8},
                       {"BK", 512}, {"STAGES", 3}, {"SPLITK", 1}, {"OCC", 16},  {"DIRECT", 1},
                       {"PF", 0},   {"REDUCE", 0}, {"EVICT", 0},  {"WIN", 0}};
  const Knobs evict = with(plain, "EVICT", 1);
  EXPECT_EQ(why(evict), "");
  EXPECT_EQ(why(with(plain, "EVICT", 2)), "evict_is_0_or_1");
  const ProblemKey p = problem(4096, 1, 4096);
  EXPECT_TRUE(contains(f4().defines(evict, p), "-DEVICT=1"));
  EXPECT_TRUE(contains(f4().defines(plain, p), "-DEVICT=0"));
  const LaunchGeometry unhinted = f4().geometry(plain, p, kDevice),
                       hinted = f4().geometry(evict, p, kDevice);
  EXPECT_EQ(hinted.grid.x, unhinted.grid.x);
  EXPECT_EQ(hinted.grid.z, unhinted.grid.z);
  EXPECT_EQ(hinted.smem_bytes, unhinted.smem_bytes);
  EXPECT_EQ(hinted.workspace_floats, unhinted.workspace_floats);
  EXPECT_EQ(hinted.l2_streamed.which, L2StreamedOperand::Which::none);
  // A tie in time goes to the default policy.
  EXPECT_LT(f4().complexity(plain), f4().complexity(evict));

  // The ring: ptxas 13.0 miscompiles hinted cp.async, so its build stays EVICT = 0's.
  const Knobs ring = with(base(), "EVICT", 1);
  EXPECT_EQ(why(ring), "");
  EXPECT_EQ(f4().defines(ring, p), f4().defines(base(), p));
  EXPECT_EQ(f4().geometry(base(), p, kDevice).l2_streamed.which, L2StreamedOperand::Which::none);
  // X is A (4096 x 4096, lda 4100) where m >= n ...
  ProblemKey tall = problem(4096, 16, 4096);
  tall.lda = 4100;
  const L2StreamedOperand a = f4().geometry(ring, tall, kDevice).l2_streamed;
  EXPECT_EQ(a.which, L2StreamedOperand::Which::a);
  EXPECT_EQ(a.bytes, 4u * (4100u * 4095u + 4096u));
  // ... and B where m < n: transposed, B is stored 3000 x 2000 (ldb 3000).
  const ProblemKey wide = problem(16, 3000, 2000, Op::N, Op::T);
  const L2StreamedOperand b = f4().geometry(ring, wide, kDevice).l2_streamed;
  EXPECT_EQ(b.which, L2StreamedOperand::Which::b);
  EXPECT_EQ(b.bytes, 4u * (3000u * 1999u + 3000u));
}

TEST(F4SkinnyFamily, DefaultSpaceSearchesBothReductions) {
  const std::vector<Knobs> space = default_space();
  int fused = 0, separate = 0;
  for (const Knobs& k : space) {
    if (k.at("REDUCE") == 1) {
      ++fused;
      // Its REDUCE = 0 twin is in the space too: the tuner times both.
      EXPECT_NE(std::find(space.begin(), space.end(), with(k, "REDUCE", 0)), space.end())
          << knobs_to_string(k);
    } else if (k.at("SPLITK") > 0 || k.at("DIRECT") == 1) {
      ++separate;
    }
  }
  EXPECT_GT(fused, 0);
  EXPECT_EQ(fused, separate);
  RecordProperty("configurations", static_cast<int>(space.size()));
  RecordProperty("fused", fused);
}

}  // namespace
}  // namespace sgt
