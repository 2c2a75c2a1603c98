// cuBLASLt SGEMM on a GPU: every algorithm the heuristic returns passes the verification passes
// against pedantic cuBLAS and a host FP64 product, on all four transposes, an odd shape and padded
// leading dimensions; bad arguments raise sgt::Error(invalid_value) saying what is wrong.
#include "cuda/cublaslt_gemm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "support/gpu_support.hpp"
#include "verify/tolerance.hpp"

namespace sgt {
namespace {

using testing::gpu_env;
using testing::make_problem;

std::vector<ProblemKey> problems() {
  std::vector<ProblemKey> out;
  for (const Op ta : {Op::N, Op::T})
    for (const Op tb : {Op::N, Op::T}) {
      out.push_back(make_problem(ta, tb, 257, 511, 129));
      out.push_back(
          make_problem(ta, tb, 96, 80, 200, /*pad=*/3));  // odd leading dimensions: align 1
    }
  out.push_back(make_problem(Op::N, Op::N, 128, 64, 1000, /*pad=*/4));  // padded, still align 4
  out.push_back(make_problem(Op::T, Op::N, 1, 257, 129));               // one row
  out.push_back(make_problem(Op::N, Op::T, 300, 1, 64));                // one column
  return out;
}

// Runs `body` and returns the sgt::Error(invalid_value) message it must throw ("" if none).
template <typename F>
std::string invalid_value_message(F body) {
  try {
    body();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_value) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no sgt::Error thrown";
  return "";
}

// How full a grid's last wave is (waves / ceil(waves)); 0 when cuBLASLt gave no waves.
double fill(float waves) { return waves > 0 ? waves / std::ceil(waves) : 0.0; }
// The "splitk=N" field of an algorithm's readable configuration.
std::string split_field(const std::string& config) {
  const std::size_t at = config.find("splitk=");
  return at == std::string::npos ? "" : config.substr(at, config.find(' ', at) - at);
}

// Algorithm `i` of the plan against pedantic cuBLAS (the checker's passes) and a host FP64 product.
void expect_correct(const CublasLtGemm& lt, const CublasLtPlan& plan, int i, std::uint64_t& seed) {
  auto& env = gpu_env();
  const ProblemKey& p = plan.problem();
  const GemmFn gemm = [&, i](cudaStream_t s, float alpha, const float* a, const float* b,
                             float beta, float* c) { lt.run(plan, i, s, alpha, a, b, beta, c); };
  GemmChecker checker(p, env.utility, env.cublas, env.stream.get(), 4.0);
  const CheckResult check = checker.check(gemm, seed++);
  EXPECT_TRUE(check.passed) << check.message;
  EXPECT_LE(testing::fp64_error_of(p, gemm, seed++), normwise_tolerance(4.0)) << "against FP64";
}

TEST(CublasLtGemm, EveryHeuristicAlgorithmIsCorrect) {
  SGT_SKIP_WITHOUT_GPU();
  const CublasLtGemm lt;
  EXPECT_EQ(lt.workspace_bytes(), CublasLtGemm::kDefaultWorkspaceBytes);
  std::uint64_t seed = 101;
  int algorithms_run = 0;
  for (const ProblemKey& p : problems()) {
    const CublasLtPlan plan = lt.plan(p, 8);
    ASSERT_GE(plan.size(), 1) << p.to_string();
    ASSERT_LE(plan.size(), 8) << p.to_string();
    EXPECT_EQ(plan.alignment_bytes(), 4u * static_cast<unsigned>(p.align)) << p.to_string();
    for (int i = 0; i < plan.size(); ++i) {
      const LtAlgorithm& algorithm = plan.algorithms()[static_cast<std::size_t>(i)];
      SCOPED_TRACE(p.to_string() + ", algorithm " + std::to_string(i) + ": " + algorithm.config);
      EXPECT_LE(algorithm.workspace_bytes, lt.workspace_bytes());
      EXPECT_NE(algorithm.config.find("id="), std::string::npos);
      expect_correct(lt, plan, i, seed);
      ++algorithms_run;
    }
  }
  EXPECT_GE(algorithms_run, static_cast<int>(problems().size()));
}

// Split-K variants of the heuristic's first algorithm, for small output grids over a long K (the
// sweep's long_k class, odd and aligned leading dimensions): each one cuBLASLt accepted is
// correct against cuBLAS and FP64, and a problem whose grid fills its waves gets none.
TEST(CublasLtGemm, SplitKVariantsAreCorrect) {
  SGT_SKIP_WITHOUT_GPU();
  const CublasLtGemm lt;
  std::uint64_t seed = 301;
  int variants = 0;
  for (const ProblemKey& p : {make_problem(Op::N, Op::N, 356, 72, 32827),
                              make_problem(Op::N, Op::N, 95, 72, 8192, /*pad=*/3),
                              make_problem(Op::T, Op::N, 128, 64, 20000)}) {
    CublasLtPlan plan = lt.plan(p, 1);
    const LtAlgorithm base = plan.algorithms().front();
    lt.add_split_k_variants(plan, 4);
    ASSERT_LE(plan.size(), 5) << p.to_string();
    // Variants only where the heuristic's own grid leaves its last wave under 85% full, each
    // filling 85% of its own, at a split count of its own.
    if (fill(base.waves) >= 0.85) {
      EXPECT_EQ(plan.size(), 1) << p.to_string() << " " << base.config;
    }
    std::set<std::string> split_counts = {split_field(base.config)};
    for (int i = 1; i < plan.size(); ++i) {
      const LtAlgorithm& algorithm = plan.algorithms()[static_cast<std::size_t>(i)];
      SCOPED_TRACE(p.to_string() + ", variant " + algorithm.config);
      EXPECT_LE(algorithm.workspace_bytes, lt.workspace_bytes());
      EXPECT_GE(algorithm.waves, 0.85f);
      EXPECT_GE(fill(algorithm.waves), 0.85);
      EXPECT_TRUE(split_counts.insert(split_field(algorithm.config)).second);
      expect_correct(lt, plan, i, seed);
      ++variants;
    }
  }
  std::printf("%d split-K variants checked\n", variants);
  // A grid that already fills its last wave to 85% gets no variant.
  CublasLtPlan large = lt.plan(make_problem(Op::N, Op::N, 4096, 4096, 1024), 1);
  const float waves = large.algorithms().front().waves;
  lt.add_split_k_variants(large, 4);
  if (fill(waves) >= 0.85) {
    EXPECT_EQ(large.size(), 1) << waves;
  }
}

// Other tiles, stages and split counts of the heuristic's ids, on every transpose, odd and padded
// leading dimensions, a K below 8 (unsplit only) and one row: each is correct against cuBLAS and
// FP64, none repeats a configuration already in the plan, and at most `count` are added.
TEST(CublasLtGemm, ConfigurationVariantsAreCorrect) {
  SGT_SKIP_WITHOUT_GPU();
  const CublasLtGemm lt;
  std::uint64_t seed = 401;
  int variants = 0;
  std::vector<ProblemKey> cases = problems();
  cases.push_back(make_problem(Op::N, Op::N, 300, 200, 7));     // K < 8: no split
  cases.push_back(make_problem(Op::N, Op::N, 356, 72, 32827));  // long_k, odd ldb
  for (const ProblemKey& p : cases) {
    CublasLtPlan plan = lt.plan(p, 2);
    const int listed = plan.size();
    lt.add_configuration_variants(plan, 6);
    ASSERT_LE(plan.size(), listed + 6) << p.to_string();
    std::set<std::string> seen;  // the heuristic may list one configuration twice, a variant not
    for (int i = 0; i < plan.size(); ++i) {
      const std::string& config = plan.algorithms()[static_cast<std::size_t>(i)].config;
      if (i >= listed) {
        EXPECT_EQ(seen.count(config), 0u) << p.to_string() << " repeats " << config;
      }
      seen.insert(config);
    }
    for (int i = listed; i < plan.size(); ++i) {
      const LtAlgorithm& algorithm = plan.algorithms()[static_cast<std::size_t>(i)];
      SCOPED_TRACE(p.to_string() + ", variant " + algorithm.config);
      EXPECT_LE(algorithm.workspace_bytes, lt.workspace_bytes());
      if (p.k < 16) {
        EXPECT_EQ(split_field(algorithm.config), "splitk=1");
      }
      expect_correct(lt, plan, i, seed);
      ++variants;
    }
  }
  std::printf("%d configuration variants checked\n", variants);
  EXPECT_GT(variants, 0) << "cuBLASLt lists more tiles than its heuristic returns";
}

TEST(CublasLtGemm, TopKLimitsTheAlgorithms) {
  SGT_SKIP_WITHOUT_GPU();
  const CublasLtGemm lt;
  const ProblemKey p = make_problem(Op::N, Op::N, 1024, 1024, 1024);
  EXPECT_EQ(lt.plan(p, 1).size(), 1);
  EXPECT_LE(lt.plan(p, 3).size(), 3);
  EXPECT_GE(lt.plan(p, 8).size(), 2) << "a square 1024^3 SGEMM has several cuBLASLt algorithms";
}

TEST(CublasLtGemm, InvalidArgumentsRaiseClearErrors) {
  SGT_SKIP_WITHOUT_GPU();
  auto& env = gpu_env();
  const CublasLtGemm lt;
  const ProblemKey p = make_problem(Op::N, Op::N, 64, 64, 64);

  EXPECT_NE(invalid_value_message([&] { lt.plan(p, 0); }).find("top_k must be at least 1"),
            std::string::npos);
  ProblemKey short_lda = p;
  short_lda.lda = p.m - 1;
  EXPECT_NE(invalid_value_message([&] { lt.plan(short_lda, 4); }).find("cuBLASLt plan for"),
            std::string::npos);
  ProblemKey empty = p;
  empty.k = 0;
  EXPECT_NE(invalid_value_message([&] { lt.plan(empty, 4); }).find("at least 1"),
            std::string::npos);

  const CublasLtPlan plan = lt.plan(p, 2);
  DeviceBuffer<float> a(elements_a(p) + 1), b(elements_b(p) + 1), c(elements_c(p) + 1);
  const cudaStream_t s = env.stream.get();
  EXPECT_NE(invalid_value_message([&] {
              lt.run(plan, plan.size(), s, 1, a.get(), b.get(), 0, c.get());
            }).find("out of range"),
            std::string::npos);
  EXPECT_NE(invalid_value_message([&] {
              lt.run(plan, -1, s, 1, a.get(), b.get(), 0, c.get());
            }).find("out of range"),
            std::string::npos);
  EXPECT_NE(invalid_value_message([&] {
              lt.run(plan, 0, s, 1, nullptr, b.get(), 0, c.get());
            }).find("null"),
            std::string::npos);
  // Align class 4 promises 16-byte operands; one float off is refused before cuBLASLt sees it.
  EXPECT_NE(invalid_value_message([&] {
              lt.run(plan, 0, s, 1, a.get() + 1, b.get(), 0, c.get());
            }).find("16-byte aligned"),
            std::string::npos);
  SGT_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace
}  // namespace sgt
