// Every kernel family, on a sample of its default space, against cuBLAS (pedantic FP32) and an FP64
// product: NaN-poisoned C, beta != 0, integer bit-exactness, edge shapes, all four transposes,
// padded leading dimensions and pointers offset by one float. Families with in-kernel split-K
// (F4's REDUCE = 1, F2's SPLITK > 1) get the same checks on split configurations, and repeated
// runs on one workspace.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "space/warp_tiling.hpp"
#include "support/gpu_support.hpp"
#include "support/problem_and_knobs.hpp"
#include "verify/tolerance.hpp"

namespace sgt {
namespace {

class FamilyCorrectness : public ::testing::TestWithParam<std::string> {};

// A handful of configurations spread over the default space (first, last and evenly between).
std::vector<Knobs> sample(const std::vector<Knobs>& all, std::size_t count) {
  std::vector<Knobs> out;
  for (std::size_t i = 0; i < count && !all.empty(); ++i)
    out.push_back(all[i * (all.size() - 1) / std::max<std::size_t>(1, count - 1)]);
  return out;
}

// Runs the cases and expects each that compiled to pass every check; returns how many ran.
int expect_correct(const Family& family, const std::vector<testing::Case>& cases) {
  const std::vector<testing::CaseOutcome> results = testing::run_family_cases(family, cases);
  const double tol = normwise_tolerance(4.0);
  int ran = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const testing::CaseOutcome& r = results[i];
    const std::string what =
        fmt::format("{} {} {} misalign={}", family.name(), knobs_to_string(cases[i].knobs),
                    cases[i].problem.to_string(), cases[i].misalign_floats);
    if (!r.compiled) {
      // Not implementable is fine (the tuner skips it); a compile error is not.
      EXPECT_EQ(r.why_not.find("error"), std::string::npos)
          << what << ": " << r.why_not.substr(0, 1500);
      continue;
    }
    ++ran;
    EXPECT_TRUE(r.check.passed) << what << ": " << r.check.message;
    EXPECT_LE(r.fp64_error, tol) << what << " against FP64";
    EXPECT_LE(r.cublas_fp64_error, tol) << "cuBLAS itself against FP64 on " << what;
  }
  return ran;
}

// Each configuration at each shape and transpose four ways: the three unaligned ones
// (testing::unaligned_cases), and leading dimensions rounded up to 16 bytes plus 8 floats
// (class 4, the only one TMA addresses in place).
std::vector<testing::Case> padded_and_misaligned(const std::vector<Knobs>& configs,
                                                 const std::vector<std::array<int, 3>>& shapes) {
  std::vector<testing::Case> cases = testing::unaligned_cases(configs, shapes);
  for (const Knobs& knobs : configs)
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (const auto& [m, n, k] : shapes)
          cases.push_back({knobs, testing::make_aligned_problem(ta, tb, m, n, k, 8), 0});
  return cases;
}

// Each configuration at each shape and transpose, leading dimensions minimal.
void add_minimal_cases(std::vector<testing::Case>& cases, const std::vector<Knobs>& configs,
                       const std::vector<std::array<int, 3>>& shapes) {
  for (const Knobs& knobs : configs)
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (const auto& [m, n, k] : shapes)
          cases.push_back({knobs, testing::make_problem(ta, tb, m, n, k), 0});
}

long implementable_count(const Family& family, const std::vector<testing::Case>& cases) {
  return std::count_if(cases.begin(), cases.end(), [&](const testing::Case& c) {
    return family.cannot_implement(c.knobs, c.problem).empty();
  });
}

TEST_P(FamilyCorrectness, EdgeShapesAllTransposes) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family(GetParam());
  std::vector<testing::Case> cases;
  for (const Knobs& knobs : sample(testing::default_space_configs(family), 4))
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (const auto& [m, n, k] : testing::edge_shapes()) {
          cases.push_back({knobs, testing::make_problem(ta, tb, m, n, k), 0});
          cases.push_back({knobs, testing::make_aligned_problem(ta, tb, m, n, k), 0});
        }
  const int ran = expect_correct(family, cases);
  EXPECT_GT(ran, 0) << "no configuration of " << family.name() << " ran on any edge shape";
  RecordProperty("cases", ran);
}

