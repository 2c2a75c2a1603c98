// Move-only owner of a cuBLAS handle, and SGEMM through it with our problem types.
#pragma once

#include <cublas_v2.h>

#include "space/problem.hpp"

namespace sgt {

class CublasHandle {
 public:
  // pedantic: CUBLAS_PEDANTIC_MATH (true FP32, the verification reference); else default math.
  explicit CublasHandle(bool pedantic);
  ~CublasHandle();
  CublasHandle(CublasHandle&& other) noexcept;
  CublasHandle& operator=(CublasHandle&& other) noexcept;
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  cublasHandle_t get() const noexcept { return handle_; }
  // C = alpha op(A) op(B) + beta C on the stream; throws sgt::Error(cublas) on failure.
  void sgemm(cudaStream_t stream, const ProblemKey& p, float alpha, const float* a, const float* b,
             float beta, float* c) const;

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace sgt
