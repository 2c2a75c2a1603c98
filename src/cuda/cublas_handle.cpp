// cuBLAS SGEMM with the handle's stream set per call.
#include "cuda/cublas_handle.hpp"

#include <utility>

#include "common/error.hpp"

namespace sgt {

CublasHandle::CublasHandle(bool pedantic) {
  SGT_CUBLAS_CHECK(cublasCreate(&handle_));
  if (pedantic) SGT_CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH));
}

CublasHandle::~CublasHandle() {
  if (handle_) cublasDestroy(handle_);
}

CublasHandle::CublasHandle(CublasHandle&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)) {}

CublasHandle& CublasHandle::operator=(CublasHandle&& other) noexcept {
  std::swap(handle_, other.handle_);
  return *this;
}

void CublasHandle::sgemm(cudaStream_t stream, const ProblemKey& p, float alpha, const float* a,
                         const float* b, float beta, float* c) const {
  SGT_CUBLAS_CHECK(cublasSetStream(handle_, stream));
  const auto op = [](Op o) { return o == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; };
  SGT_CUBLAS_CHECK(cublasSgemm(handle_, op(p.transa), op(p.transb), p.m, p.n, p.k, &alpha, a, p.lda,
                               b, p.ldb, &beta, c, p.ldc));
}

}  // namespace sgt