TEST_P(FamilyCorrectness, PaddedLeadingDimensionsAndMisalignedPointers) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family(GetParam());
  const std::vector<testing::Case> cases = padded_and_misaligned(
      sample(testing::default_space_configs(family), 3), {{129, 63, 200}, {300, 16, 513}});
  EXPECT_GT(expect_correct(family, cases), 0);
}

// A small sample at edge shapes for compute-sanitizer (racecheck slows every launch down by orders
// of magnitude): two configurations, all four transposes, tile remainders and K < BK, padded
// leading dimensions and a pointer offset by one float.
TEST_P(FamilyCorrectness, SanitizerSample) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family(GetParam());
  std::vector<testing::Case> cases;
  for (const Knobs& knobs : sample(testing::default_space_configs(family), 2))
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T}) {
        for (const auto& [m, n, k] :
             {std::array<int, 3>{33, 65, 3}, std::array<int, 3>{127, 129, 7},
              std::array<int, 3>{1, 257, 129}, std::array<int, 3>{257, 1, 129}}) {
          cases.push_back({knobs, testing::make_problem(ta, tb, m, n, k), 0});
          cases.push_back({knobs, testing::make_aligned_problem(ta, tb, m, n, k, 4), 0});
        }
        cases.push_back({knobs, testing::make_problem(ta, tb, 100, 37, 515, 5, 1), 1});
      }
  EXPECT_GT(expect_correct(family, cases), 0);
}

// Split-K summed inside sgemm_main (F1 and F4 with REDUCE = 1, F2 with SPLITK > 1 or STREAMK > 0):
// every check above, on problems that do split, and the same workspace used again and again (its
// tile counters must come back to zero).
class FusedReduce : public ::testing::TestWithParam<std::string> {};

// A configuration that splits a problem long in K (300 x n x 40000, n = 64, 16, 4 or 1: F4 claims
// by its small dimension) without a second kernel: its sgemm_main sums the splits.
bool fuses_reduce(const Family& family, const Knobs& knobs) {
  for (const int n : {64, 16, 4, 1}) {
    const ProblemKey p = testing::make_aligned_problem(Op::N, Op::N, 300, n, 40000);
    if (!family.cannot_implement(knobs, p).empty()) continue;
    const LaunchGeometry g = family.geometry(knobs, p, testing::gpu_limits());
    if (g.k_splits > 1 && !g.has_reduce) return true;
  }
  return false;
}

std::vector<Knobs> fused_configs(const Family& family) {
  std::vector<Knobs> out;
  for (const Knobs& k : testing::default_space_configs(family))
    if (fuses_reduce(family, k)) out.push_back(k);
  return out;
}

int split_cases(const Family& family, const std::vector<testing::Case>& cases) {
  return static_cast<int>(std::count_if(cases.begin(), cases.end(), [&](const testing::Case& c) {
    return family.cannot_implement(c.knobs, c.problem).empty() &&
           family.geometry(c.knobs, c.problem, testing::gpu_limits()).k_splits > 1;
  }));
}

TEST_P(FusedReduce, EdgeShapesAllTransposes) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family(GetParam());
  std::vector<testing::Case> cases;
  for (const Knobs& knobs : sample(fused_configs(family), 4))
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T}) {
        // Each also with 16-byte operands (the only ones TMA-fed families take).
        std::vector<std::array<int, 3>> shapes = testing::edge_shapes();
        // A long K over few tiles: many splits per output tile.
        shapes.push_back({300, 17, 4099});
        shapes.push_back({33, 64, 20000});
        for (const auto& [m, n, k] : shapes) {
          cases.push_back({knobs, testing::make_problem(ta, tb, m, n, k), 0});
          cases.push_back({knobs, testing::make_aligned_problem(ta, tb, m, n, k), 0});
        }
      }
  const int splits = split_cases(family, cases);
  EXPECT_GT(splits, 0) << "no edge case of " << family.name() << " splits K";
  EXPECT_GT(expect_correct(family, cases), 0);
  RecordProperty("split_cases", splits);
}

