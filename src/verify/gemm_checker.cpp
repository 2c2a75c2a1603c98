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
      ref_beta_zero_(padded(elements_c(problem), misalign_floats)),
      ref_beta_(padded(elements_c(problem), misalign_floats)),
      ref_integer_(padded(elements_c(problem), misalign_floats)) {
  if (const char* tf32 = std::getenv("NVIDIA_TF32_OVERRIDE"); tf32 && std::string(tf32) != "0")
    throw Error(ErrorKind::invalid_value,
                "NVIDIA_TF32_OVERRIDE is set: the cuBLAS reference would not be true FP32");
}

void GemmChecker::fill_random(std::uint64_t seed) {
  utility_.fill_uniform(stream_, a_.get(), a_.size(), seed * 3 + 1);
  utility_.fill_uniform(stream_, b_.get(), b_.size(), seed * 3 + 2);
  utility_.fill_uniform(stream_, c_.get(), c_.size(), seed * 3 + 3);
}

namespace {
constexpr float kAlphaBetaZero = 0.75f;                 // pass 1
constexpr float kAlphaBeta = -1.25f, kBetaBeta = 0.5f;  // pass 2
}  // namespace

void GemmChecker::fill_pass(std::uint64_t seed, bool integer) {
  if (integer) {
    utility_.fill_integers(stream_, a_.get(), a_.size(), seed * 5 + 4, -8, 8);
    utility_.fill_integers(stream_, b_.get(), b_.size(), seed * 5 + 5, -8, 8);
    return;
  }
  utility_.fill_uniform(stream_, a_.get(), a_.size(), seed * 5 + 1);
  utility_.fill_uniform(stream_, b_.get(), b_.size(), seed * 5 + 2);
  utility_.fill_uniform(stream_, c0_.get(), c0_.size(), seed * 5 + 3);
}

void GemmChecker::run_into(const GemmFn& gemm, float alpha, float beta, const float* c_init,
                           float* out) {
  if (c_init) {
    SGT_CUDA_CHECK(
        cudaMemcpyAsync(out, c_init - offset_, c_.bytes(), cudaMemcpyDeviceToDevice, stream_));
  } else {
    UtilityKernels::poison(stream_, out, c_.size());
  }
  gemm(stream_, alpha, a(), b(), beta, out + offset_);
  SGT_CUDA_CHECK(cudaGetLastError());
}

void GemmChecker::compute_references(std::uint64_t seed) {
  const GemmFn cublas = [&](cudaStream_t s, float al, const float* a, const float* b, float be,
                            float* c) { reference_.sgemm(s, p_, al, a, b, be, c); };
  const float* c0 = c0_.get() + offset_;
  fill_pass(seed, false);
  a_sq_ = utility_.sum_squares(stream_, a(), p_.lda, rows_a(p_), cols_a(p_));
  b_sq_ = utility_.sum_squares(stream_, b(), p_.ldb, rows_b(p_), cols_b(p_));
  c0_sq_ = utility_.sum_squares(stream_, c0, p_.ldc, p_.m, p_.n);
  run_into(cublas, kAlphaBetaZero, 0.0f, nullptr, ref_beta_zero_.get());
  run_into(cublas, kAlphaBeta, kBetaBeta, c0, ref_beta_.get());
  if (integer_check_is_exact(p_.k, 8)) {
    fill_pass(seed, true);
    run_into(cublas, 1.0f, 0.0f, nullptr, ref_integer_.get());
  }
  reference_seed_ = seed;
}

DiffNorms GemmChecker::run_and_compare(const GemmFn& gemm, float alpha, float beta,
                                       const float* c_init, const DeviceBuffer<float>& ref) {
  run_into(gemm, alpha, beta, c_init, c_.get());
  return utility_.diff(stream_, c(), p_.ldc, ref.get() + offset_, p_.ldc, p_.m, p_.n);
}

CheckResult GemmChecker::check(const GemmFn& gemm, std::uint64_t seed) {
  if (reference_seed_ != seed) compute_references(seed);
  CheckResult result;

  // Pass 1: random A, B; C full of NaN; beta = 0 must neither read C nor leave any of it unwritten.
  fill_pass(seed, false);
  const DiffNorms pass1 = run_and_compare(gemm, kAlphaBetaZero, 0.0f, nullptr, ref_beta_zero_);
  result.error_beta_zero =
      normwise_error(pass1.diff_sq, p_.k, kAlphaBetaZero, a_sq_, b_sq_, 0.0f, 0.0);

  // Pass 2: C random, beta != 0: the epilogue reads and scales C.
  const DiffNorms pass2 =
      run_and_compare(gemm, kAlphaBeta, kBetaBeta, c0_.get() + offset_, ref_beta_);
  result.error_beta =
      normwise_error(pass2.diff_sq, p_.k, kAlphaBeta, a_sq_, b_sq_, kBetaBeta, c0_sq_);
  result.nonfinite = pass1.nonfinite + pass2.nonfinite;

  // Pass 3: small integers, alpha 1, beta 0: exact in FP32, so any indexing slip shows as a bit.
  if (integer_check_is_exact(p_.k, 8)) {
    fill_pass(seed, true);
    const DiffNorms pass3 = run_and_compare(gemm, 1.0f, 0.0f, nullptr, ref_integer_);
    result.exact_checked = true;
    result.unequal = pass3.unequal;
    result.nonfinite += pass3.nonfinite;
  }
  const bool errors_ok = result.error_beta_zero <= tolerance_ && result.error_beta <= tolerance_;
  result.passed = errors_ok && result.nonfinite == 0 && result.unequal == 0;
  // A wrong implementation may also have written outside C: the next check starts afresh.
  if (!result.passed) reference_seed_.reset();
  result.message = fmt::format(
      "normwise error {:.3g} (beta=0), {:.3g} (beta!=0), tolerance {:.3g}; {} non-finite; {}",
      result.error_beta_zero, result.error_beta, tolerance_, result.nonfinite,
      result.exact_checked ? fmt::format("{} elements differ on integer data", result.unequal)
                           : std::string("integer check not exact at this K, skipped"));
  return result;
}

}  // namespace sgt
