// The three verification passes of docs/measurement.md. Fresh data per check comes from the seed.
#include "verify/gemm_checker.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "common/error.hpp"
#include "verify/tolerance.hpp"

namespace sgt {
namespace {

std::size_t padded(std::int64_t elements, int offset) {
  return static_cast<std::size_t>(elements + offset + 4);
}

}  // namespace

GemmChecker::GemmChecker(const ProblemKey& problem, const UtilityKernels& utility,
                         const CublasHandle& reference, cudaStream_t stream,
                         double tolerance_factor, int misalign_floats)
    : p_(problem),
      utility_(utility),
      reference_(reference),
      stream_(stream),
      tolerance_(normwise_tolerance(tolerance_factor)),
      offset_(misalign_floats),
      a_(padded(elements_a(problem), misalign_floats)),
      b_(padded(elements_b(problem), misalign_floats)),
      c_(padded(elements_c(problem), misalign_floats)),
      c0_(padded(elements_c(problem), misalign_floats)),
      ref_(padded(elements_c(problem), misalign_floats)) {
  if (const char* tf32 = std::getenv("NVIDIA_TF32_OVERRIDE"); tf32 && std::string(tf32) != "0")
    throw Error(ErrorKind::invalid_value,
                "NVIDIA_TF32_OVERRIDE is set: the cuBLAS reference would not be true FP32");
}

void GemmChecker::fill_random(std::uint64_t seed) {
  utility_.fill_uniform(stream_, a_.get(), a_.size(), seed * 3 + 1);
  utility_.fill_uniform(stream_, b_.get(), b_.size(), seed * 3 + 2);
  utility_.fill_uniform(stream_, c_.get(), c_.size(), seed * 3 + 3);
}

DiffNorms GemmChecker::run_and_compare(const GemmFn& gemm, float alpha, float beta,
                                       const float* c_init) {
  const std::size_t bytes = c_.bytes();
  float* ref = ref_.get() + offset_;
  if (c_init) {
    SGT_CUDA_CHECK(
        cudaMemcpyAsync(c_.get(), c_init - offset_, bytes, cudaMemcpyDeviceToDevice, stream_));
    SGT_CUDA_CHECK(
        cudaMemcpyAsync(ref_.get(), c_init - offset_, bytes, cudaMemcpyDeviceToDevice, stream_));
  } else {
    UtilityKernels::poison(stream_, c_.get(), c_.size());
    UtilityKernels::poison(stream_, ref_.get(), ref_.size());
  }
  reference_.sgemm(stream_, p_, alpha, a(), b(), beta, ref);
  gemm(stream_, alpha, a(), b(), beta, c());
  SGT_CUDA_CHECK(cudaGetLastError());
  return utility_.diff(stream_, c(), p_.ldc, ref, p_.ldc, p_.m, p_.n);
}

CheckResult GemmChecker::check(const GemmFn& gemm, std::uint64_t seed) {
  CheckResult result;
  const int ra = rows_a(p_), ca = cols_a(p_), rb = rows_b(p_), cb = cols_b(p_);

  // Pass 1: random A, B; C full of NaN; beta = 0 must neither read C nor leave any of it unwritten.
  utility_.fill_uniform(stream_, a_.get(), a_.size(), seed * 5 + 1);
  utility_.fill_uniform(stream_, b_.get(), b_.size(), seed * 5 + 2);
  utility_.fill_uniform(stream_, c0_.get(), c0_.size(), seed * 5 + 3);
  const double a_sq = utility_.sum_squares(stream_, a(), p_.lda, ra, ca);
  const double b_sq = utility_.sum_squares(stream_, b(), p_.ldb, rb, cb);
  const float* c0 = c0_.get() + offset_;
  const double c0_sq = utility_.sum_squares(stream_, c0, p_.ldc, p_.m, p_.n);

  const float alpha1 = 0.75f;
  const DiffNorms pass1 = run_and_compare(gemm, alpha1, 0.0f, nullptr);
  result.error_beta_zero = normwise_error(pass1.diff_sq, p_.k, alpha1, a_sq, b_sq, 0.0f, 0.0);

  // Pass 2: C random, beta != 0: the epilogue reads and scales C.
  const float alpha2 = -1.25f, beta2 = 0.5f;
  const DiffNorms pass2 = run_and_compare(gemm, alpha2, beta2, c0);
  result.error_beta = normwise_error(pass2.diff_sq, p_.k, alpha2, a_sq, b_sq, beta2, c0_sq);
  result.nonfinite = pass1.nonfinite + pass2.nonfinite;

  // Pass 3: small integers, alpha 1, beta 0: exact in FP32, so any indexing slip shows as a bit.
  if (integer_check_is_exact(p_.k, 8)) {
    utility_.fill_integers(stream_, a_.get(), a_.size(), seed * 5 + 4, -8, 8);
    utility_.fill_integers(stream_, b_.get(), b_.size(), seed * 5 + 5, -8, 8);
    const DiffNorms pass3 = run_and_compare(gemm, 1.0f, 0.0f, nullptr);
    result.exact_checked = true;
    result.unequal = pass3.unequal;
    result.nonfinite += pass3.nonfinite;
  }

  const bool errors_ok = result.error_beta_zero <= tolerance_ && result.error_beta <= tolerance_;
  result.passed = errors_ok && result.nonfinite == 0 && result.unequal == 0;
  result.message = fmt::format(
      "normwise error {:.3g} (beta=0), {:.3g} (beta!=0), tolerance {:.3g}; {} non-finite; {}",
      result.error_beta_zero, result.error_beta, tolerance_, result.nonfinite,
      result.exact_checked ? fmt::format("{} elements differ on integer data", result.unequal)
                           : std::string("integer check not exact at this K, skipped"));
  return result;
}

}  // namespace sgt
