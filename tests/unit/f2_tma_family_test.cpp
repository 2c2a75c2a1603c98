// Host tests of family F2 (src/space/families/f2_tma.cpp): constraints, which problems it takes,
// NVRTC defines, launch geometry with its TMA boxes, the default space, and the tensor-map
// encoder's refusals (src/cuda/tensor_map.cpp), none of which need a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "common/error.hpp"
#include "config/search_space.hpp"
#include "cuda/tensor_map.hpp"
#include "sgemm_args.h"
#include "space/family.hpp"
#include "support/problem_and_knobs.hpp"

namespace sgt {
namespace {

const DeviceLimits kDevice;  // the reference device: DeviceLimits' defaults, an H200's

using testing::contains;
using testing::problem;
using testing::with;

const Family& f2() { return find_family("f2_tma"); }

// The template's own defaults (kernel_templates/f2_tma.cu): 128x128x32, 8 warps of 32x64.
Knobs base() {
  return {{"BM", 128},    {"BN", 128}, {"BK", 32},       {"WM", 32},    {"WN", 64},
          {"TM", 8},      {"TN", 8},   {"STAGES", 4},    {"RASTER", 1}, {"SPLITK", 1},
          {"STREAMK", 0}, {"PACK", 0}, {"MIN_BLOCKS", 1}};
}

std::string why(const Knobs& k, const DeviceLimits& lim = {}) {
  return failed_constraint(f2(), k, lim);
}

TEST(F2TmaFamily, IsRegisteredWithEveryKnobOfItsTemplate) {
  EXPECT_EQ(f2().name(), "f2_tma");
  const auto& all = families();
  EXPECT_NE(std::find(all.begin(), all.end(), &f2()), all.end());
  const auto names = f2().knob_names();
  for (const auto& [name, value] : base())
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  EXPECT_EQ(names.size(), base().size());
  EXPECT_EQ(why(base()), "");
}

TEST(F2TmaFamily, EachConstraintRejectsWhatItNames) {
  DeviceLimits ampere;
  ampere.cc = 80;
  EXPECT_EQ(why(base(), ampere), "needs_sm_90");
  EXPECT_EQ(why(with(base(), "BM", 96)), "tiles_power_of_two");
  EXPECT_EQ(why(with(with(base(), "BN", 512), "WN", 64)), "block_tile_32_to_256");
  EXPECT_EQ(why(with(base(), "BK", 64)), "bk_8_to_32");  // a 256-byte row: no such swizzle
  EXPECT_EQ(why(with(base(), "WM", 256)), "warp_tile_divides_block");
  EXPECT_EQ(why(with(base(), "TN", 4)), "lanes_per_warp_32");
  Knobs wide = base();
  wide["WM"] = 128, wide["WN"] = 16, wide["TN"] = 8;  // 16 x 2 lanes
  EXPECT_EQ(why(wide), "lane_layout_4x8_or_8x4");
  Knobs one_warp = base();
  one_warp["BM"] = 32, one_warp["BN"] = 64;
  EXPECT_EQ(why(one_warp), "threads_in_range");
  // 64 x 8 floats = 2 KB stages are fine; 32 x 8 x 4 = 1 KB is the smallest.
  Knobs small = base();
  small["BM"] = 64, small["BN"] = 32, small["BK"] = 8, small["WM"] = 32, small["WN"] = 32;
  small["TM"] = 4, small["TN"] = 8;  // 8 x 4 lanes, 2 warps
  EXPECT_EQ(why(small), "");
  EXPECT_EQ(why(with(base(), "STAGES", 1)), "stages_2_to_8");
  EXPECT_EQ(why(with(base(), "RASTER", 0)), "raster_1_to_64");
  EXPECT_EQ(why(with(base(), "SPLITK", 0)), "splitk_1_to_16");
  EXPECT_EQ(why(with(base(), "SPLITK", 17)), "splitk_1_to_16");
  EXPECT_EQ(why(with(base(), "STREAMK", 5)), "streamk_0_to_4");
  EXPECT_EQ(why(with(with(base(), "STREAMK", 1), "SPLITK", 2)), "streamk_or_splitk");
  EXPECT_EQ(why(with(base(), "PACK", 3)), "pack_0_to_2");
  // 8 stages x 32 x 256 x 4 bytes = 256 KB > 227 KB.
  EXPECT_EQ(why(with(base(), "STAGES", 8)), "smem_fits");
  DeviceLimits small_smem;
  small_smem.smem_optin_bytes = 48 * 1024;
  EXPECT_EQ(why(base(), small_smem), "smem_fits");
  // 256 x 128 with 8 x 8 per thread: 512 threads x 158 registers > 64 K.
  Knobs big = base();
  big["BM"] = 256, big["WM"] = 64, big["WN"] = 32;
  EXPECT_EQ(why(big), "registers_estimate");
}

TEST(F2TmaFamily, TakesOnly16ByteProblemsWithSomethingToLoad) {
  EXPECT_EQ(f2().cannot_implement(base(), problem(1000, 1300, 700)), "");
  for (Op ta : {Op::N, Op::T})
    for (Op tb : {Op::N, Op::T}) {
      EXPECT_EQ(f2().cannot_implement(base(), problem(4, 8, 12, ta, tb)), "");
      EXPECT_NE(f2().cannot_implement(base(), problem(1000, 1300, 700, ta, tb, 2)).find("TMA"),
                std::string::npos);
      EXPECT_NE(f2().cannot_implement(base(), problem(1000, 1300, 700, ta, tb, 1)), "");
    }
  EXPECT_NE(f2().cannot_implement(base(), problem(0, 100, 100)), "");
  EXPECT_NE(f2().cannot_implement(base(), problem(100, 0, 100)), "");
  EXPECT_NE(f2().cannot_implement(base(), problem(100, 100, 0)), "");
  ProblemKey bad = problem(100, 100, 100);
  bad.lda = 50;
  EXPECT_NE(f2().cannot_implement(base(), bad), "");
}

TEST(F2TmaFamily, PackingTakesExactlyTheProblemsTmaCannotAddressInPlace) {
  const Knobs packed = with(base(), "PACK", 1);
  for (Op ta : {Op::N, Op::T})
    for (Op tb : {Op::N, Op::T}) {
      EXPECT_EQ(f2().cannot_implement(packed, problem(1023, 1025, 1027, ta, tb, 1)), "");
      EXPECT_EQ(f2().cannot_implement(packed, problem(1000, 1300, 700, ta, tb, 2)), "");
      EXPECT_NE(f2().cannot_implement(packed, problem(1000, 1300, 700, ta, tb, 4)).find("already"),
                std::string::npos);
    }
  EXPECT_NE(f2().cannot_implement(packed, problem(1, 1, 0, Op::N, Op::N, 1)), "");
  // 20000 x 20000 x 20001 packs 2 x 400 M floats: over the 256 M limit.
  EXPECT_NE(
      f2().cannot_implement(packed, problem(20000, 20000, 20001, Op::N, Op::N, 1)).find("limit"),
      std::string::npos);
}

TEST(F2TmaFamily, PackedOperandsFollowTheRestOfTheWorkspaceOnAlignedColumns) {
  const Knobs packed = with(base(), "PACK", 1);
  // NN 1023 x 1025 x 1027: A stored 1023 x 1027 (ld 1024), B stored 1027 x 1025 (ld 1028).
  const LaunchGeometry g =
      f2().geometry(packed, problem(1023, 1025, 1027, Op::N, Op::N, 1), kDevice);
  ASSERT_TRUE(g.pack_a.used && g.pack_b.used);
  // Unsplit, the copies still leave the tile counters alone: split-K kernels sharing the
  // workspace expect them at zero.
  EXPECT_EQ(g.k_splits, 1);
  EXPECT_EQ(g.pack_a.offset_floats, static_cast<std::size_t>(SGEMM_TILE_COUNTERS));
  EXPECT_EQ(g.pack_a.rows, 1023);
  EXPECT_EQ(g.pack_a.cols, 1027);
  EXPECT_EQ(g.pack_a.ld, 1024);
  EXPECT_EQ(g.pack_b.rows, 1027);
  EXPECT_EQ(g.pack_b.cols, 1025);
  EXPECT_EQ(g.pack_b.ld, 1028);
  EXPECT_EQ(g.pack_b.offset_floats % kPackAlignFloats, 0u);
  EXPECT_GE(g.pack_b.offset_floats, g.pack_a.offset_floats + 1024u * 1027u);
  EXPECT_EQ(g.workspace_floats, g.pack_b.offset_floats + 1028u * 1025u);
  // TT: A stored k x m, B stored n x k.
  const LaunchGeometry t = f2().geometry(packed, problem(5, 6, 7, Op::T, Op::T, 1), kDevice);
  EXPECT_EQ(t.pack_a.rows, 7);
  EXPECT_EQ(t.pack_a.ld, 8);
  EXPECT_EQ(t.pack_a.cols, 5);
  EXPECT_EQ(t.pack_b.rows, 6);
  EXPECT_EQ(t.pack_b.ld, 8);
  EXPECT_EQ(t.pack_b.cols, 7);
  // With split-K the tile counters and partial tiles come first.
  const LaunchGeometry s =
      f2().geometry(with(packed, "SPLITK", 2), problem(1023, 1025, 1027, Op::N, Op::N, 1), kDevice);
  ASSERT_EQ(s.k_splits, 2);
  EXPECT_GE(s.pack_a.offset_floats, SGEMM_TILE_COUNTERS + 2u * 72u * 128u * 128u);
  EXPECT_EQ(s.workspace_floats, s.pack_b.offset_floats + s.pack_b.floats);
  // Without PACK nothing is copied.
  EXPECT_FALSE(f2().geometry(base(), problem(1024, 1024, 1024), kDevice).pack_a.used);
  EXPECT_GT(f2().complexity(packed), f2().complexity(base()));
}

// The problem's class 1 may come from one operand, or from C alone: an operand whose own leading
// dimension TMA takes is copied only at a call whose pointer for it is not 16-byte aligned.
TEST(F2TmaFamily, PackedOperandsWithALeadingDimensionTmaTakesAreCopiedOnlyAtUnalignedPointers) {
  const Knobs packed = with(base(), "PACK", 1);
  // NN 1024 x 1025 x 1027: lda 1024 (TMA reads A in place), ldb 1027 (B is copied).
  const LaunchGeometry g =
      f2().geometry(packed, problem(1024, 1025, 1027, Op::N, Op::N, 1), kDevice);
  ASSERT_TRUE(g.pack_a.used && g.pack_b.used);  // room for both copies either way
  EXPECT_TRUE(g.pack_a.in_place_when_aligned);
  EXPECT_FALSE(g.pack_b.in_place_when_aligned);
  alignas(16) static const float operand[8] = {};
  EXPECT_FALSE(copy_needed(g.pack_a, operand));
  EXPECT_TRUE(copy_needed(g.pack_a, operand + 1));
  EXPECT_TRUE(copy_needed(g.pack_a, operand + 2));
  EXPECT_TRUE(copy_needed(g.pack_b, operand));
  EXPECT_EQ(copied_floats_when_aligned(g.pack_a), 0u);
  EXPECT_EQ(copied_floats_when_aligned(g.pack_b), 1028u * 1025u);
  // TN 1000 x 1300 x 700 with ldc 1001: only C makes the class 1, so nothing is copied.
  ProblemKey c_only = problem(1000, 1300, 700, Op::T, Op::N, 1);
  c_only.ldc = 1001;
  const LaunchGeometry t = f2().geometry(packed, c_only, kDevice);
  EXPECT_FALSE(copy_needed(t.pack_a, operand));
  EXPECT_FALSE(copy_needed(t.pack_b, operand));
  EXPECT_TRUE(copy_needed(t.pack_b, operand + 3));
  // Transposed copies (PACK = 2) are made whatever the pointers.
  const LaunchGeometry x =
      f2().geometry(with(base(), "PACK", 2), problem(1024, 1024, 1024, Op::N, Op::N, 4), kDevice);
  ASSERT_TRUE(x.pack_b.used);
  EXPECT_TRUE(copy_needed(x.pack_b, operand));
  EXPECT_FALSE(copy_needed(x.pack_a, operand));  // A is already M-contiguous
}

TEST(F2TmaFamily, TransposedPackingCopiesOnlyKContiguousOperandsAndReadsThemAsNt) {
  const Knobs tp = with(base(), "PACK", 2);
  // NN 300 x 200 x 100: B (stored 100 x 200) copied as 200 x 100 (ld 200); A read in place.
  const LaunchGeometry nn = f2().geometry(tp, problem(300, 200, 100), kDevice);
  EXPECT_FALSE(nn.pack_a.used);
  ASSERT_TRUE(nn.pack_b.used);
  EXPECT_TRUE(nn.pack_b.transposed);
  EXPECT_EQ(nn.pack_b.rows, 100);
  EXPECT_EQ(nn.pack_b.cols, 200);
  EXPECT_EQ(nn.pack_b.ld, 200);
  EXPECT_EQ(nn.pack_b.offset_floats, static_cast<std::size_t>(SGEMM_TILE_COUNTERS));
  EXPECT_EQ(nn.workspace_floats, SGEMM_TILE_COUNTERS + 200u * 100u);
  // Both operands read M/N-contiguous: dense boxes, no swizzle; compiled as NT.
  EXPECT_FALSE(nn.tma_a.k_inner);
  EXPECT_FALSE(nn.tma_b.k_inner);
  EXPECT_EQ(nn.tma_b.swizzle_bytes, 0u);
  const std::vector<std::string> d = f2().defines(tp, problem(300, 200, 100));
  EXPECT_TRUE(contains(d, "-DTRANS_A=0") && contains(d, "-DTRANS_B=1"));
  // TN 301 x 203 x 99: A (stored 99 x 301) as 301 x 99 (ld 304), then B as 203 x 99 (ld 204).
  const LaunchGeometry tn = f2().geometry(tp, problem(301, 203, 99, Op::T, Op::N), kDevice);
  ASSERT_TRUE(tn.pack_a.used && tn.pack_b.used);
  EXPECT_EQ(tn.pack_a.ld, 304);
  EXPECT_EQ(tn.pack_a.floats, 304u * 99u);
  EXPECT_EQ(tn.pack_b.ld, 204);
  EXPECT_EQ(tn.pack_b.offset_floats % kPackAlignFloats, 0u);
  EXPECT_GE(tn.pack_b.offset_floats, tn.pack_a.offset_floats + tn.pack_a.floats);
  // TT: only A.
  const LaunchGeometry tt = f2().geometry(tp, problem(64, 64, 64, Op::T, Op::T), kDevice);
  EXPECT_TRUE(tt.pack_a.used);
  EXPECT_FALSE(tt.pack_b.used);
  // After split-K's counters and partials.
  const LaunchGeometry split =
      f2().geometry(with(tp, "SPLITK", 2), problem(1024, 1024, 1024), kDevice);
  ASSERT_EQ(split.k_splits, 2);
  EXPECT_GE(split.pack_b.offset_floats, SGEMM_TILE_COUNTERS + 2u * 64u * 128u * 128u);
  // Refused: NT (nothing to transpose), unaligned problems (PACK = 1's), copies over the limit.
  EXPECT_NE(f2().cannot_implement(tp, problem(64, 64, 64, Op::N, Op::T)).find("NT"),
            std::string::npos);
  EXPECT_NE(f2().cannot_implement(tp, problem(64, 64, 65, Op::N, Op::N, 1)), "");
  EXPECT_NE(f2().cannot_implement(tp, problem(8, 20000, 20000)).find("limit"), std::string::npos);
  EXPECT_EQ(f2().cannot_implement(tp, problem(4096, 4096, 4096, Op::T, Op::N)), "");
  EXPECT_EQ(f2().complexity(tp), f2().complexity(with(base(), "PACK", 1)));
}

TEST(F2TmaFamily, PackingSharesTheKernelAndWritesCAtItsOwnAlignment) {
  const ProblemKey odd = problem(1023, 1025, 1027, Op::N, Op::N, 1);
  const auto d = f2().defines(with(base(), "PACK", 1), odd);
  EXPECT_TRUE(contains(d, "-DALIGN_C=1"));
  EXPECT_TRUE(std::none_of(d.begin(), d.end(),
                           [](const std::string& s) { return s.rfind("-DPACK", 0) == 0; }));
  EXPECT_TRUE(contains(f2().defines(base(), problem(1024, 1024, 1024)), "-DALIGN_C=4"));
}

TEST(F2TmaFamily, DefinesCarryEveryKnobAndTheTransposes) {
  const auto d = f2().defines(base(), problem(100, 200, 300, Op::T, Op::N));
  auto has = [&](const std::string& s) { return std::find(d.begin(), d.end(), s) != d.end(); };
  EXPECT_TRUE(has("-DBM=128"));
  EXPECT_TRUE(has("-DBK=32"));
  EXPECT_TRUE(has("-DSTAGES=4"));
  EXPECT_TRUE(has("-DTRANS_A=1"));
  EXPECT_TRUE(has("-DTRANS_B=0"));
  EXPECT_TRUE(has("-DALIGN_C=4"));
  // Every knob but PACK (the launch's business) and MIN_BLOCKS = 1 (no cap, no define), then
  // ALIGN_C and the two transposes.
  EXPECT_EQ(d.size(), f2().knob_names().size() - 2 + 3);
}

TEST(F2TmaFamily, MinBlocksCapsRegistersOnlyWhereTheCapBindsAndLeavesTheFloor) {
  // 256 threads: 2 blocks cap 128 registers (64 accumulators and their fragments fit), 3 cap 80.
  // The cap counts warps per sub-partition (a quarter of the registers each), 8 registers per
  // thread at a time: 2 blocks of 9 warps put 5 on one, which leaves 96, not 65536 / 576.
  EXPECT_EQ(kDevice.register_cap(256, 2), 128);
  EXPECT_EQ(kDevice.register_cap(256, 3), 80);
  EXPECT_EQ(kDevice.register_cap(288, 2), 96);
  EXPECT_EQ(kDevice.register_cap(384, 1), 168);
  Knobs ring = base();
  ring["BK"] = 16, ring["STAGES"] = 3;  // 48 KB: three fit one SM
  EXPECT_EQ(why(with(ring, "MIN_BLOCKS", 2)), "");
  EXPECT_EQ(why(with(ring, "MIN_BLOCKS", 3)), "min_blocks_register_floor");
  EXPECT_EQ(why(with(ring, "MIN_BLOCKS", 0)), "min_blocks_1_to_4");
  EXPECT_EQ(why(with(ring, "MIN_BLOCKS", 5)), "min_blocks_1_to_4");
  EXPECT_EQ(why(with(base(), "MIN_BLOCKS", 2)), "min_blocks_smem");  // 2 x 128 KB
  // 64x64 in 2 warps: even 4 blocks leave 256 registers, so the cap would change nothing.
  Knobs two_warps = base();
  two_warps["BM"] = 64, two_warps["BN"] = 64, two_warps["STAGES"] = 3;
  EXPECT_EQ(why(two_warps), "");
  EXPECT_EQ(why(with(two_warps, "MIN_BLOCKS", 4)), "min_blocks_binds");
  // 4 blocks of 128 threads cap 128; their 4 stages of 32 x 192 floats (96 KB each) do not fit.
  Knobs four_warps = base();
  four_warps["BN"] = 64;
  EXPECT_EQ(why(with(four_warps, "MIN_BLOCKS", 4)), "min_blocks_smem");
  EXPECT_EQ(why(with(with(four_warps, "MIN_BLOCKS", 4), "BK", 8)), "");
  // The define appears only where it caps, so older builds keep their options.
  EXPECT_FALSE(contains(f2().defines(base(), problem(64, 64, 64)), "-DMIN_BLOCKS=1"));
  EXPECT_TRUE(
      contains(f2().defines(with(base(), "MIN_BLOCKS", 2), problem(64, 64, 64)), "-DMIN_BLOCKS=2"));
  EXPECT_GT(f2().complexity(with(base(), "MIN_BLOCKS", 2)), f2().complexity(base()));
}

TEST(F2TmaFamily, GeometryBoxesEachOperandInItsOwnLayout) {
  const LaunchGeometry g = f2().geometry(base(), problem(1023, 1025, 1027), kDevice);
  EXPECT_EQ(g.grid.x, 8u * 9u);
  EXPECT_EQ(g.block.x, 256u);
  EXPECT_EQ(g.smem_bytes, 4u * 4u * 32u * 256u + 1024u + 32u);
  EXPECT_EQ(g.k_splits, 1);
  EXPECT_FALSE(g.has_reduce);
  EXPECT_EQ(g.workspace_floats, 0u);
  // NN: A (m x k) is M-contiguous, boxed 128 x 32 unswizzled; B (k x n) is K-contiguous, boxed
  // 32 x 128 with rows of 128 bytes under the 128-byte swizzle.
  ASSERT_TRUE(g.tma_a.used && g.tma_b.used);
  EXPECT_FALSE(g.tma_a.k_inner);
  EXPECT_EQ(g.tma_a.box_inner, 128u);
  EXPECT_EQ(g.tma_a.box_outer, 32u);
  EXPECT_EQ(g.tma_a.swizzle_bytes, 0u);
  EXPECT_TRUE(g.tma_b.k_inner);
  EXPECT_EQ(g.tma_b.box_inner, 32u);
  EXPECT_EQ(g.tma_b.box_outer, 128u);
  EXPECT_EQ(g.tma_b.swizzle_bytes, 128u);
  // TT with BK = 16: A (k x m) K-contiguous with 64-byte rows, B (n x k) N-contiguous.
  const LaunchGeometry t =
      f2().geometry(with(base(), "BK", 16), problem(100, 200, 300, Op::T, Op::T), kDevice);
  EXPECT_TRUE(t.tma_a.k_inner);
  EXPECT_EQ(t.tma_a.box_inner, 16u);
  EXPECT_EQ(t.tma_a.swizzle_bytes, 64u);
  EXPECT_FALSE(t.tma_b.k_inner);
  EXPECT_EQ(t.tma_b.box_inner, 128u);
  EXPECT_EQ(t.tma_b.box_outer, 16u);
  // Other families launch without tensor maps.
  const Knobs f1_knobs = {{"BM", 128},       {"BN", 128},   {"BK", 8},     {"WM", 32}, {"WN", 64},
                          {"TM", 8},         {"TN", 8},     {"STAGES", 3}, {"PAD", 4}, {"REGDB", 1},
                          {"MIN_BLOCKS", 1}, {"RASTER", 1}, {"SPLITK", 1}};
  EXPECT_FALSE(find_family("f1_simt").geometry(f1_knobs, problem(64, 64, 64), kDevice).tma_a.used);
}

TEST(F2TmaFamily, SplitKCutsKIntoBkMultiplesOverBlockIdxZ) {
  // 4096x128x4096 in 128x128 tiles: 32 tiles, 4 slices of 1024, partials tile by tile.
  const LaunchGeometry g =
      f2().geometry(with(base(), "SPLITK", 4), problem(4096, 128, 4096), kDevice);
  EXPECT_EQ(g.grid.x, 32u);
  EXPECT_EQ(g.grid.z, 4u);
  EXPECT_EQ(g.k_splits, 4);
  EXPECT_EQ(g.k_slice, 1024);
  EXPECT_FALSE(g.has_reduce);  // the last slice of each tile sums them, in the same launch
  EXPECT_EQ(g.workspace_floats, SGEMM_TILE_COUNTERS + 4u * 32u * 128u * 128u);
  // K = 100, BK = 32, at most 3 slices: slices of 64 (a BK multiple), so only 2 of them; the
  // partials cover whole tiles, also where they overhang the matrix (2 x 1 tiles of 130 x 7).
  const LaunchGeometry t = f2().geometry(with(base(), "SPLITK", 3), problem(130, 7, 100), kDevice);
  EXPECT_EQ(t.k_splits, 2);
  EXPECT_EQ(t.k_slice, 64);
  EXPECT_EQ(t.grid.z, 2u);
  EXPECT_EQ(t.workspace_floats, SGEMM_TILE_COUNTERS + 2u * 2u * 128u * 128u);
  // K within one BK tile: nothing to split, no workspace.
  const LaunchGeometry one =
      f2().geometry(with(base(), "SPLITK", 4), problem(512, 512, 32), kDevice);
  EXPECT_EQ(one.k_splits, 1);
  EXPECT_EQ(one.grid.z, 1u);
  EXPECT_EQ(one.workspace_floats, 0u);
  EXPECT_TRUE(contains(f2().defines(with(base(), "SPLITK", 4), problem(64, 64, 64)), "-DSPLITK=2"));
}

TEST(F2TmaFamily, StreamKSharesOutEveryTilesKIterationsOverAPersistentGrid) {
  // 1000x1300x700 in 128x128 tiles: 8 x 11 = 88 tiles of 22 K tiles (BK 32), 1936 iterations
  // over 132 blocks (14 or 15 each); a tile is shared by at most ceil(22 / 14) + 1 = 3 blocks,
  // each holding at most two partial tiles.
  const Knobs sk = with(base(), "STREAMK", 1);
  const LaunchGeometry g = f2().geometry(sk, problem(1000, 1300, 700), kDevice);
  EXPECT_EQ(g.grid.x, 132u);
  EXPECT_EQ(g.grid.z, 1u);
  EXPECT_EQ(g.k_splits, 3);
  EXPECT_EQ(g.k_slice, 15 * 32);
  EXPECT_FALSE(g.has_reduce);
  EXPECT_EQ(g.workspace_floats, SGEMM_TILE_COUNTERS + 2u * 132u * 128u * 128u);
  // STREAMK 2: two blocks per SM.
  EXPECT_EQ(f2().geometry(with(base(), "STREAMK", 2), problem(1000, 1300, 700), kDevice).grid.x,
            264u);
  // Fewer iterations than blocks: one block per iteration (1 tile of 2 K tiles).
  const LaunchGeometry few = f2().geometry(sk, problem(100, 100, 64), kDevice);
  EXPECT_EQ(few.grid.x, 2u);
  EXPECT_EQ(few.k_slice, 32);
  EXPECT_TRUE(contains(f2().defines(sk, problem(64, 64, 64)), "-DSTREAMK=1"));
  EXPECT_EQ(f2().cannot_implement(sk, problem(1000, 1300, 700)), "");
  EXPECT_NE(f2().cannot_implement(sk, problem(129 * 128, 129 * 128, 64)).find("tile counters"),
            std::string::npos);
  EXPECT_GT(f2().complexity(sk), f2().complexity(with(base(), "SPLITK", 2)));
}

// The persistent grid counts the device's SMs, not an H200's.
TEST(F2TmaFamily, StreamKGridFollowsTheDevicesSmCount) {
  DeviceLimits h100_pcie;
  h100_pcie.sm_count = 114;
  const Knobs sk = with(base(), "STREAMK", 2);
  EXPECT_EQ(f2().geometry(sk, problem(1000, 1300, 700), h100_pcie).grid.x, 228u);
  EXPECT_EQ(f2().geometry(sk, problem(1000, 1300, 700), kDevice).grid.x, 264u);
}

TEST(F2TmaFamily, SplitKRefusesWhatItsCountersOrWorkspaceCannotHold) {
  const Knobs split = with(base(), "SPLITK", 2);
  // 129 x 129 tiles of 128 x 128: more tiles than arrival counters.
  EXPECT_NE(f2().cannot_implement(split, problem(129 * 128, 129 * 128, 64)).find("tile counters"),
            std::string::npos);
  // 8192^2 in 2 slices: 128 Mi floats of partials against the 64 Mi limit.
  EXPECT_NE(f2().cannot_implement(split, problem(8192, 8192, 8192)).find("workspace"),
            std::string::npos);
  EXPECT_EQ(f2().cannot_implement(split, problem(4096, 128, 4096)), "");
  EXPECT_EQ(f2().cannot_implement(base(), problem(8192, 8192, 8192)), "");  // no split, no limit
}

TEST(F2TmaFamily, ConfigurationsStoredBeforeSplitKDoNotSplit) {
  Knobs old = base();
  old.erase("SPLITK");
  old.erase("STREAMK");
  old.erase("PACK");
  old.erase("MIN_BLOCKS");
  EXPECT_TRUE(contains(f2().defines(old, problem(100, 200, 300)), "-DSPLITK=1"));
  EXPECT_TRUE(contains(f2().defines(old, problem(100, 200, 300)), "-DSTREAMK=0"));
  EXPECT_EQ(f2().geometry(old, problem(4096, 128, 4096), kDevice).k_splits, 1);
  EXPECT_FALSE(f2().geometry(old, problem(4096, 128, 4096), kDevice).pack_a.used);
  EXPECT_EQ(with_knobs_added_later(f2(), old), base());  // what a warm start compares
  EXPECT_NE(f2().cannot_implement(old, problem(1023, 1025, 1027, Op::N, Op::N, 1)), "");
}

TEST(F2TmaFamily, ComplexityRanksTmaAboveAnEqualPipeline) {
  EXPECT_GT(f2().complexity(with(base(), "STAGES", 4)), f2().complexity(with(base(), "STAGES", 3)));
  EXPECT_GT(f2().complexity(with(base(), "RASTER", 4)), f2().complexity(base()));
  EXPECT_GE(f2().complexity(with(base(), "STAGES", 2)), 1);
  EXPECT_GT(f2().complexity(with(base(), "SPLITK", 2)), f2().complexity(base()));
}

TEST(F2TmaFamily, DefaultSpaceIsValidAndCoversBothBoxDepths) {
  const SearchSpace space = load_search_space(SGEMM_SOURCE_DIR "/configs/spaces/f2_tma.yaml");
  ASSERT_EQ(space.families.size(), 1u);
  EXPECT_EQ(space.families[0].family, &f2());
  const Enumeration e = enumerate(space, DeviceLimits{});
  EXPECT_GE(e.valid.size(), 20u);
  EXPECT_LE(e.valid.size(), 160u);  // one NVRTC compile per problem class each
  bool bk16 = false, bk32 = false;
  for (const Candidate& c : e.valid) {
    EXPECT_EQ(why(c.knobs), "") << knobs_to_string(c.knobs);
    bk16 |= knob(c.knobs, "BK") == 16;
    bk32 |= knob(c.knobs, "BK") == 32;
  }
  EXPECT_TRUE(bk16 && bk32);
}

TEST(F2TmaFamily, SplitKAndStreamKSpacesAreValidAndShareOutK) {
  for (const char* file : {"f2_tma_split_k.yaml", "f2_tma_stream_k.yaml"}) {
    const SearchSpace space =
        load_search_space(std::string(SGEMM_SOURCE_DIR "/configs/spaces/") + file);
    ASSERT_EQ(space.families.size(), 1u);
    EXPECT_EQ(space.families[0].family, &f2());
    const Enumeration e = enumerate(space, DeviceLimits{});
    EXPECT_GE(e.valid.size(), 20u) << file;
    EXPECT_LE(e.valid.size(), 160u) << file;
    for (const Candidate& c : e.valid) {
      EXPECT_EQ(why(c.knobs), "") << knobs_to_string(c.knobs);
      EXPECT_TRUE(knob(c.knobs, "SPLITK") > 1 || knob(c.knobs, "STREAMK") > 0)
          << knobs_to_string(c.knobs);
    }
  }
}

TEST(F2TmaFamily, PackedSpaceIsValidAndPacksEveryPoint) {
  const SearchSpace space =
      load_search_space(SGEMM_SOURCE_DIR "/configs/spaces/f2_tma_packed.yaml");
  ASSERT_EQ(space.families.size(), 1u);
  const Enumeration e = enumerate(space, DeviceLimits{});
  EXPECT_GE(e.valid.size(), 20u);
  EXPECT_LE(e.valid.size(), 160u);
  for (const Candidate& c : e.valid) {
    EXPECT_EQ(why(c.knobs), "") << knobs_to_string(c.knobs);
    EXPECT_EQ(knob(c.knobs, "PACK"), 1) << knobs_to_string(c.knobs);
  }
}

// A tuning run and a dispatcher handle share one workspace among all their kernels, so a packed
// point must not write where another point keeps its tile counters (zero between launches) or
// where its own split-K partials go.
TEST(F2TmaFamily, PackedCopiesAtEveryPointLeaveTheCountersAndPartialsAlone) {
  const SearchSpace space =
      load_search_space(SGEMM_SOURCE_DIR "/configs/spaces/f2_tma_packed.yaml");
  ASSERT_EQ(space.families.size(), 1u);
  int unsplit = 0, split = 0;
  for (const Candidate& c : enumerate(space, DeviceLimits{}).valid)
    for (const ProblemKey& p :
         {problem(1023, 1025, 1027, Op::N, Op::N, 1), problem(257, 511, 129, Op::T, Op::N, 1),
          problem(33, 65, 3, Op::T, Op::T, 1)}) {
      if (!f2().cannot_implement(c.knobs, p).empty()) continue;
      const LaunchGeometry g = f2().geometry(c.knobs, p, kDevice);
      const std::string what = knobs_to_string(c.knobs) + " " + p.to_string();
      ASSERT_TRUE(g.pack_a.used && g.pack_b.used) << what;
      EXPECT_GE(g.pack_a.offset_floats, static_cast<std::size_t>(SGEMM_TILE_COUNTERS)) << what;
      EXPECT_GE(g.pack_b.offset_floats, g.pack_a.offset_floats + g.pack_a.floats) << what;
      EXPECT_EQ(g.workspace_floats, g.pack_b.offset_floats + g.pack_b.floats) << what;
      if (g.k_splits > 1) {
        ++split;
        // The partial tiles: splits x tiles x BM x BN after the counters.
        const std::size_t tiles = static_cast<std::size_t>(g.grid.x);
        EXPECT_GE(g.pack_a.offset_floats,
                  SGEMM_TILE_COUNTERS + static_cast<std::size_t>(g.k_splits) * tiles *
                                            static_cast<std::size_t>(g.tile_m * g.tile_n))
            << what;
      } else {
        ++unsplit;
      }
    }
  EXPECT_GT(unsplit, 0);
  EXPECT_GT(split, 0);
}

TEST(F2TmaFamily, TensorMapEncoderRefusesWhatTmaCannotAddress) {
  alignas(16) static float buffer[64];
  TmaTile tile;
  tile.used = true;
  tile.box_inner = 8;
  tile.box_outer = 8;
  auto refused = [&](const float* base, int x, int k, int ld) {
    try {
      encode_operand_map(base, x, k, ld, tile);
    } catch (const Error& e) {
      return e.kind() == ErrorKind::invalid_value;
    }
    return false;
  };
  EXPECT_TRUE(refused(buffer + 1, 8, 8, 8));  // base 4 bytes off 16
  EXPECT_TRUE(refused(buffer, 6, 8, 6));      // rows 24 bytes apart
  EXPECT_TRUE(refused(buffer, 8, 0, 8));      // empty
  EXPECT_TRUE(refused(buffer, 0, 8, 8));
  EXPECT_TRUE(refused(buffer, 12, 4, 8));  // ld shorter than a column
}

}  // namespace
}  // namespace sgt
