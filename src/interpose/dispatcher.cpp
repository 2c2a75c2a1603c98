// Opening the dispatcher at run time. The handle is never destroyed: at exit the CUDA runtime may
// already be gone, and the process's memory is released anyway.
#include "interpose/dispatcher.hpp"

#include <dlfcn.h>

#include <atomic>
#include <filesystem>

namespace sgt::interpose {
namespace {

void* open_library() {
  // SGEMM_DISPATCH_SONAME: the dispatcher's file name, from the build (libsgemm_dispatch.so.N).
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&dispatcher), &self) && self.dli_fname) {
    const auto beside = std::filesystem::path(self.dli_fname).parent_path() / SGEMM_DISPATCH_SONAME;
    if (void* lib = dlopen(beside.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
  }
  return dlopen(SGEMM_DISPATCH_SONAME, RTLD_NOW | RTLD_LOCAL);
}

Dispatcher open() {
  Dispatcher d;
  void* lib = open_library();
  if (!lib) {
    const char* why = dlerror();
    d.error = std::string("cannot open " SGEMM_DISPATCH_SONAME ": ") + (why ? why : "");
    return d;
  }
  const auto create = reinterpret_cast<decltype(&sgemmCreate)>(dlsym(lib, "sgemmCreate"));
  const auto status =
      reinterpret_cast<decltype(&sgemmGetStatusString)>(dlsym(lib, "sgemmGetStatusString"));
  d.sgemm_tuned =
      reinterpret_cast<decltype(&sgemmSgemmTunedOnStream)>(dlsym(lib, "sgemmSgemmTunedOnStream"));
  d.write_miss_log =
      reinterpret_cast<decltype(&sgemmWriteMissLog)>(dlsym(lib, "sgemmWriteMissLog"));
  if (!create || !status || !d.sgemm_tuned || !d.write_miss_log) {
    d = Dispatcher{};
    d.error = SGEMM_DISPATCH_SONAME " lacks the interposer's entry points";
    return d;
  }
  if (const sgemmStatus_t s = create(&d.handle, nullptr); s != SGEMM_STATUS_SUCCESS) {
    d.handle = nullptr;
    d.error = std::string("sgemmCreate: ") + status(s);
  }
  return d;
}

std::atomic<const Dispatcher*> opened{nullptr};

}  // namespace

const Dispatcher& dispatcher() {
  // Never destroyed: the exit handler reads it after static destructors may have run.
  static const Dispatcher* d = new Dispatcher(open());
  opened.store(d, std::memory_order_release);
  return *d;
}

const Dispatcher* dispatcher_if_open() { return opened.load(std::memory_order_acquire); }

}  // namespace sgt::interpose
