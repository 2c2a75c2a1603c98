// Measures one problem for `sgemm-tune bench`: verifies the dispatcher and each of cuBLASLt's
// top algorithms against cuBLAS, then times them with cuBLAS in the same interleaved rounds.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cli/bench_row.hpp"
#include "config/shape_list.hpp"
#include "config/tuning_settings.hpp"
#include "cuda/cublas_handle.hpp"
#include "cuda/cublaslt_gemm.hpp"
#include "measure/timer.hpp"
#include "verify/gemm_checker.hpp"
#include "verify/utility_kernels.hpp"

namespace sgt::cli {

// What every problem of a bench run shares; everything is owned by the caller.
struct BenchContext {
  const TuningSettings& settings;
  cudaStream_t stream;
  const CublasHandle& cublas;     // default math: what an application's cublasSgemm does
  const CublasHandle& reference;  // pedantic: the verification reference
  const UtilityKernels& utility;
  Timer& timer;
  const CublasLtGemm* lt = nullptr;  // null: no cuBLASLt comparison
  int lt_algos = 0;                  // top K asked of cuBLASLt's heuristic
  double peak_tflops = 0, copy_tbps = 0;
  std::uint64_t seed = 0;
};

// The row of one problem (route left empty: the caller knows how the dispatcher is asked).
// `dispatched` runs the dispatcher. Kernel order in the rounds: cuBLAS, dispatcher, then the
// cuBLASLt algorithms that passed verification. A cuBLASLt plan or algorithm that fails is noted
// in the row, never fatal.
BenchRow bench_problem(const BenchContext& ctx, const Shape& shape, const GemmFn& dispatched);

}  // namespace sgt::cli
