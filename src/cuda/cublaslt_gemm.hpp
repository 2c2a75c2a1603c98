// SGEMM through cuBLASLt: a handle with one workspace, per-problem plans holding the matmul and
// layout descriptors and the heuristic's top algorithms, and running any of those algorithms.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "space/problem.hpp"

namespace sgt {

namespace detail {
template <typename Handle, cublasStatus_t (*Destroy)(Handle)>
struct LtDeleter {
  void operator()(Handle h) const noexcept { Destroy(h); }
};
template <typename Handle, cublasStatus_t (*Destroy)(Handle)>
using LtPtr = std::unique_ptr<std::remove_pointer_t<Handle>, LtDeleter<Handle, Destroy>>;
}  // namespace detail

// One algorithm the heuristic returned for a plan, as cuBLASLt describes it.
struct LtAlgorithm {
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace_bytes = 0;  // what it needs, at most the handle's workspace
  float waves = 0;                  // the heuristic's utilization estimate (1: one full wave)
  std::string config;               // "id=21 tile=18 stages=0 splitk=1 reduction=0 swizzle=0"
};

// C = alpha op(A) op(B) + beta C for one problem: descriptors and the heuristic's candidates.
class CublasLtPlan {
 public:
  const ProblemKey& problem() const noexcept { return problem_; }
  // In the heuristic's order, best estimate first.
  const std::vector<LtAlgorithm>& algorithms() const noexcept { return algorithms_; }
  int size() const noexcept { return static_cast<int>(algorithms_.size()); }
  // Every operand's base pointer must be aligned to this many bytes (4 x the problem's align).
  std::size_t alignment_bytes() const noexcept { return alignment_bytes_; }

 private:
  friend class CublasLtGemm;
  using Desc = detail::LtPtr<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
  using Layout = detail::LtPtr<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;

  ProblemKey problem_;
  std::size_t alignment_bytes_ = 4;
  Desc desc_;
  Layout a_, b_, c_;
  std::vector<LtAlgorithm> algorithms_;
};

// One split-K count cuBLASLt accepted for an algorithm, with the waves its grid then makes.
struct LtSplitTrial {
  int splits = 1;
  float waves = 0;
};
// The split counts worth timing: of the trials, those whose last wave is at least `fill` full
// (waves / ceil(waves)) and that make at least `fill` of one wave, fewest splits first (less
// partial-sum traffic), at most `count`.
std::vector<int> choose_split_counts(const std::vector<LtSplitTrial>& trials, int count,
                                     double fill = 0.85);

// One configuration cuBLASLt accepted for a problem beyond its heuristic's list: an algorithm
// id's tile and stages at a split-K count. id_rank is where the id first appears in the
// heuristic's list, order where cuBLASLt lists the tile and stages among the id's capabilities.
struct LtConfigTrial {
  int splits = 1;
  int id_rank = 0;
  int order = 0;
};
// The configurations worth timing, as indices into `trials`, at most `count`: unsplit ones first,
// then by split count, each count in the heuristic's order of ids, then cuBLASLt's order of tiles
// and stages. Measured on 57 problems (H100, docs/findings.md, "cuBLASLt's tiles beyond its
// heuristic"): the configurations that beat the heuristic's were unsplit or split 2-4 ways.
std::vector<std::size_t> choose_configurations(const std::vector<LtConfigTrial>& trials, int count);

// A cuBLASLt algorithm as the text a tuning database stores for a "cublaslt" winner: its
// readable configuration, then the opaque cublasLtMatmulAlgo_t in hex, which cuBLASLt documents as
// trivially serializable for reuse with the same library version:
// "id=21,tile=18,stages=0,splitk=1,reduction=0,swizzle=0,algo=<128 hex digits>".
std::string lt_algorithm_config(const cublasLtMatmulAlgo_t& algo);
// The algorithm of such a text. Throws sgt::Error(invalid_value) when it holds no well-formed
// "algo=" field.
cublasLtMatmulAlgo_t parse_lt_algorithm_config(const std::string& config);

class CublasLtGemm {
 public:
  static constexpr std::size_t kDefaultWorkspaceBytes = std::size_t(32) << 20;
  static constexpr int kDefaultTopK = 8;

