// L2 flush by overwriting twice its capacity.
#include "measure/l2_flush.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace sgt {

L2Flusher::L2Flusher(long long l2_bytes)
    : buffer_(static_cast<std::size_t>(std::max(2 * l2_bytes, 1LL << 20))) {}

void L2Flusher::flush(cudaStream_t stream) {
  value_ = (value_ + 1) & 0xff;
  SGT_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), value_, buffer_.bytes(), stream));
}

}  // namespace sgt
