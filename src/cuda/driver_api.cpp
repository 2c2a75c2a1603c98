// Looks up each driver function once, thread-safely, on first use.
#include "cuda/driver_api.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <mutex>

#include "common/error.hpp"

namespace sgt {
namespace {

// Null when the driver has no such entry point.
template <typename Fn>
Fn find(const char* name) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found{};
  // 12000: the ABI version of the signatures declared in driver_api.hpp.
  SGT_CUDA_CHECK(
      cudaGetDriverEntryPointByVersion(name, &address, 12000, cudaEnableDefault, &found));
  return found == cudaDriverEntryPointSuccess ? reinterpret_cast<Fn>(address) : nullptr;
}

template <typename Fn>
void lookup(const char* name, Fn& fn) {
  fn = find<Fn>(name);
  if (!fn) throw Error(ErrorKind::cuda, fmt::format("CUDA driver has no entry point {}", name));
}

DriverApi load() {
  DriverApi api;
  lookup("cuModuleLoadDataEx", api.cuModuleLoadDataEx);
  lookup("cuModuleUnload", api.cuModuleUnload);
  lookup("cuModuleGetFunction", api.cuModuleGetFunction);
  lookup("cuFuncGetAttribute", api.cuFuncGetAttribute);
  lookup("cuFuncSetAttribute", api.cuFuncSetAttribute);
  lookup("cuLaunchKernel", api.cuLaunchKernel);
  api.cuLaunchKernelEx = find<decltype(api.cuLaunchKernelEx)>("cuLaunchKernelEx");
  lookup("cuGetErrorName", api.cuGetErrorName);
  lookup("cuCtxGetCurrent", api.cuCtxGetCurrent);
  lookup("cuTensorMapEncodeTiled", api.cuTensorMapEncodeTiled);
  return api;
}

}  // namespace

const DriverApi& driver() {
  static std::once_flag once;
  static DriverApi api;
  static std::string failure;
  std::call_once(once, [] {
    try {
      api = load();
    } catch (const Error& e) {
      failure = e.what();
    }
  });
  if (!failure.empty()) throw Error(ErrorKind::cuda, failure);
  return api;
}

std::string driver_error_name(int code) {
  const char* name = nullptr;
  try {
    const DriverApi& api = driver();
    if (api.cuGetErrorName(static_cast<CUresult>(code), &name) == CUDA_SUCCESS && name) return name;
  } catch (const Error&) {
  }
  return fmt::format("CUresult {}", code);
}

}  // namespace sgt