TEST_P(FusedReduce, PaddedLeadingDimensionsAndMisalignedPointers) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family(GetParam());
  const std::vector<testing::Case> cases =
      padded_and_misaligned(sample(fused_configs(family), 3), {{129, 63, 2000}, {300, 16, 5130}});
  EXPECT_GT(split_cases(family, cases), 0);
  EXPECT_GT(expect_correct(family, cases), 0);
}

TEST_P(FusedReduce, RepeatedRunsOnOneWorkspaceAgreeBitForBit) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family(GetParam());
  std::vector<testing::Case> cases;
  for (const Knobs& knobs : sample(fused_configs(family), 4))
    for (const auto& [m, n, k] :
         {std::array<int, 3>{257, 1, 4099}, std::array<int, 3>{1000, 16, 4096},
          std::array<int, 3>{16, 1000, 4096}, std::array<int, 3>{64, 64, 65536}})
      for (Op ta : {Op::N, Op::T}) {
        cases.push_back({knobs, testing::make_problem(ta, Op::N, m, n, k), 0});
        cases.push_back({knobs, testing::make_aligned_problem(ta, Op::N, m, n, k), 0});
      }
  const std::vector<testing::RepeatOutcome> results =
      testing::run_family_cases_twice(family, cases);
  int ran = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const testing::RepeatOutcome& r = results[i];
    const std::string what = fmt::format("{} {} {}", family.name(), knobs_to_string(cases[i].knobs),
                                         cases[i].problem.to_string());
    if (!r.compiled) {
      EXPECT_EQ(r.why_not.find("error"), std::string::npos)
          << what << ": " << r.why_not.substr(0, 1500);
      continue;
    }
    ++ran;
    EXPECT_GT(r.k_splits, 1) << what;
    EXPECT_TRUE(r.first.passed) << what << ": " << r.first.message;
    EXPECT_TRUE(r.second.passed) << what << " (second verification): " << r.second.message;
    EXPECT_EQ(r.unequal, 0) << what << ": two identical runs differ";
    EXPECT_EQ(r.counters_left, 0) << what << ": tile counters left nonzero";
  }
  EXPECT_GT(ran, 0);
  RecordProperty("cases", ran);
}

// Family F4's register-streaming path (DIRECT = 1), every such configuration of the default space,
// on GEMV-like problems (min(m, n) <= 8) and the edge shapes: a block's whole K range of Y loaded
// in vector batches (also with a K tail inside a vector), 128-bit stores of the K-slice partial
// tiles, split-K summed by sgemm_reduce or in the kernel.
std::vector<Knobs> f4_direct_configs() {
  std::vector<Knobs> out;
  for (const Knobs& k : testing::default_space_configs(find_family("f4_skinny")))
    if (k.at("DIRECT") == 1) out.push_back(k);
  return out;
}

TEST(F4Direct, EdgeShapesAllTransposesAndKTails) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family("f4_skinny");
  const std::vector<Knobs> configs = f4_direct_configs();
  ASSERT_FALSE(configs.empty()) << "the default space has no DIRECT = 1 configuration";
  std::vector<std::array<int, 3>> shapes = testing::edge_shapes();
  for (const auto& shape : std::vector<std::array<int, 3>>{
           {1000, 3, 3000}, {777, 2, 1500}, {2, 777, 1500}, {1000, 5, 2001}, {5, 1000, 2001}})
    shapes.push_back(shape);
  std::vector<testing::Case> cases;
  for (const Knobs& knobs : configs) {
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (const auto& [m, n, k] : shapes)
          cases.push_back({knobs, testing::make_problem(ta, tb, m, n, k), 0});
    // 16-byte operands whose K range ends inside a vector of Y (k = 2001, leading dimensions
    // padded to multiples of 4).
    cases.push_back({knobs, testing::make_problem(Op::N, Op::N, 1001, 1, 2001, 3, 4), 0});
    cases.push_back({knobs, testing::make_problem(Op::N, Op::T, 1001, 1, 2001, 3, 4), 0});
    cases.push_back({knobs, testing::make_problem(Op::N, Op::N, 1001, 5, 2001, 3, 4), 0});
    cases.push_back({knobs, testing::make_problem(Op::N, Op::T, 1001, 5, 2001, 3, 4), 0});
  }
  const int ran = expect_correct(family, cases);
  const int splits = split_cases(family, cases);
  EXPECT_GE(ran, static_cast<int>(4 * configs.size())) << "too few DIRECT cases were implementable";
  EXPECT_GE(splits, static_cast<int>(2 * configs.size()));
  RecordProperty("cases", ran);
  RecordProperty("split_cases", splits);
}

