// cuBLASLt SGEMM: column-major layouts with the problem's leading dimensions, transposes on the
// matmul descriptor, C updated in place (D = C).
#include "cuda/cublaslt_gemm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "common/error.hpp"

namespace sgt {
namespace {

cublasOperation_t to_cublas(Op o) { return o == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }

// An attribute of an algorithm's configuration or capabilities (`get` is cuBLASLt's getter of
// either). One this cuBLASLt does not know reads as 0 rather than failing the plan.
template <typename T, typename Attribute>
T algo_attribute(cublasStatus_t (*get)(const cublasLtMatmulAlgo_t*, Attribute, void*, std::size_t,
                                       std::size_t*),
                 const cublasLtMatmulAlgo_t& algo, Attribute attribute) {
  T value{};
  std::size_t written = 0;
  if (get(&algo, attribute, &value, sizeof value, &written) != CUBLAS_STATUS_SUCCESS) return T{};
  return value;
}
template <typename T>
T algo_config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
  return algo_attribute<T>(cublasLtMatmulAlgoConfigGetAttribute, algo, attribute);
}
template <typename T>
T algo_capability(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t attribute) {
  return algo_attribute<T>(cublasLtMatmulAlgoCapGetAttribute, algo, attribute);
}

std::string describe(const cublasLtMatmulAlgo_t& algo) {
  return fmt::format("id={} tile={} stages={} splitk={} reduction={} swizzle={}",
                     algo_config<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID),
                     algo_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID),
                     algo_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID),
                     algo_config<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
                     algo_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME),
                     algo_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING));
}

// A grid whose last wave is this full or more gains nothing from another split count.
constexpr double kWellFilled = 0.85;
// Split counts tried: cuBLASLt's own choices for long K run from a few to a few hundred.
constexpr int kSplitCounts[] = {2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256};

double wave_fill(float waves) { return waves > 0 ? waves / std::ceil(waves) : 0.0; }

// The reduction an algorithm's splits use: its own where it splits already, else one it supports,
// partial sums in the compute type in the workspace first (what the heuristic picks for long K),
// in place next. NONE where it supports none.
std::uint32_t split_reduction_scheme(const cublasLtMatmulAlgo_t& algo) {
  const auto own = algo_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
  if (own != CUBLASLT_REDUCTION_SCHEME_NONE) return own;
  const auto mask = algo_capability<std::uint32_t>(algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK);
  for (const std::uint32_t s :
       {CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE, CUBLASLT_REDUCTION_SCHEME_INPLACE,
        CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE})
    if ((mask & s) != 0) return s;
  return CUBLASLT_REDUCTION_SCHEME_NONE;
}

// The algorithm at `splits` split-K slices summed by `scheme`; false where cuBLASLt refuses either.
bool set_split(cublasLtMatmulAlgo_t& algo, std::int32_t splits, std::uint32_t scheme) {
  return cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splits,
                                              sizeof splits) == CUBLAS_STATUS_SUCCESS &&
         cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &scheme,
                                              sizeof scheme) == CUBLAS_STATUS_SUCCESS;
}

// A capability that is a list of ids (tiles, stages); {0} (undefined) where the list is empty.
std::vector<std::uint32_t> capability_ids(const cublasLtMatmulAlgo_t& algo,
                                          cublasLtMatmulAlgoCapAttributes_t attribute) {
  std::vector<std::uint32_t> ids(256);  // more than cuBLASLt has tiles or stages
  std::size_t written = 0;
  if (cublasLtMatmulAlgoCapGetAttribute(&algo, attribute, ids.data(),
                                        ids.size() * sizeof(std::uint32_t),
                                        &written) != CUBLAS_STATUS_SUCCESS)
    written = 0;
  ids.resize(std::min(ids.size(), written / sizeof(std::uint32_t)));
  if (ids.empty()) ids.push_back(0);
  return ids;
}

bool aligned(const void* p, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

}  // namespace

