// Move-only owner of a device allocation.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "common/error.hpp"
#include "cuda/stream.hpp"

namespace sgt {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count > 0) SGT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const noexcept { return data_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  // Sets every byte to zero and waits for it, on a stream of its own: no other work is waited
  // for, and work enqueued afterwards on any stream sees zeros.
  void zero() {
    if (!data_) return;
    const Stream stream;
    SGT_CUDA_CHECK(cudaMemsetAsync(data_, 0, bytes(), stream.get()));
    stream.synchronize();
  }

  void reset() noexcept {
    if (data_) SGT_CUDA_CHECK_NOEXCEPT(cudaFree(data_));
    data_ = nullptr;
    count_ = 0;
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace sgt