TEST(F4Direct, PaddedLeadingDimensionsAndMisalignedPointers) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family("f4_skinny");
  const std::vector<testing::Case> cases =
      padded_and_misaligned(f4_direct_configs(), {{1000, 1, 1027}, {2000, 4, 999}, {3, 1500, 700}});
  EXPECT_GT(expect_correct(family, cases), 0);
}

// Family F4's tiles of 8 and 32 along the small side: for each, a ring point unsplit, split and
// summed by sgemm_reduce, and split and summed in the kernel, where the small side leaves a
// remainder tile (BS + 1 columns, BS - 1 rows), all four transposes, minimal and padded leading
// dimensions and misaligned pointers.
TEST(F4SmallSideTiles, EightAndThirtyTwoWithRemaindersSplitOrNot) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family("f4_skinny");
  std::vector<testing::Case> cases;
  for (const int bs : {8, 32}) {
    std::vector<Knobs> unsplit, reduce, fused;
    for (const Knobs& k : testing::default_space_configs(family)) {
      if (k.at("BS") != bs || k.at("DIRECT") != 0) continue;
      if (k.at("SPLITK") == 0) unsplit.push_back(k);
      if (k.at("SPLITK") == 1) (k.at("REDUCE") == 0 ? reduce : fused).push_back(k);
    }
    ASSERT_FALSE(unsplit.empty() || reduce.empty() || fused.empty())
        << "the default space lacks a BS = " << bs << " point of each kind";
    std::vector<Knobs> configs;
    for (const auto* kind : {&unsplit, &reduce, &fused}) configs.push_back(sample(*kind, 1)[0]);
    const std::vector<std::array<int, 3>> shapes = {{1001, bs + 1, 3001}, {bs - 1, 1001, 515}};
    for (const testing::Case& c : padded_and_misaligned(configs, shapes)) cases.push_back(c);
    add_minimal_cases(cases, configs, shapes);
  }
  const long implementable = implementable_count(family, cases);
  EXPECT_EQ(implementable, static_cast<long>(cases.size()));
  EXPECT_GE(split_cases(family, cases), static_cast<int>(cases.size()) / 2);
  EXPECT_EQ(expect_correct(family, cases), implementable);
}

// Family F4's windows (WIN = 1): X contiguous along G below alignment class 4, copied 16 bytes at
// a time from the aligned block around each k row. Ring points unsplit, split and summed by
// sgemm_reduce, and summed in the kernel, and one of BS = 1 (whose copies take no L2 hint), at
// remainders of every tile, K below BK, one row and one column, all four transposes (those
// whose X is contiguous along K refuse windows), leading dimensions of class 1 and 2 and a pointer
// one float off; the floats before a misaligned pointer and in the padding are read into the
// windows, never into a result.
TEST(F4Windows, StreamsBelowClass4AtEveryEdgeSplitOrNot) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family("f4_skinny");
  std::vector<Knobs> unsplit, reduce, fused, single;
  for (const Knobs& k : testing::default_space_configs_with(family, "WIN", 1)) {
    if (k.at("BS") == 1) single.push_back(k);
    if (k.at("SPLITK") == 0) unsplit.push_back(k);
    if (k.at("SPLITK") == 1) (k.at("REDUCE") == 0 ? reduce : fused).push_back(k);
  }
  ASSERT_FALSE(unsplit.empty() || reduce.empty() || fused.empty() || single.empty())
      << "the default space lacks a point of each kind that takes windows";
  std::vector<Knobs> configs = sample(unsplit, 2);
  for (const auto* kind : {&reduce, &fused, &single}) configs.push_back(sample(*kind, 1)[0]);
  std::vector<testing::Case> cases;
  for (const Knobs& k : configs) {
    const int bs = k.at("BS"), less = std::max(bs - 1, 1), half = std::max(bs / 2, 1);
    const std::vector<std::array<int, 3>> shapes = {
        {1001, bs + 1, 3001}, {less, 1003, 515}, {130, bs, 77}, {bs, 257, 5}, {517, half, 1}};
    for (const testing::Case& c : testing::unaligned_cases({k}, shapes)) cases.push_back(c);
  }
  const long implementable = implementable_count(family, cases);
  // Half the transposes stream X along K, and a side of 1 refuses the widest tiles.
  EXPECT_GE(implementable, static_cast<long>(cases.size()) / 3);
  EXPECT_GE(split_cases(family, cases), static_cast<int>(cases.size()) / 10);
  EXPECT_EQ(expect_correct(family, cases), implementable);
}

