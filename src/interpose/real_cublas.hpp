// The application's own cuBLAS, found at its first intercepted call: the functions this library
// stands in for, and the handle queries that decide whether a call may be served. All of them come
// from the one library that defines the real cublasSgemm_v2, so an application handle is never
// passed to another copy of cuBLAS.
#pragma once

#include <cublas_v2.h>

#include <string>

namespace sgt::interpose {

struct RealCublas {
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  // cublasGemmEx's C signature (C++ sees a second overload taking cudaDataType as compute type).
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const void*, const void*, cudaDataType, int, const void*, cudaDataType,
                            int, const void*, void*, cudaDataType, int, cublasComputeType_t,
                            cublasGemmAlgo_t) = nullptr;
  decltype(&cublasSgemmEx) sgemm_ex = nullptr;
  decltype(&cublasGetStream_v2) get_stream = nullptr;
  decltype(&cublasGetPointerMode_v2) get_pointer_mode = nullptr;
  decltype(&cublasGetMathMode) get_math_mode = nullptr;
  std::string library;  // the path of the library they come from
  std::string error;    // why they could not be found (then every pointer is null)
};

// Found once, on first use: the next definition of cublasSgemm_v2 after this library in the
// global scope (RTLD_NEXT), else a libcublas the process has loaded privately (RTLD_LOCAL, as
// Python extensions load theirs).
const RealCublas& real_cublas();

}  // namespace sgt::interpose
