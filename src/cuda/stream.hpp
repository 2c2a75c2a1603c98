// Move-only owners of a CUDA stream and a CUDA event.
#pragma once

#include <cuda_runtime_api.h>

#include <utility>

#include "common/error.hpp"

namespace sgt {

class Stream {
 public:
  Stream() { SGT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (stream_) SGT_CUDA_CHECK_NOEXCEPT(cudaStreamDestroy(stream_));
  }
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept {
    std::swap(stream_, other.stream_);
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const noexcept { return stream_; }
  void synchronize() const { SGT_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event() { SGT_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_) SGT_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(event_));
  }
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept {
    std::swap(event_, other.event_);
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const noexcept { return event_; }
  void record(cudaStream_t stream) { SGT_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { SGT_CUDA_CHECK(cudaEventSynchronize(event_)); }
  // Milliseconds from start to this event, both recorded and complete.
  float elapsed_ms_since(const Event& start) const {
    float ms = 0;
    SGT_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace sgt