// Family F4 under both L2 policies of the streamed operand (EVICT 0 and 1: DIRECT's hinted loads,
// the ring's streaming access-policy window): a sample of the default space at the edge shapes,
// all four transposes, padded leading dimensions and misaligned pointers (the hinted 16-byte
// loads of full tiles next to unhinted narrow and edge ones; windows from misaligned pointers).
std::vector<Knobs> f4_both_policy_configs() {
  std::vector<Knobs> ring, direct;
  for (const Knobs& k : testing::default_space_configs(find_family("f4_skinny")))
    (k.at("DIRECT") == 1 ? direct : ring).push_back(k);
  std::vector<Knobs> out;
  for (const std::vector<Knobs>* pool : {&ring, &direct})
    for (Knobs k : sample(*pool, pool == &ring ? 2 : 4))
      for (int evict : {0, 1}) {
        k["EVICT"] = evict;
        out.push_back(k);
      }
  return out;
}

// Family F1's deep splits (16-64 slices of K summed by sgemm_reduce): the default space's points
// with the deepest split, on small output grids over a long K (a K that is no multiple of BK, one
// row, one column), all four transposes, padded leading dimensions and misaligned pointers.
TEST(F1DeepSplit, LongKSmallOutputsAllTransposesPaddedAndMisaligned) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family("f1_simt");
  std::vector<Knobs> deep;
  // XCHG = 1 takes only a ldc that is not a multiple of 4 (F1Exchange covers it).
  for (const Knobs& k : testing::default_space_configs(family))
    if (k.at("SPLITK") >= 16 && k.at("REDUCE") == 0 && k.at("XCHG") == 0) deep.push_back(k);
  ASSERT_FALSE(deep.empty()) << "the default space of f1_simt has no split of 16 or more";
  const std::vector<Knobs> configs = sample(deep, 3);
  std::vector<testing::Case> cases = padded_and_misaligned(
      configs, {{95, 72, 20011}, {1, 130, 9000}, {130, 1, 9000}, {200, 70, 3001}});
  const int splits = split_cases(family, cases);
  EXPECT_GE(splits, static_cast<int>(cases.size()) / 2) << "too few cases split K";
  EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [&](const testing::Case& c) {
    return family.geometry(c.knobs, c.problem, testing::gpu_limits()).k_splits >= 16;
  })) << "no case splits K 16 ways or more";
  const auto implementable = std::count_if(cases.begin(), cases.end(), [&](const testing::Case& c) {
    return family.cannot_implement(c.knobs, c.problem).empty();
  });
  EXPECT_EQ(implementable, static_cast<long>(cases.size()));
  EXPECT_EQ(expect_correct(family, cases), implementable);
  RecordProperty("split_cases", splits);
}

