// Verification of cuBLASLt's algorithms for one problem, as every kernel is verified: against
// cuBLAS (pedantic FP32) on fresh random data, NaN-poisoned C, beta 0 and beta != 0.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cublaslt_gemm.hpp"
#include "verify/gemm_checker.hpp"

namespace sgt {

struct LtAlgorithmCheck {
  int index = 0;         // into the plan's algorithms
  bool correct = false;  // passed every check
  std::string message;   // the check's message, or why the call failed
};

// Checks every algorithm of the plan on the checker's data from seed (one set of references). A
// call that fails (e.g. not supported at run time) disqualifies that algorithm only.
std::vector<LtAlgorithmCheck> check_lt_algorithms(const CublasLtGemm& lt, const CublasLtPlan& plan,
                                                  GemmChecker& checker, cudaStream_t stream,
                                                  std::uint64_t seed);

}  // namespace sgt
