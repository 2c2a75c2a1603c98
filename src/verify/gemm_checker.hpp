// Verifies an SGEMM implementation against cuBLAS (pedantic FP32) on one problem:
// NaN-poisoned C with beta = 0, random C with beta != 0, and an exact integer check.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
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

class GemmChecker {
 public:
  // misalign_floats offsets every operand's base pointer by that many floats (alignment tests).
  GemmChecker(const ProblemKey& problem, const UtilityKernels& utility,
              const CublasHandle& reference, cudaStream_t stream, double tolerance_factor,
              int misalign_floats = 0);

  CheckResult check(const GemmFn& gemm, std::uint64_t seed);

  // Operand buffers (with the problem's leading dimensions), reusable for timing.
  const float* a() const { return a_.get() + offset_; }
  const float* b() const { return b_.get() + offset_; }
  float* c() const { return c_.get() + offset_; }
  // Fills A, B and C with uniform random data from the seed (the timing data).
  void fill_random(std::uint64_t seed);

 private:
  DiffNorms run_and_compare(const GemmFn& gemm, float alpha, float beta, const float* c_init);

  ProblemKey p_;
  const UtilityKernels& utility_;
  const CublasHandle& reference_;
  cudaStream_t stream_;
  double tolerance_;
  int offset_;
  DeviceBuffer<float> a_, b_, c_, c0_, ref_;
};

}  // namespace sgt