// Family F1 where only A or B makes the problem unaligned: C (ldc a multiple of 4, its pointer
// 16-byte aligned) takes float4 stores in the main kernel and in sgemm_reduce, the operands their
// class's copies; beta != 0 reads C the same way. Unsplit and deep-split points, all transposes.
TEST(F1AlignedC, AnUnalignedOperandLeavesCToFloat4Stores) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family("f1_simt");
  std::vector<Knobs> unsplit, deep;
  for (const Knobs& k : testing::default_space_configs(family)) {
    // XCHG and CWIN refuse the aligned C this test is about.
    if (k.at("XCHG") == 1 || k.at("CWIN") == 1) continue;
    if (k.at("SPLITK") == 1) unsplit.push_back(k);
    if (k.at("SPLITK") >= 16 && k.at("REDUCE") == 0) deep.push_back(k);
  }
  std::vector<Knobs> configs = sample(unsplit, 2);
  for (const Knobs& k : sample(deep, 2)) configs.push_back(k);
  std::vector<testing::Case> cases;
  for (const Knobs& knobs : configs)
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (const auto& [m, n, k] :
             {std::array<int, 3>{300, 70, 213}, std::array<int, 3>{132, 37, 4099},
              std::array<int, 3>{1000, 129, 19}}) {
          ProblemKey p = testing::make_problem(ta, tb, m, n, k);
          p.ldc = (p.m + 3) / 4 * 4;  // C aligned; A or B stays odd
          p.align = alignment_class(p.lda, p.ldb, p.ldc, 0, 0, 0);
          ASSERT_LT(p.align, 4) << p.to_string();
          cases.push_back({knobs, p, 0});
        }
  EXPECT_EQ(expect_correct(family, cases), static_cast<int>(cases.size()));
}

// Family F1's block tiles of 3 x 2^j (96, 192: 3 or 6 warps along the side; out of the default
// space, so named here), whose loaders may leave a last pass part-filled (96 threads over a 32x16
// tile of B) and split a pass across k rows that do not nest: along M, along N; unsplit, split
// deep (sgemm_reduce) and with the exchanged store. All transposes, edge shapes, padded leading
// dimensions and misaligned pointers.
TEST(F1ThreeWarpTiles, AlongEitherSideSplitOrNotAtEdgeShapes) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family("f1_simt");
  const Knobs base = {{"BM", 96},        {"BN", 32},    {"BK", 16},    {"WM", 32},    {"WN", 32},
                      {"TM", 8},         {"TN", 4},     {"STAGES", 3}, {"PAD", 4},    {"REGDB", 1},
                      {"MIN_BLOCKS", 1}, {"RASTER", 1}, {"SPLITK", 1}, {"REDUCE", 0}, {"XCHG", 0},
                      {"CWIN", 0},       {"EVICT", 0}};
  using testing::with;
  const std::vector<Knobs> configs = {
      base,                                                                    // 96x32
      with(with(with(base, "BM", 32), "BN", 96), "STAGES", 4),                 // 32x96
      with(with(with(with(base, "BN", 64), "WN", 64), "TN", 8), "STAGES", 4),  // 96x64
      with(with(with(with(base, "BM", 192), "BN", 64), "WM", 64), "TN", 8),    // 192x64
      with(with(with(base, "BM", 32), "BN", 96), "SPLITK", 16),                // deep split
      with(base, "XCHG", 1)};
  for (const Knobs& k : configs)
    ASSERT_EQ(failed_constraint(family, k, testing::gpu_limits()), "") << knobs_to_string(k);
  // One part-filled last pass at least.
  EXPECT_TRUE(std::any_of(configs.begin(), configs.end(), [](const Knobs& k) {
    const int threads = warp_tiled_threads(k);
    return (k.at("BM") * k.at("BK")) % (4 * threads) != 0 ||
           (k.at("BN") * k.at("BK")) % (4 * threads) != 0;
  }));
  const std::vector<std::array<int, 3>> shapes = {{1, 257, 129},  {257, 1, 129},   {33, 65, 3},
                                                  {127, 129, 7},  {356, 72, 3001}, {97, 193, 517},
                                                  {300, 16, 513}, {95, 72, 20011}};
  std::vector<testing::Case> cases = padded_and_misaligned(configs, shapes);
  add_minimal_cases(cases, configs, shapes);
  const long implementable = implementable_count(family, cases);
  EXPECT_GT(implementable, 500);
  EXPECT_EQ(expect_correct(family, cases), implementable);
}

