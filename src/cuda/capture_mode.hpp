// Stream capture and the calling thread: whether a stream is being captured into a graph, and a
// scope in which this thread may make calls that global capture mode forbids (an allocation, a
// module load) without invalidating another stream's capture.
#pragma once

#include <cuda_runtime_api.h>

#include "common/error.hpp"

namespace sgt {

// True while the stream is being captured, also when that capture was already invalidated (work
// enqueued then fails, which is the caller's error to see).
inline bool is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  SGT_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

// For the scope's lifetime this thread's capture interaction mode is relaxed; the previous mode
// comes back at its end. Only for one-time work (first calls), never around enqueued work.
class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode() { swapped_ = cudaThreadExchangeStreamCaptureMode(&mode_) == cudaSuccess; }
  ~RelaxedCaptureMode() {
    if (swapped_) cudaThreadExchangeStreamCaptureMode(&mode_);
  }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
  bool swapped_ = false;
};

}  // namespace sgt
