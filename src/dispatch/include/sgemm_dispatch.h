/* libsgemm_dispatch: SGEMM served by kernels tuned with sgemm-tune, falling back to cuBLAS.
 * Column-major, cuBLAS semantics; alpha and beta are host pointers. A drop-in for cublasSgemm. */
#ifndef SGEMM_DISPATCH_H
#define SGEMM_DISPATCH_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#if defined(SGEMM_DISPATCH_BUILDING)
#define SGEMM_API __attribute__((visibility("default")))
#else
#define SGEMM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sgemmContext* sgemmHandle_t;

/* In C++ the enumerations below have int as their underlying type: any int a caller passes is
 * then a value of the type (as in C), which the library checks and rejects, rather than
 * undefined behaviour. */
#ifdef __cplusplus
#define SGEMM_ENUM_BASE : int
#else
#define SGEMM_ENUM_BASE
#endif

typedef enum SGEMM_ENUM_BASE {
  SGEMM_STATUS_SUCCESS = 0,
  SGEMM_STATUS_INVALID_VALUE = 1,
  SGEMM_STATUS_NOT_INITIALIZED = 2,
  SGEMM_STATUS_DATABASE_ERROR = 3,
  SGEMM_STATUS_CUDA_ERROR = 4,
  SGEMM_STATUS_COMPILE_ERROR = 5,
  SGEMM_STATUS_CUBLAS_ERROR = 6,
  SGEMM_STATUS_NOT_SUPPORTED = 7,
  SGEMM_STATUS_INTERNAL_ERROR = 8
} sgemmStatus_t;

/* The values of cublasOperation_t. For real data the conjugate transpose is the transpose. */
typedef enum SGEMM_ENUM_BASE { SGEMM_OP_N = 0, SGEMM_OP_T = 1, SGEMM_OP_C = 2 } sgemmOperation_t;
#undef SGEMM_ENUM_BASE

/* Opens the tuning database read-only. db_path NULL: $SGEMM_TUNER_DB, then the installed default;
 * with neither, the handle serves every call through cuBLAS (sgemmDescribe says so). A database
 * that is named but cannot be read gives SGEMM_STATUS_DATABASE_ERROR. */
SGEMM_API sgemmStatus_t sgemmCreate(sgemmHandle_t* handle, const char* db_path);
SGEMM_API sgemmStatus_t sgemmDestroy(sgemmHandle_t handle);
/* Later calls on this handle are enqueued on the stream (0: the legacy default stream). */
SGEMM_API sgemmStatus_t sgemmSetStream(sgemmHandle_t handle, cudaStream_t stream);
/* C = alpha op(A) op(B) + beta C, exactly as cublasSgemm. Any number of threads may call at once,
 * on one handle or several, on one stream or many; see docs/dispatcher.md. */
SGEMM_API sgemmStatus_t sgemmSgemm(sgemmHandle_t handle, sgemmOperation_t transa,
                                   sgemmOperation_t transb, int m, int n, int k, const float* alpha,
                                   const float* A, int lda, const float* B, int ldb,
                                   const float* beta, float* C, int ldc);
/* What sgemmSgemm would run for this problem, as one JSON object (source: exact|nearest|cublas,
 * family, config, expected time). Pointers are taken as 16-byte aligned. */
SGEMM_API sgemmStatus_t sgemmDescribe(sgemmHandle_t handle, sgemmOperation_t transa,
                                      sgemmOperation_t transb, int m, int n, int k, int lda,
                                      int ldb, int ldc, char* buf, size_t buflen);
SGEMM_API const char* sgemmGetStatusString(sgemmStatus_t status);

/* Extensions (beyond the cublasSgemm-shaped contract). */

/* sgemmSgemm on the given stream instead of the handle's: for threads that share a handle but
 * not a stream (sgemmSetStream is one setting of the handle, as cublasSetStream). */
SGEMM_API sgemmStatus_t sgemmSgemmOnStream(sgemmHandle_t handle, cudaStream_t stream,
                                           sgemmOperation_t transa, sgemmOperation_t transb, int m,
                                           int n, int k, const float* alpha, const float* A,
                                           int lda, const float* B, int ldb, const float* beta,
                                           float* C, int ldc);

/* Counts the calls of problems with no tuned entry (served by a nearest neighbour or cuBLAS) and
 * writes them at sgemmDestroy to path as a shape-list CSV, m,n,k,transa,transb,lda,ldb,ldc,calls,
 * heaviest (calls x 2mnk) first. NULL or "" turns it off. $SGEMM_DISPATCH_MISS_LOG sets it at
 * sgemmCreate. sgemmDestroy returns SGEMM_STATUS_INVALID_VALUE (the handle is still released)
 * when the file cannot be written. */
SGEMM_API sgemmStatus_t sgemmSetMissLog(sgemmHandle_t handle, const char* path);

/* Writes the miss log now, if one is set (sgemmDestroy writes it too): for processes that end
 * without destroying their handle. SGEMM_STATUS_INVALID_VALUE when the file cannot be written. */
SGEMM_API sgemmStatus_t sgemmWriteMissLog(sgemmHandle_t handle);

/* sgemmSgemmOnStream where the handle has a route of its own for the problem (a tuned kernel or
 * cuBLASLt algorithm, for the problem itself or a neighbour); elsewhere (cuBLAS's route, k == 0,
 * alpha == 0) it enqueues nothing and returns SGEMM_STATUS_NOT_SUPPORTED, for the caller to run its
 * own cuBLAS. Untuned problems are counted by the miss log as with sgemmSgemm. For interposers
 * (libsgemm_cublas.so), whose fallback is the application's cuBLAS. */
SGEMM_API sgemmStatus_t sgemmSgemmTunedOnStream(sgemmHandle_t handle, cudaStream_t stream,
                                                sgemmOperation_t transa, sgemmOperation_t transb,
                                                int m, int n, int k, const float* alpha,
                                                const float* A, int lda, const float* B, int ldb,
                                                const float* beta, float* C, int ldc);

#ifdef __cplusplus
}
#endif

#endif /* SGEMM_DISPATCH_H */
