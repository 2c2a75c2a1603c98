// Verifies an SGEMM implementation against cuBLAS (pedantic FP32) on one problem:
// NaN-poisoned C with beta = 0, random C with beta != 0, and an exact integer check.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "cuda/cublas_handle.hpp"
#include "cuda/device_buffer.hpp"
#include "space/problem.hpp"
#include "verify/utility_kernels.hpp"

namespace sgt {

// Runs the implementation under test: C = alpha op(A) op(B) + beta C, enqueued on the stream.
using GemmFn = std::function<void(cudaStream_t, float alpha, const float* a, const float* b,
                                  float beta, float* c)>;

struct CheckResult {
  bool passed = false;
  double error_beta_zero = 0;  // normwise error, C poisoned with NaN, beta = 0
  double error_beta = 0;       // normwise error, C random, beta != 0
  std::int64_t nonfinite = 0;  // NaN/Inf elements in either pass
  bool exact_checked = false;  // integer-data bit-equality ran (64 K <= 2^24)
  std::int64_t unequal = 0;    // elements differing from cuBLAS in the integer pass
  std::string message;         // what failed, or the error metrics
};

// The seed of a problem's check data when its timing data come from timing_seed: data other than
// the timed ones, the same for every implementation checked on the problem.
inline std::uint64_t check_seed(std::uint64_t timing_seed) { return timing_seed + 1000; }

class GemmChecker {
 public:
  // misalign_floats offsets every operand's base pointer by that many floats (alignment tests).
  GemmChecker(const ProblemKey& problem, const UtilityKernels& utility,
              const CublasHandle& reference, cudaStream_t stream, double tolerance_factor,
              int misalign_floats = 0);

  // The check data and cuBLAS's results on it follow from the seed alone: checking several
  // implementations with one seed computes the references once (the first check), since on the
  // largest problems the reference GEMMs are half of what verification costs.
  CheckResult check(const GemmFn& gemm, std::uint64_t seed);

  // Operand buffers (with the problem's leading dimensions), reusable for timing.
  const float* a() const { return a_.get() + offset_; }
  const float* b() const { return b_.get() + offset_; }
  float* c() const { return c_.get() + offset_; }
  // Fills A, B and C with uniform random data from the seed (the timing data).
  void fill_random(std::uint64_t seed);

 private:
  // The three passes' data from the seed, into a_, b_ and c0_ (integer A and B when integer).
  void fill_pass(std::uint64_t seed, bool integer);
  // Runs the GEMM on a poisoned C (c_init null) or on a copy of c_init, into the buffer `out`.
  void run_into(const GemmFn& gemm, float alpha, float beta, const float* c_init, float* out);
  void compute_references(std::uint64_t seed);
  DiffNorms run_and_compare(const GemmFn& gemm, float alpha, float beta, const float* c_init,
                            const DeviceBuffer<float>& ref);

  ProblemKey p_;
  const UtilityKernels& utility_;
  const CublasHandle& reference_;
  cudaStream_t stream_;
  double tolerance_;
  int offset_;
  DeviceBuffer<float> a_, b_, c_, c0_;
  // cuBLAS's results of pass 1 (beta = 0), 2 (beta != 0) and 3 (integers) on reference_seed_'s
  // data.
  DeviceBuffer<float> ref_beta_zero_, ref_beta_, ref_integer_;
  std::optional<std::uint64_t> reference_seed_;
  double a_sq_ = 0, b_sq_ = 0, c0_sq_ = 0;  // squared Frobenius norms of pass 1's A, B and C
};

}  // namespace sgt