// Family F1 with XCHG = 1: C (and a split's partial tiles, where m is not a multiple of 4) stored
// after the exchange among the lanes along M. Both lane layouts (4 and 8 lanes along M), unsplit,
// split and summed by sgemm_reduce, split and summed in the kernel; all transposes, edge shapes,
// minimal and padded leading dimensions, a pointer offset by one float (m = 300: partial tiles
// as float4, C exchanged; 258 and 102 with even operands: class 2, C exchanged as float2s, the
// partial tiles as floats).
TEST(F1Exchange, BothLaneLayoutsSplitOrNotAtEdgeShapes) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family("f1_simt");
  std::vector<Knobs> configs;
  for (int lanes_m : {4, 8})
    for (int kind : {0, 1, 2}) {  // unsplit, split summed by sgemm_reduce, summed in the kernel
      std::vector<Knobs> pool;
      for (Knobs k : testing::default_space_configs(family)) {
        const bool split = k.at("SPLITK") > 1, fused = k.at("REDUCE") == 1;
        if (k.at("WM") / k.at("TM") != lanes_m || split != (kind > 0) || fused != (kind == 2))
          continue;
        k["XCHG"] = 1;
        pool.push_back(k);
      }
      for (const Knobs& k : sample(pool, 1)) configs.push_back(k);
    }
  ASSERT_EQ(configs.size(), 6u);
  const std::vector<std::array<int, 3>> shapes = {
      {1, 257, 129},   {257, 1, 129},  {33, 65, 3},    {127, 129, 7},   {513, 300, 129},
      {301, 70, 1029}, {300, 16, 513}, {258, 70, 130}, {102, 300, 1030}};
  std::vector<testing::Case> cases = testing::unaligned_cases(configs, shapes);
  add_minimal_cases(cases, configs, shapes);
  const long implementable = implementable_count(family, cases);
  const auto float2_c = std::count_if(cases.begin(), cases.end(), [&](const auto& c) {
    return c.problem.align == 2 && family.cannot_implement(c.knobs, c.problem).empty();
  });
  EXPECT_GT(implementable, 300);
  EXPECT_GT(float2_c, 40);
  EXPECT_EQ(expect_correct(family, cases), implementable);
}

// The default space's unsplit points without the exchange, with CWIN = 1 (out of the space).
std::vector<Knobs> windowed_configs(const Family& family) {
  std::vector<Knobs> out;
  for (Knobs k : testing::default_space_configs(family))
    if (k.at("SPLITK") == 1 && k.at("XCHG") == 0) {
      k["CWIN"] = 1;
      out.push_back(k);
    }
  return out;
}

// Family F1 with CWIN = 1: M tiles 8 rows apart less than BM, C stored through shared memory in
// windows that start on 32-byte sectors, the first tile's rows before its window and the last
// tile's up to M. One point of each block height and lane layout (4 or 8 lanes along M); all
// transposes; M from 1 to past three tiles, around the tile step and its multiples; padded and
// minimal leading dimensions, pointers offset by one float (the windows follow the address).
TEST(F1Windows, EveryBlockHeightAtEdgeShapesPaddedAndMisaligned) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family("f1_simt");
  std::map<std::pair<int, int>, std::vector<Knobs>> pools;  // (BM, lanes along M)
  for (const Knobs& k : windowed_configs(family))
    pools[{k.at("BM"), k.at("WM") / k.at("TM")}].push_back(k);
  ASSERT_GE(pools.size(), 4u) << "too few block heights";
  std::vector<Knobs> configs;
  for (const auto& [key, pool] : pools)
    for (const Knobs& k : sample(pool, 1)) configs.push_back(k);
  const std::vector<std::array<int, 3>> shapes = {
      {1, 257, 129},  {7, 65, 3},   {57, 1, 33},    {121, 70, 7},  {129, 33, 129},
      {249, 130, 17}, {250, 9, 40}, {371, 66, 250}, {513, 31, 19}, {1001, 70, 8}};
  std::vector<testing::Case> cases = testing::unaligned_cases(configs, shapes);
  add_minimal_cases(cases, configs, shapes);
  const long implementable = implementable_count(family, cases);
  EXPECT_GT(implementable, static_cast<long>(configs.size()) * 100);
  EXPECT_EQ(expect_correct(family, cases), implementable);
}

