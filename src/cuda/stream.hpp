// Move-only owners of a CUDA stream and a CUDA event.
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

#include "common/error.hpp"

namespace sgt {

// Owns one runtime handle and destroys it with `destroy`; movable, not copyable.
template <class Handle, cudaError_t (*destroy)(Handle)>
class CudaHandle {
 public:
  CudaHandle() = default;
  ~CudaHandle() {
    if (handle_) SGT_CUDA_CHECK_NOEXCEPT(destroy(handle_));
  }
  CudaHandle(CudaHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  CudaHandle& operator=(CudaHandle&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  CudaHandle(const CudaHandle&) = delete;
  CudaHandle& operator=(const CudaHandle&) = delete;

  Handle get() const noexcept { return handle_; }

 protected:
  Handle handle_ = nullptr;
};

class Stream : public CudaHandle<cudaStream_t, cudaStreamDestroy> {
 public:
  Stream() { SGT_CUDA_CHECK(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking)); }
  void synchronize() const { SGT_CUDA_CHECK(cudaStreamSynchronize(handle_)); }
};

class Event : public CudaHandle<cudaEvent_t, cudaEventDestroy> {
 public:
  Event() { SGT_CUDA_CHECK(cudaEventCreate(&handle_)); }
  void record(cudaStream_t stream) { SGT_CUDA_CHECK(cudaEventRecord(handle_, stream)); }
  void synchronize() const { SGT_CUDA_CHECK(cudaEventSynchronize(handle_)); }
  // Milliseconds from start to this event, both recorded and complete.
  float elapsed_ms_since(const Event& start) const {
    float ms = 0;
    SGT_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), handle_));
    return ms;
  }
};

}  // namespace sgt
