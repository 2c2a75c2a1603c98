// A compiled SGEMM configuration loaded on the current device, and how to launch it.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <mutex>
#include <string_view>

#include "cuda/module.hpp"
#include "sgemm_args.h"
#include "space/family.hpp"

namespace sgt {

class SgemmKernel {
 public:
  explicit SgemmKernel(std::string_view cubin);

  // Enqueues sgemm_pack (sgemm_pack_transposed) for packed operands, sgemm_main, and sgemm_reduce
  // for split-K with has_reduce, on the stream. The caller provides a workspace of
  // geometry.workspace_floats in args.workspace, zeroed when it was allocated (the kernels leave
  // its tile counters at zero). No allocation, no synchronization.
  void launch(const LaunchGeometry& geometry, SgemmArgs args, cudaStream_t stream) const;

  int attribute(CUfunction_attribute attr) const;  // of sgemm_main

 private:
  Module module_;
  CUfunction main_ = nullptr;
  mutable CUfunction reduce_ = nullptr;
  mutable std::once_flag reduce_once_;
  mutable CUfunction pack_ = nullptr, pack_transposed_ = nullptr;
  mutable std::once_flag pack_once_, pack_transposed_once_;
  mutable std::atomic<int> smem_limit_{48 * 1024};  // dynamic shared memory allowed so far
  mutable std::mutex smem_mutex_;
};

// The arguments of one launch on problem p (launch sets the K split from the geometry).
SgemmArgs problem_args(const ProblemKey& p, const float* a, const float* b, float* c,
                       float* workspace, float alpha, float beta);

}  // namespace sgt