// The windows' shared-memory round trip for compute-sanitizer: one point with 4 lanes along M and
// one with 8, all transposes, a tile remainder, K < BK, a pointer offset by one float.
TEST(F1Windows, SanitizerSample) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family("f1_simt");
  std::vector<Knobs> configs;
  for (int lanes_m : {4, 8}) {
    std::vector<Knobs> pool;
    for (const Knobs& k : windowed_configs(family))
      if (k.at("WM") / k.at("TM") == lanes_m) pool.push_back(k);
    for (const Knobs& k : sample(pool, 1)) configs.push_back(k);
  }
  ASSERT_EQ(configs.size(), 2u);
  std::vector<testing::Case> cases;
  for (const Knobs& knobs : configs)
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T}) {
        cases.push_back({knobs, testing::make_problem(ta, tb, 249, 33, 7), 0});
        cases.push_back({knobs, testing::make_problem(ta, tb, 101, 37, 51, 5, 1), 1});
      }
  EXPECT_EQ(expect_correct(family, cases), static_cast<int>(cases.size()));
}

TEST(F4L2Policy, BothPoliciesAtEdgeShapesAllTransposesPaddedAndMisaligned) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family("f4_skinny");
  const std::vector<Knobs> configs = f4_both_policy_configs();
  ASSERT_EQ(configs.size(), 12u);
  std::vector<testing::Case> cases =
      padded_and_misaligned(configs, {{1000, 1, 1027}, {300, 16, 513}});
  // Also 16-byte operands (every dimension a multiple of 4) with edge tiles along G and K.
  std::vector<std::array<int, 3>> shapes = testing::edge_shapes();
  for (const auto& shape : std::vector<std::array<int, 3>>{
           {1000, 32, 1500}, {1000, 4, 1500}, {4, 1000, 1500}, {1000, 1, 1500}, {1, 1000, 1500}})
    shapes.push_back(shape);
  for (const Knobs& knobs : configs)
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (const auto& [m, n, k] : shapes)
          cases.push_back({knobs, testing::make_problem(ta, tb, m, n, k), 0});
  const int ran = expect_correct(family, cases);
  EXPECT_GE(ran, static_cast<int>(8 * configs.size()));
  RecordProperty("cases", ran);
}

// Family F1 with EVICT = 1 (the larger operand under a streaming L2 access-policy window): a
// sample of the default space, split or not, on tall and wide problems at edge tiles, K < BK, all
// transposes, padded leading dimensions and misaligned pointers (windows from odd addresses).
TEST(F1L2Window, TallAndWideAtEdgeShapesAllTransposesPaddedAndMisaligned) {
  SGT_SKIP_WITHOUT_GPU();
  const Family& family = find_family("f1_simt");
  std::vector<Knobs> configs;
  for (Knobs k : sample(testing::default_space_configs(family), 4)) {
    k["EVICT"] = 1;
    configs.push_back(k);
  }
  std::vector<testing::Case> cases =
      padded_and_misaligned(configs, {{5001, 97, 131}, {67, 4099, 5}, {1, 3000, 70}});
  const int ran = expect_correct(family, cases);
  EXPECT_GE(ran, static_cast<int>(cases.size()) / 2);
  EXPECT_TRUE(std::all_of(cases.begin(), cases.end(), [&](const testing::Case& c) {
    return family.geometry(c.knobs, c.problem, testing::gpu_limits()).l2_streamed.which !=
           L2StreamedOperand::Which::none;
  }));
  RecordProperty("cases", ran);
}

std::vector<std::string> fused_family_names() {
  std::vector<std::string> names;
  for (const Family* f : families())
    if (!fused_configs(*f).empty()) names.push_back(f->name());
  return names;
}

INSTANTIATE_TEST_SUITE_P(InKernelReduce, FusedReduce, ::testing::ValuesIn(fused_family_names()),
                         [](const auto& info) { return info.param; });

std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const Family* f : families()) names.push_back(f->name());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Families, FamilyCorrectness, ::testing::ValuesIn(family_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace sgt
