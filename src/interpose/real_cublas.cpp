// Finding the application's cuBLAS without loading one of our own: this library has no link-time
// dependency on cuBLAS, so the process keeps the copy and version it would load without us.
#include "interpose/real_cublas.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <mutex>

namespace sgt::interpose {
namespace {

// A loaded libcublas.so* other than the one holding `self`, for libraries opened with RTLD_LOCAL.
std::string loaded_cublas_path() {
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const char* name = info->dlpi_name;
        const char* base = name ? std::strrchr(name, '/') : nullptr;
        base = base ? base + 1 : name;
        if (base && std::strncmp(base, "libcublas.so", 12) == 0) {
          *static_cast<std::string*>(data) = name;
          return 1;
        }
        return 0;
      },
      &found);
  return found;
}

template <typename F>
void bind(void* library, const char* name, F& fn) {
  fn = reinterpret_cast<F>(dlsym(library, name));
}

RealCublas find() {
  RealCublas real;
  void* sgemm = dlsym(RTLD_NEXT, "cublasSgemm_v2");
  void* library = nullptr;
  Dl_info info{};
  if (sgemm && dladdr(sgemm, &info) && info.dli_fname) {
    real.library = info.dli_fname;
  } else {
    real.library = loaded_cublas_path();
  }
  if (real.library.empty()) {
    real.error = "no libcublas is loaded in this process";
    return real;
  }
  // Already loaded: this only takes a reference, never a second copy.
  library = dlopen(real.library.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!library) {
    real.error = "cannot reopen " + real.library;
    return real;
  }
  bind(library, "cublasSgemm_v2", real.sgemm);
  bind(library, "cublasGemmEx", real.gemm_ex);
  bind(library, "cublasSgemmEx", real.sgemm_ex);
  bind(library, "cublasGetStream_v2", real.get_stream);
  bind(library, "cublasGetPointerMode_v2", real.get_pointer_mode);
  bind(library, "cublasGetMathMode", real.get_math_mode);
  if (!real.sgemm || !real.gemm_ex || !real.sgemm_ex || !real.get_stream ||
      !real.get_pointer_mode || !real.get_math_mode) {
    real = RealCublas{};
    real.error = "cuBLAS entry points missing";
  }
  return real;
}

}  // namespace

const RealCublas& real_cublas() {
  // Never destroyed: the exit handler reads it after static destructors may have run.
  static const RealCublas* real = new RealCublas(find());
  return *real;
}

}  // namespace sgt::interpose
