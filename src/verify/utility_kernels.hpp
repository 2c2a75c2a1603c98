// Device-side helpers for verification and test data (kernel_templates/utility.cu, NVRTC-built
// once per device): random fills, NaN poisoning and error norms.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/device_buffer.hpp"
#include "cuda/module.hpp"
#include "verify/tolerance.hpp"

namespace sgt {

class UtilityKernels {
 public:
  explicit UtilityKernels(const std::string& arch);  // compiles and loads on the current device

  void fill_uniform(cudaStream_t s, float* x, std::size_t count, std::uint64_t seed) const;
  void fill_integers(cudaStream_t s, float* x, std::size_t count, std::uint64_t seed, int lo,
                     int hi) const;
  // Every element becomes NaN (all bits set), so unwritten outputs are caught.
  static void poison(cudaStream_t s, float* x, std::size_t count);

  // These synchronize the stream and return host values.
  double sum_squares(cudaStream_t s, const float* x, int ld, int rows, int cols) const;
  DiffNorms diff(cudaStream_t s, const float* c, int ldc, const float* ref, int ldr, int rows,
                 int cols) const;

 private:
  Module module_;
  CUfunction fill_uniform_ = nullptr, fill_integers_ = nullptr;
  CUfunction diff_norms_ = nullptr, sum_squares_ = nullptr;
  DeviceBuffer<double> scratch_;  // 4 accumulators for the norm kernels
};

}  // namespace sgt