CublasLtGemm::CublasLtGemm(std::size_t workspace_bytes)
    : CublasLtGemm(CallerWorkspace{}, workspace_bytes) {
  workspace_ = DeviceBuffer<char>(workspace_bytes);
}

CublasLtGemm::CublasLtGemm(CallerWorkspace, std::size_t max_workspace_bytes)
    : max_workspace_bytes_(max_workspace_bytes) {
  cublasLtHandle_t h = nullptr;
  SGT_CUBLAS_CHECK(cublasLtCreate(&h));
  handle_.reset(h);
}

CublasLtPlan CublasLtGemm::describe_problem(const ProblemKey& p) const {
  if (const std::string why = validate(p); !why.empty())
    throw Error(ErrorKind::invalid_value,
                fmt::format("cuBLASLt plan for {}: {}", p.to_string(), why));
  if (p.m == 0 || p.n == 0 || p.k == 0)
    throw Error(ErrorKind::invalid_value,
                fmt::format("cuBLASLt plan for {}: m, n and k must be at least 1", p.to_string()));
  CublasLtPlan plan;
  plan.problem_ = p;
  plan.alignment_bytes_ = 4 * static_cast<std::size_t>(p.align);

  cublasLtMatmulDesc_t desc = nullptr;
  // CUBLAS_COMPUTE_32F is true FP32 (no TF32 tensor-core rounding of the inputs).
  SGT_CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  plan.desc_.reset(desc);
  const cublasOperation_t ta = to_cublas(p.transa), tb = to_cublas(p.transb);
  SGT_CUBLAS_CHECK(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  SGT_CUBLAS_CHECK(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));

  // Layouts describe the operands as stored (before op()), column-major.
  const auto layout = [](int rows, int cols, int ld) {
    cublasLtMatrixLayout_t l = nullptr;
    SGT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, static_cast<std::uint64_t>(rows),
                                                static_cast<std::uint64_t>(cols), ld));
    return CublasLtPlan::Layout(l);
  };
  plan.a_ = layout(rows_a(p), cols_a(p), p.lda);
  plan.b_ = layout(rows_b(p), cols_b(p), p.ldb);
  plan.c_ = layout(p.m, p.n, p.ldc);
  return plan;
}

