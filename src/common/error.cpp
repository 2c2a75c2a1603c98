// Error messages for the throwing checks in error.hpp.
#include "common/error.hpp"

#include <cublas_api.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nvrtc.h>

#include "cuda/driver_api.hpp"

namespace sgt {
namespace {

std::string where(const char* call, const char* file, int line) {
  return fmt::format("{}:{}: {}", file, line, call);
}

}  // namespace

void throw_cuda_error(int code, const char* call, const char* file, int line) {
  const auto err = static_cast<cudaError_t>(code);
  throw Error(ErrorKind::cuda, fmt::format("{} failed: {} ({})", where(call, file, line),
                                           cudaGetErrorName(err), cudaGetErrorString(err)));
}

void throw_driver_error(int code, const char* call, const char* file, int line) {
  throw Error(ErrorKind::cuda,
              fmt::format("{} failed: {}", where(call, file, line), driver_error_name(code)));
}

void throw_nvrtc_error(int code, const char* call, const char* file, int line) {
  throw Error(ErrorKind::compile, fmt::format("{} failed: {}", where(call, file, line),
                                              nvrtcGetErrorString(static_cast<nvrtcResult>(code))));
}

void throw_cublas_error(int code, const char* call, const char* file, int line) {
  throw Error(ErrorKind::cublas,
              fmt::format("{} failed: {}", where(call, file, line),
                          cublasGetStatusName(static_cast<cublasStatus_t>(code))));
}

bool cuda_ok_noexcept(int code) noexcept { return code == 0; }

}  // namespace sgt
