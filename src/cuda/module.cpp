// Module loading with the JIT error log kept, so a bad cubin explains itself.
#include "cuda/module.hpp"

#include <fmt/format.h>

#include <utility>

#include "common/error.hpp"
#include "cuda/driver_api.hpp"

namespace sgt {

Module::Module(std::string_view cubin) {
  char error_log[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log, reinterpret_cast<void*>(sizeof(error_log))};
  const std::string image(cubin);  // the driver wants a NUL-terminated buffer it may read fully
  const CUresult rc = driver().cuModuleLoadDataEx(&module_, image.data(), 2, options, values);
  if (rc != CUDA_SUCCESS) {
    module_ = nullptr;
    throw Error(ErrorKind::cuda,
                fmt::format("cuModuleLoadDataEx failed: {} {}", driver_error_name(rc), error_log));
  }
}

Module::~Module() {
  if (module_) driver().cuModuleUnload(module_);
}

Module::Module(Module&& other) noexcept : module_(std::exchange(other.module_, nullptr)) {}

Module& Module::operator=(Module&& other) noexcept {
  std::swap(module_, other.module_);
  return *this;
}

CUfunction Module::function(const char* name) const {
  CUfunction f = find_function(name);
  if (!f) throw Error(ErrorKind::cuda, fmt::format("module has no kernel '{}'", name));
  return f;
}

CUfunction Module::find_function(const char* name) const {
  CUfunction f = nullptr;
  if (driver().cuModuleGetFunction(&f, module_, name) != CUDA_SUCCESS) return nullptr;
  return f;
}

}  // namespace sgt
