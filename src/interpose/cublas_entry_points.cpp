// libsgemm_cublas: cuBLAS's FP32 GEMM entry points, for LD_PRELOAD. A call is served by the tuned
// dispatcher when the handle's state allows it (host pointer mode, a math mode that does not allow
// TF32, FP32 data and compute) and the dispatcher has a route of its own for the problem; every
// other call goes to the application's cuBLAS unchanged. Nothing is printed (docs/interposer.md).
#include <cublas_v2.h>

#include <cstdlib>
#include <mutex>

#include "interpose/call_log.hpp"
#include "interpose/dispatcher.hpp"
#include "interpose/real_cublas.hpp"

namespace sgt::interpose {
namespace {

// The arguments every intercepted entry point shares, as cublasSgemm_v2 takes them.
struct Gemm {
  const char* entry;
  cublasHandle_t handle;
  cublasOperation_t transa, transb;
  int m, n, k;
  const void* alpha;
  const void* a;
  int lda;
  const void* b;
  int ldb;
  const void* beta;
  void* c;
  int ldc;
};

void at_exit() {
  const RealCublas& real = real_cublas();
  const Dispatcher* d = dispatcher_if_open();
  write_call_log(real.library, !real.error.empty() ? real.error : d ? d->error : "");
  if (d && d->handle) d->write_miss_log(d->handle);
}

// Why the call goes to cuBLAS (whose handle queries `real` holds), or null when the dispatcher
// served it.
const char* serve(const Gemm& g, const RealCublas& real) {
  if (!g.handle) return "no handle";
  cublasPointerMode_t pointers{};
  if (real.get_pointer_mode(g.handle, &pointers) != CUBLAS_STATUS_SUCCESS)
    return "handle not readable";
  if (pointers != CUBLAS_POINTER_MODE_HOST) return "device pointer mode";
  cublasMath_t math{};
  if (real.get_math_mode(g.handle, &math) != CUBLAS_STATUS_SUCCESS) return "handle not readable";
  // The low bits are the mode; CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION may be or'ed in.
  const int mode = static_cast<int>(math) & 0xf;
  if (mode == CUBLAS_TF32_TENSOR_OP_MATH || mode == CUBLAS_TENSOR_OP_MATH)
    return "math mode allows TF32";
  const Dispatcher& d = dispatcher();
  if (!d.handle) return "dispatcher unavailable";
  cudaStream_t stream = nullptr;
  if (real.get_stream(g.handle, &stream) != CUBLAS_STATUS_SUCCESS) return "handle not readable";
  const sgemmStatus_t s = d.sgemm_tuned(
      d.handle, stream, static_cast<sgemmOperation_t>(g.transa),
      static_cast<sgemmOperation_t>(g.transb), g.m, g.n, g.k, static_cast<const float*>(g.alpha),
      static_cast<const float*>(g.a), g.lda, static_cast<const float*>(g.b), g.ldb,
      static_cast<const float*>(g.beta), static_cast<float*>(g.c), g.ldc);
  switch (s) {
    case SGEMM_STATUS_SUCCESS:
      return nullptr;
    case SGEMM_STATUS_NOT_SUPPORTED:
      return "no faster route";
    case SGEMM_STATUS_INVALID_VALUE:
      return "arguments cuBLAS rejects or computes alone";
    default:
      return "dispatcher error";  // nothing was enqueued that writes C: cuBLAS computes it
  }
}

// Serves g if it can; else (or when `type_reason` already rules it out) runs `pass`.
template <typename Pass>
cublasStatus_t serve_or_pass(const Gemm& g, const char* type_reason, Pass&& pass) {
  // The logs are written at exit, by a handler registered once cuBLAS (and its runtime) is
  // loaded, so that it runs before their own exit handlers.
  static std::once_flag exit_handler;
  std::call_once(exit_handler, [] { std::atexit(at_exit); });
  const RealCublas& real = real_cublas();
  if (!real.sgemm) return CUBLAS_STATUS_NOT_INITIALIZED;  // no cuBLAS in the process to call
  const char* reason = type_reason ? type_reason : serve(g, real);
  if (call_log_on())
    log_call({g.entry, reason == nullptr, reason ? reason : "", g.transa, g.transb, g.m, g.n, g.k,
              g.lda, g.ldb, g.ldc});
  return reason ? pass(real) : CUBLAS_STATUS_SUCCESS;
}

bool fp32(cudaDataType_t a, cudaDataType_t b, cudaDataType_t c) {
  return a == CUDA_R_32F && b == CUDA_R_32F && c == CUDA_R_32F;
}

}  // namespace
}  // namespace sgt::interpose

using namespace sgt::interpose;

extern "C" {

cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
                              cublasOperation_t transb, int m, int n, int k, const float* alpha,
                              const float* A, int lda, const float* B, int ldb, const float* beta,
                              float* C, int ldc) {
  const Gemm g{
      "cublasSgemm_v2", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
  return serve_or_pass(g, nullptr, [&](const RealCublas& real) {
    return real.sgemm(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  });
}

cublasStatus_t cublasSgemmEx(cublasHandle_t handle, cublasOperation_t transa,
                             cublasOperation_t transb, int m, int n, int k, const float* alpha,
                             const void* A, cudaDataType Atype, int lda, const void* B,
                             cudaDataType Btype, int ldb, const float* beta, void* C,
                             cudaDataType Ctype, int ldc) {
  const Gemm g{
      "cublasSgemmEx", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc};
  return serve_or_pass(g, fp32(Atype, Btype, Ctype) ? nullptr : "not FP32 data",
                       [&](const RealCublas& real) {
                         return real.sgemm_ex(handle, transa, transb, m, n, k, alpha, A, Atype, lda,
                                              B, Btype, ldb, beta, C, Ctype, ldc);
                       });
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void* alpha,
                            const void* A, cudaDataType Atype, int lda, const void* B,
                            cudaDataType Btype, int ldb, const void* beta, void* C,
                            cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo) {
  const Gemm g{"cublasGemmEx", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb,
               beta,           C,      ldc};
  // FP32 compute: CUBLAS_COMPUTE_32F, its pedantic form, or the legacy cudaDataType CUDA_R_32F.
  const bool fp32_compute = computeType == CUBLAS_COMPUTE_32F ||
                            computeType == CUBLAS_COMPUTE_32F_PEDANTIC ||
                            static_cast<int>(computeType) == static_cast<int>(CUDA_R_32F);
  // The algorithm is a hint, the tensor-op ones included (CuPy passes
  // CUBLAS_GEMM_DEFAULT_TENSOR_OP with every FP32 product): with an FP32 compute type cuBLAS
  // computes those in FP32 as well (docs/interposer.md).
  const char* type_reason = !fp32(Atype, Btype, Ctype) ? "not FP32 data"
                            : !fp32_compute            ? "compute type is not FP32"
                                                       : nullptr;
  return serve_or_pass(g, type_reason, [&](const RealCublas& real) {
    return real.gemm_ex(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta,
                        C, Ctype, ldc, computeType, algo);
  });
}

}  // extern "C"
