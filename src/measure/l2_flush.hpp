// Evicts the L2 cache before a cold sample: a memset of a buffer twice the L2 size, allocated once.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda/device_buffer.hpp"

namespace sgt {

class L2Flusher {
 public:
  explicit L2Flusher(long long l2_bytes);  // allocates 2 x l2_bytes on the current device

  // Enqueues the memset on the stream; call outside the timed region. The byte value changes
  // each call so no flush can be elided as a no-op.
  void flush(cudaStream_t stream);
  std::size_t bytes() const noexcept { return buffer_.bytes(); }

 private:
  DeviceBuffer<unsigned char> buffer_;
  int value_ = 0;
};

}  // namespace sgt