CublasLtPlan CublasLtGemm::plan(const ProblemKey& p, int top_k) const {
  if (top_k < 1)
    throw Error(ErrorKind::invalid_value,
                fmt::format("cuBLASLt plan for {}: top_k must be at least 1, got {}", p.to_string(),
                            top_k));
  CublasLtPlan plan = describe_problem(p);
  cublasLtMatmulDesc_t desc = plan.desc_.get();

  cublasLtMatmulPreference_t pref_raw = nullptr;
  SGT_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref_raw));
  const detail::LtPtr<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy> pref(pref_raw);
  const std::size_t workspace = max_workspace_bytes_;
  SGT_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      pref_raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace));
  // The heuristic otherwise assumes 256-byte aligned operands; the problem promises only its class.
  const auto alignment = static_cast<std::uint32_t>(plan.alignment_bytes_);
  for (const cublasLtMatmulPreferenceAttributes_t attribute :
       {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
    SGT_CUBLAS_CHECK(
        cublasLtMatmulPreferenceSetAttribute(pref_raw, attribute, &alignment, sizeof alignment));

  std::vector<cublasLtMatmulHeuristicResult_t> results(static_cast<std::size_t>(top_k));
  int returned = 0;
  const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(
      handle_.get(), desc, plan.a_.get(), plan.b_.get(), plan.c_.get(), plan.c_.get(), pref_raw,
      top_k, results.data(), &returned);
  // NOT_SUPPORTED means no algorithm for this configuration: reported below as an empty list.
  if (st != CUBLAS_STATUS_SUCCESS && st != CUBLAS_STATUS_NOT_SUPPORTED)
    throw_cublas_error(st, "cublasLtMatmulAlgoGetHeuristic", __FILE__, __LINE__);
  for (int i = 0; st == CUBLAS_STATUS_SUCCESS && i < returned; ++i) {
    const cublasLtMatmulHeuristicResult_t& r = results[static_cast<std::size_t>(i)];
    if (r.state != CUBLAS_STATUS_SUCCESS || r.workspaceSize > workspace) continue;
    plan.algorithms_.push_back({r.algo, r.workspaceSize, r.wavesCount, describe(r.algo)});
  }
  if (plan.algorithms_.empty())
    throw Error(ErrorKind::not_supported,
                fmt::format("cuBLASLt heuristic returned no algorithm for {}", p.to_string()));
  return plan;
}

std::vector<int> choose_split_counts(const std::vector<LtSplitTrial>& trials, int count,
                                     double fill) {
  std::vector<int> out;
  for (const LtSplitTrial& t : trials)
    if (t.waves >= fill && wave_fill(t.waves) >= fill) out.push_back(t.splits);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (static_cast<int>(out.size()) > std::max(count, 0)) out.resize(std::max(count, 0));
  return out;
}

std::optional<LtAlgorithm> CublasLtGemm::accepted(const CublasLtPlan& plan,
                                                  const cublasLtMatmulAlgo_t& algo) const {
  // The check sees no pointers: an algorithm that needs more alignment than the problem's class
  // promises (which the heuristic's preferences filter) is refused here.
  for (const cublasLtMatmulAlgoCapAttributes_t attribute :
       {CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_A_BYTES, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_C_BYTES, CUBLASLT_ALGO_CAP_MIN_ALIGNMENT_D_BYTES})
    if (algo_capability<std::uint32_t>(algo, attribute) > plan.alignment_bytes_)
      return std::nullopt;
  cublasLtMatmulHeuristicResult_t r{};
  if (cublasLtMatmulAlgoCheck(handle_.get(), plan.desc_.get(), plan.a_.get(), plan.b_.get(),
                              plan.c_.get(), plan.c_.get(), &algo, &r) != CUBLAS_STATUS_SUCCESS ||
      r.state != CUBLAS_STATUS_SUCCESS || r.workspaceSize > max_workspace_bytes_)
    return std::nullopt;
  return LtAlgorithm{algo, r.workspaceSize, r.wavesCount, describe(algo)};
}

void CublasLtGemm::add_split_k_variants(CublasLtPlan& plan, int count) const {
  if (count <= 0 || plan.algorithms_.empty()) return;
  const LtAlgorithm base = plan.algorithms_.front();
  if (base.waves <= 0 || wave_fill(base.waves) >= kWellFilled) return;
  if (algo_capability<std::int32_t>(base.algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT) == 0) return;
  const std::uint32_t scheme = split_reduction_scheme(base.algo);
  if (scheme == CUBLASLT_REDUCTION_SCHEME_NONE) return;
  const auto current = algo_config<std::int32_t>(base.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
  std::vector<LtSplitTrial> trials;
  std::vector<LtAlgorithm> variants;
  for (const std::int32_t splits : kSplitCounts) {
    if (splits == current || splits > plan.problem_.k) continue;
    cublasLtMatmulAlgo_t algo = base.algo;
    if (!set_split(algo, splits, scheme)) continue;
    if (const auto ok = accepted(plan, algo)) {
      trials.push_back({splits, ok->waves});
      variants.push_back(*ok);
    }
  }
  for (const int splits : choose_split_counts(trials, count))
    for (std::size_t i = 0; i < trials.size(); ++i)
      if (trials[i].splits == splits) plan.algorithms_.push_back(variants[i]);
}

std::vector<std::size_t> choose_configurations(const std::vector<LtConfigTrial>& trials,
                                               int count) {
  std::vector<std::size_t> out(trials.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i;
  std::stable_sort(out.begin(), out.end(), [&](std::size_t x, std::size_t y) {
    const LtConfigTrial &a = trials[x], &b = trials[y];
    if (a.splits != b.splits) return a.splits < b.splits;
    if (a.id_rank != b.id_rank) return a.id_rank < b.id_rank;
    return a.order < b.order;
  });
  if (static_cast<int>(out.size()) > std::max(count, 0)) out.resize(std::max(count, 0));
  return out;
}

void CublasLtGemm::add_configuration_variants(CublasLtPlan& plan, int count) const {
  if (count <= 0 || plan.algorithms_.empty()) return;
  std::vector<std::string> known;
  std::vector<std::int32_t> ids;
  for (const LtAlgorithm& a : plan.algorithms_) {
    known.push_back(a.config);
    const auto id = algo_config<std::int32_t>(a.algo, CUBLASLT_ALGO_CONFIG_ID);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  std::vector<LtConfigTrial> trials;
  std::vector<LtAlgorithm> variants;
  for (std::size_t rank = 0; rank < ids.size(); ++rank) {
    cublasLtMatmulAlgo_t base{};
    if (cublasLtMatmulAlgoInit(handle_.get(), CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F,
                               CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, ids[rank],
                               &base) != CUBLAS_STATUS_SUCCESS)
      continue;
    const bool can_split =
        algo_capability<std::int32_t>(base, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT) != 0;
    const std::uint32_t scheme = split_reduction_scheme(base);
    int order = 0;
    for (std::uint32_t tile : capability_ids(base, CUBLASLT_ALGO_CAP_TILE_IDS))
      for (std::uint32_t stages : capability_ids(base, CUBLASLT_ALGO_CAP_STAGES_IDS)) {
        cublasLtMatmulAlgo_t algo = base;
        if (cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile,
                                                 sizeof tile) != CUBLAS_STATUS_SUCCESS ||
            cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages,
                                                 sizeof stages) != CUBLAS_STATUS_SUCCESS)
          continue;
        ++order;
        // Unsplit first: a tile and stages cuBLASLt refuses unsplit is not tried split.
        const auto unsplit = accepted(plan, algo);
        if (!unsplit) continue;
        std::vector<LtAlgorithm> found = {*unsplit};
        std::vector<int> splits_of = {1};
        for (const std::int32_t splits : kSplitCounts) {
          if (!can_split || scheme == CUBLASLT_REDUCTION_SCHEME_NONE ||
              splits > plan.problem_.k / 8)
            break;
          cublasLtMatmulAlgo_t split = algo;
          if (!set_split(split, splits, scheme)) continue;
          if (const auto ok = accepted(plan, split)) {
            found.push_back(*ok);
            splits_of.push_back(splits);
          }
        }
        for (std::size_t i = 0; i < found.size(); ++i) {
          if (std::find(known.begin(), known.end(), found[i].config) != known.end()) continue;
          known.push_back(found[i].config);
          trials.push_back({splits_of[i], static_cast<int>(rank), order});
          variants.push_back(found[i]);
        }
      }
  }
  for (const std::size_t i : choose_configurations(trials, count))
    plan.algorithms_.push_back(variants[i]);
}

CublasLtPlan CublasLtGemm::plan_for(const ProblemKey& p, const cublasLtMatmulAlgo_t& algo) const {
  CublasLtPlan plan = describe_problem(p);
  cublasLtMatmulHeuristicResult_t r{};
  const cublasStatus_t st =
      cublasLtMatmulAlgoCheck(handle_.get(), plan.desc_.get(), plan.a_.get(), plan.b_.get(),
                              plan.c_.get(), plan.c_.get(), &algo, &r);
  if (st != CUBLAS_STATUS_SUCCESS || r.state != CUBLAS_STATUS_SUCCESS)
    throw Error(
        ErrorKind::not_supported,
        fmt::format("cuBLASLt rejects algorithm {} for {} (status {})", describe(algo),
                    p.to_string(), static_cast<int>(st != CUBLAS_STATUS_SUCCESS ? st : r.state)));
  if (r.workspaceSize > max_workspace_bytes_)
    throw Error(ErrorKind::not_supported,
                fmt::format("cuBLASLt algorithm {} for {} needs {} bytes of workspace, at most {} "
                            "are allowed",
                            describe(algo), p.to_string(), r.workspaceSize, max_workspace_bytes_));
  plan.algorithms_.push_back({algo, r.workspaceSize, r.wavesCount, describe(algo)});
  return plan;
}

std::string lt_algorithm_config(const cublasLtMatmulAlgo_t& algo) {
  std::string out = describe(algo);
  std::replace(out.begin(), out.end(), ' ', ',');
  out += ",algo=";
  for (std::uint64_t word : algo.data) out += fmt::format("{:016x}", word);
  return out;
}

cublasLtMatmulAlgo_t parse_lt_algorithm_config(const std::string& config) {
  constexpr std::size_t kDigits = 16 * (sizeof(cublasLtMatmulAlgo_t::data) / sizeof(std::uint64_t));
  const std::size_t at = config.rfind("algo=");
  const std::string hex = at == std::string::npos ? std::string() : config.substr(at + 5);
  const bool well_formed = (at == 0 || (at != std::string::npos && config[at - 1] == ',')) &&
                           hex.size() == kDigits && std::all_of(hex.begin(), hex.end(), [](char c) {
                             return std::isxdigit(static_cast<unsigned char>(c));
                           });
  if (!well_formed)
    throw Error(ErrorKind::invalid_value,
                fmt::format("cuBLASLt configuration '{}' has no algo= field of {} hex digits",
                            config, kDigits));
  cublasLtMatmulAlgo_t algo{};
  for (std::size_t w = 0; w < kDigits / 16; ++w)
    algo.data[w] = std::stoull(hex.substr(16 * w, 16), nullptr, 16);
  return algo;
}

void CublasLtGemm::run(const CublasLtPlan& plan, int index, cudaStream_t stream, float alpha,
                       const float* a, const float* b, float beta, float* c) const {
  if (!workspace_.get() && max_workspace_bytes_ > 0)
    throw Error(ErrorKind::internal, "cuBLASLt SGEMM: this handle's callers pass the workspace");
  run(plan, index, stream, alpha, a, b, beta, c, workspace_.get(), workspace_.bytes());
}

void CublasLtGemm::run(const CublasLtPlan& plan, int index, cudaStream_t stream, float alpha,
                       const float* a, const float* b, float beta, float* c, void* workspace,
                       std::size_t workspace_bytes) const {
  if (index < 0 || index >= plan.size())
    throw Error(ErrorKind::invalid_value,
                fmt::format("cuBLASLt algorithm index {} out of range: the plan for {} has {}",
                            index, plan.problem().to_string(), plan.size()));
  if (!a || !b || !c) throw Error(ErrorKind::invalid_value, "cuBLASLt SGEMM: null operand pointer");
  const std::size_t align = plan.alignment_bytes();
  if (!aligned(a, align) || !aligned(b, align) || !aligned(c, align))
    throw Error(ErrorKind::invalid_value,
                fmt::format("cuBLASLt SGEMM: operands must be {}-byte aligned for {}", align,
                            plan.problem().to_string()));
  const LtAlgorithm& algorithm = plan.algorithms()[static_cast<std::size_t>(index)];
  if (algorithm.workspace_bytes > workspace_bytes)
    throw Error(ErrorKind::internal,
                fmt::format("cuBLASLt algorithm {} needs {} bytes of workspace, {} given",
                            algorithm.config, algorithm.workspace_bytes, workspace_bytes));
  SGT_CUBLAS_CHECK(cublasLtMatmul(handle_.get(), plan.desc_.get(), &alpha, a, plan.a_.get(), b,
                                  plan.b_.get(), &beta, c, plan.c_.get(), c, plan.c_.get(),
                                  &algorithm.algo, workspace, workspace_bytes, stream));
}

}  // namespace sgt
