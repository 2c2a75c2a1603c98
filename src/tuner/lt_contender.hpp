// cuBLASLt's own algorithms as contenders for a problem's winner: the heuristic's top K, each
// verified like a candidate and screened; the fastest correct one joins the confirmation rounds,
// where it has to beat cuBLAS and the own finalists beyond the spread like any finalist.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuda/cublaslt_gemm.hpp"
#include "measure/operand_rotation.hpp"
#include "measure/timer.hpp"
#include "verify/gemm_checker.hpp"

namespace sgt {

// One correct algorithm's screening.
struct LtScreened {
  int index = -1;  // into the plan's algorithms
  Measurement measurement;
};

struct LtContender {
  std::optional<CublasLtPlan> plan;
  int index = -1;                    // the plan's fastest correct algorithm; -1: none
  double screen_us = 0;              // its screening median
  std::vector<LtScreened> screened;  // every correct algorithm, in the plan's order
  std::string note;                  // why there is none
};

// How many of cuBLASLt's algorithms contend: the heuristic's top `top_k`, its first algorithm at up
// to `split_variants` other split-K counts (CublasLtGemm::add_split_k_variants), and up to
// `config_variants` other tiles, stages and split counts of the listed ids
// (CublasLtGemm::add_configuration_variants).
struct LtSearch {
  int top_k = 8;
  int split_variants = 0;
  int config_variants = 64;  // as TuneOptions::lt_config_variants
};

// Screens the correct algorithms of the search on the timing data (the checker holds it again on
// return). Never throws for an algorithm or a plan cuBLASLt rejects.
LtContender screen_lt_algorithms(const CublasLtGemm& lt, const ProblemKey& key,
                                 const LtSearch& search, GemmChecker& checker, Timer& timer,
                                 const OperandRotation& operands, cudaStream_t stream, float alpha,
                                 float beta, std::uint64_t timing_seed);

}  // namespace sgt
