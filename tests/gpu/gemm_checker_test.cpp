// GemmChecker computes cuBLAS's references once per seed: a wrong implementation checked after a
// right one must still fail, and a right one after a wrong one (which may have written anywhere)
// must still pass.
#include "verify/gemm_checker.hpp"

#include <gtest/gtest.h>

#include "support/gpu_support.hpp"

namespace sgt {
namespace {

GemmFn cublas_gemm(const ProblemKey& p) {
  return [p](cudaStream_t s, float alpha, const float* a, const float* b, float beta, float* c) {
    testing::gpu_env().cublas.sgemm(s, p, alpha, a, b, beta, c);
  };
}

// cuBLAS with alpha off by one part in 2^10: wrong beyond the tolerance, finite everywhere.
GemmFn slightly_wrong_gemm(const ProblemKey& p) {
  return [p](cudaStream_t s, float alpha, const float* a, const float* b, float beta, float* c) {
    testing::gpu_env().cublas.sgemm(s, p, alpha * (1.0f + 1.0f / 1024), a, b, beta, c);
  };
}

// cuBLAS with beta taken as 0: right in the beta = 0 pass only.
GemmFn ignores_beta_gemm(const ProblemKey& p) {
  return [p](cudaStream_t s, float alpha, const float* a, const float* b, float, float* c) {
    testing::gpu_env().cublas.sgemm(s, p, alpha, a, b, 0.0f, c);
  };
}

TEST(GemmChecker, ReusedReferencesStillTellRightFromWrong) {
  SGT_SKIP_WITHOUT_GPU();
  auto& env = testing::gpu_env();
  for (const ProblemKey& p : {testing::make_problem(Op::N, Op::N, 67, 45, 93),
                              testing::make_problem(Op::T, Op::N, 130, 7, 300, 3)}) {
    SCOPED_TRACE(p.to_string());
    GemmChecker checker(p, env.utility, env.cublas, env.stream.get(), 4.0);
    constexpr std::uint64_t kSeed = 5;
    EXPECT_TRUE(checker.check(cublas_gemm(p), kSeed).passed);
    const CheckResult wrong = checker.check(slightly_wrong_gemm(p), kSeed);
    EXPECT_FALSE(wrong.passed) << wrong.message;
    EXPECT_TRUE(checker.check(cublas_gemm(p), kSeed).passed);
    EXPECT_TRUE(checker.check(cublas_gemm(p), kSeed).passed);
    const CheckResult no_beta = checker.check(ignores_beta_gemm(p), kSeed);
    EXPECT_FALSE(no_beta.passed) << no_beta.message;
    EXPECT_GT(no_beta.error_beta, no_beta.error_beta_zero);
    // Another seed: other data, other references, the same verdicts.
    EXPECT_TRUE(checker.check(cublas_gemm(p), kSeed + 1).passed);
    EXPECT_FALSE(checker.check(slightly_wrong_gemm(p), kSeed + 1).passed);
    EXPECT_TRUE(checker.check(cublas_gemm(p), kSeed).passed);
  }
}

}  // namespace
}  // namespace sgt