  // Creates the cuBLASLt handle and allocates the workspace, once for every plan and call.
  explicit CublasLtGemm(std::size_t workspace_bytes = kDefaultWorkspaceBytes);
  // Creates the handle only: every run() passes its own workspace, and plans keep to algorithms
  // that need at most max_workspace_bytes. Allocates no device memory.
  struct CallerWorkspace {};
  CublasLtGemm(CallerWorkspace, std::size_t max_workspace_bytes);

  // The heuristic's top `top_k` algorithms for the problem, restricted to those that fit the
  // workspace and the problem's alignment class. Pedantic FP32 math: CUBLAS_COMPUTE_32F, never
  // CUBLAS_COMPUTE_32F_FAST_TF32, so results are comparable with the FP32 reference.
  // Throws sgt::Error(invalid_value) for a malformed or empty problem or top_k < 1,
  // sgt::Error(not_supported) when the heuristic returns no algorithm, sgt::Error(cublas) when a
  // cuBLASLt call fails.
  CublasLtPlan plan(const ProblemKey& problem, int top_k = kDefaultTopK) const;

  // Appends to the plan its first algorithm at up to `count` other split-K counts, when that
  // algorithm supports split-K and its own grid leaves the last wave under 85% full (a few output
  // tiles over a long K: the heuristic's split count can leave most SMs idle in a second wave).
  // The counts are those choose_split_counts prefers among what cuBLASLt accepts for the problem
  // and the workspace (cublasLtMatmulAlgoCheck). Adds nothing otherwise.
  void add_split_k_variants(CublasLtPlan& plan, int count) const;

  // Appends to the plan up to `count` configurations of its algorithms' ids that its heuristic did
  // not list: every tile and stages each id's capabilities name, unsplit and at the split counts
  // add_split_k_variants tries (at most K / 8), as choose_configurations orders them, each
  // accepted by cublasLtMatmulAlgoCheck for the problem and the workspace.
  void add_configuration_variants(CublasLtPlan& plan, int count) const;

  // A plan of one given algorithm (a stored winner), checked by cuBLASLt for this problem, this
  // library and the handle's workspace. Throws sgt::Error(not_supported) when cuBLASLt rejects it,
  // and as plan() otherwise.
  CublasLtPlan plan_for(const ProblemKey& problem, const cublasLtMatmulAlgo_t& algo) const;

  // Enqueues algorithm `index` of the plan on the stream. Throws sgt::Error(invalid_value) for an
  // index out of range, a null operand or one not aligned to plan.alignment_bytes(), and
  // sgt::Error(cublas) when cublasLtMatmul fails.
  void run(const CublasLtPlan& plan, int index, cudaStream_t stream, float alpha, const float* a,
           const float* b, float beta, float* c) const;
  // The same with the caller's workspace, at least the algorithm's workspace_bytes; throws
  // sgt::Error(internal) when it is smaller.
  void run(const CublasLtPlan& plan, int index, cudaStream_t stream, float alpha, const float* a,
           const float* b, float beta, float* c, void* workspace,
           std::size_t workspace_bytes) const;

  std::size_t workspace_bytes() const noexcept { return workspace_.bytes(); }
  std::size_t max_workspace_bytes() const noexcept { return max_workspace_bytes_; }

 private:
  // The descriptors of a plan (no algorithm yet), after validating the problem.
  CublasLtPlan describe_problem(const ProblemKey& problem) const;
  // The algorithm as cuBLASLt accepts it for the plan's problem within the workspace, else none.
  std::optional<LtAlgorithm> accepted(const CublasLtPlan& plan,
                                      const cublasLtMatmulAlgo_t& algo) const;

  detail::LtPtr<cublasLtHandle_t, cublasLtDestroy> handle_;
  std::size_t max_workspace_bytes_ = 0;
  DeviceBuffer<char> workspace_;  // empty for a CallerWorkspace handle
};

}  // namespace sgt
