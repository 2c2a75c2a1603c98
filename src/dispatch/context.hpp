// The state behind an sgemmHandle_t: the tuned winners (read once from the database), and per
// device the loaded kernels, a route cache per problem, and per stream the scratch and cuBLAS
// handle of the calls on it (stream_lanes.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cuda/cublas_handle.hpp"
#include "cuda/cublaslt_gemm.hpp"
#include "db/records.hpp"
#include "dispatch/lookup.hpp"
#include "dispatch/miss_log.hpp"
#include "dispatch/on_use_trial.hpp"
#include "dispatch/published_table.hpp"
#include "dispatch/stream_lanes.hpp"
#include "jit/sgemm_kernel.hpp"
#include "space/family.hpp"

namespace sgt {

// Total order on problem keys, for the lookup tables.
struct ProblemKeyLess {
  bool operator()(const ProblemKey& a, const ProblemKey& b) const {
    return std::tie(a.transa, a.transb, a.m, a.n, a.k, a.lda, a.ldb, a.ldc, a.align) <
           std::tie(b.transa, b.transb, b.m, b.n, b.k, b.lda, b.ldb, b.ldc, b.align);
  }
};

std::uint64_t hash_key(const ProblemKey& key) noexcept;

// A tuned winner of this device's GPU model, with family and knobs resolved.
struct TunedEntry {
  WinnerRecord record;
  const Family* family = nullptr;  // null: the winner is cuBLAS, or lt_algo's cuBLASLt algorithm
  std::optional<cublasLtMatmulAlgo_t> lt_algo;  // a "cublaslt" winner's algorithm
  Knobs knobs;
  LaunchGeometry geometry;  // for its own problem
};

// What sgemmSgemm runs for one problem on one device. Immutable once published, except the
// call counter of the miss log and the state of a trial (tuning on use).
struct Route {
  enum class Source { exact, nearest, cublas, on_use };
  Source source = Source::cublas;
  ProblemKey key;
  const SgemmKernel* kernel = nullptr;    // exact or nearest: the loaded kernel
  const CublasLtPlan* lt_plan = nullptr;  // exact: the tuned cuBLASLt algorithm's plan
  LaunchGeometry geometry;                // computed for this problem
  std::size_t scratch_bytes = 0;          // GPU scratch a call needs (0: the kernel needs none)
  const TunedEntry* entry = nullptr;      // the exact entry or the neighbour used (or vetoing)
  double distance = 0;                    // nearest: log distance to the neighbour
  std::string why;                        // why this path
  bool miss = false;                      // not tuned: counted when the miss log is on
  mutable std::atomic<std::uint64_t> calls{0};
  std::unique_ptr<OnUseTrial> trial;  // on_use: the contenders' timing, then the decided route

  // Whether a call goes to cuBLAS (a caller with its own cuBLAS may then run it there).
  bool serves_cublas() const {
    if (trial) {
      const Route* decided = trial->decided();
      return decided && decided->source == Source::cublas;
    }
    return source == Source::cublas;
  }
};

const char* source_name(Route::Source s);

// One call's operands, as sgemmSgemm received them (alpha and beta dereferenced).
struct GemmCall {
  ProblemKey key;
  float alpha = 1, beta = 0;
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
};

// How soon a route whose resolution failed for a reason that may pass is resolved again.
constexpr std::chrono::milliseconds kRetryInterval{100};

class DeviceState {
 public:
  // Untuned problems that get a route of their own; beyond them, further untuned problems are
  // served by cuBLAS through one shared route (and not counted by the miss log).
  static constexpr std::size_t kMaxUntunedRoutes = 4096;

  DeviceState(int ordinal, const std::vector<WinnerRecord>& winners, const NearestRules& rules,
              const OnUseSettings& on_use);
  ~DeviceState();

  // The route of a problem: a lock-free lookup once resolved; the first call resolves it (nearest
  // search, kernel load or JIT) under a mutex, in relaxed capture mode, and may allocate. A
  // resolution that failed for a reason that may pass (an allocation, a module load) serves cuBLAS
  // and is tried again on a later call, at most every kRetryInterval.
  const Route& route(const ProblemKey& key) {
    if (const Route* r = table_.find(key)) return *r;
    return resolve(key);
  }
  // Enqueues one call on the stream: the route's kernels, its cuBLASLt algorithm, or cuBLAS when
  // route is null. Scratch comes from the stream's lane, or from a graph allocation while the
  // stream is being captured. Never synchronizes.
  void run(const Route* route, cudaStream_t stream, const GemmCall& call);

  const std::string& arch() const { return arch_; }
  // Every route resolved so far (call only while no call is in flight, or accept stale counts).
  std::vector<const Route*> routes();
  std::size_t lanes() { return lanes_.size(); }

 private:
  struct KeyOf {
    const ProblemKey& operator()(const Route& r) const noexcept { return r.key; }
  };
  struct HashKey {
    std::uint64_t operator()(const ProblemKey& k) const noexcept { return hash_key(k); }
  };
  struct Pending {  // a route whose resolution failed for a reason that may pass
    std::unique_ptr<Route> route;
    std::chrono::steady_clock::time_point retry_at;
  };

  const Route& resolve(const ProblemKey& key);
  // Fills the route; false when something failed that may pass.
  bool fill(Route& r);
  // The loaded kernel of an entry (stored cubin, else JIT for this arch); null when unbuildable
  // or tuned with another version of the family's template. transient: the failure may pass.
  const SgemmKernel* kernel(const TunedEntry& entry, std::string& why, bool& transient);
  // The checked plan of a "cublaslt" entry's algorithm; null when this cuBLAS cannot run it.
  const CublasLtPlan* lt_plan(const TunedEntry& entry, std::string& why, bool& transient);

  // Tuning on use: the trial's contenders for an untuned problem (cuBLAS, cuBLASLt's top
  // algorithms, the nearest tuned problems' kernels whose cubins are at hand).
  void start_trial(Route& r);
  void run_trial(const Route& route, cudaStream_t stream, const GemmCall& call);
  // The trial's winner into the per-user database; what happened, for sgemmDescribe.
  std::string store_on_use(const Route& route, const OnUseDecision& decision);
  Route& contender_route();  // a new route owned by this state, under resolve_mutex_

  void run_in_lane(const Route* route, cudaStream_t stream, const GemmCall& call);
  void run_captured(const Route* route, cudaStream_t stream, const GemmCall& call);
  void cublas_sgemm(cublasHandle_t handle, const GemmCall& call);

  std::string name_, arch_;
  DeviceLimits limits_;  // what launch geometries are computed for (SM count)
  int compute_major_ = 0;
  NearestRules rules_;
  OnUseSettings on_use_;
  GpuRecord gpu_;  // what a winner tuned on use is stored under
  std::map<ProblemKey, TunedEntry, ProblemKeyLess> exact_;
  std::vector<const TunedEntry*> pool_entries_;  // exact_ entries, in pool_ order
  std::vector<Neighbour> pool_;
  StreamLanes lanes_;
  // cuBLASLt's handle (it holds no stream and no workspace), made with the first route needing it.
  std::unique_ptr<CublasLtGemm> lt_;
  std::mutex capture_mutex_;                      // guards capture_cublas_
  std::unique_ptr<CublasHandle> capture_cublas_;  // cuBLAS for calls being captured

  std::mutex resolve_mutex_;  // guards everything below, and inserts into table_
  PublishedTable<Route, ProblemKey, KeyOf, HashKey> table_;
  std::size_t untuned_routes_ = 0;
  Route untracked_;     // the shared route once kMaxUntunedRoutes untuned problems have their own
  Route cublas_route_;  // what a trial that cuBLAS won decides for
  std::vector<std::unique_ptr<Route>> contender_routes_;  // of the trials
  std::map<ProblemKey, Pending, ProblemKeyLess> pending_;
  std::vector<std::unique_ptr<Route>> owned_;
  std::map<const TunedEntry*, std::unique_ptr<SgemmKernel>> kernels_;
  std::vector<std::unique_ptr<CublasLtPlan>> lt_plans_;
  std::map<const TunedEntry*, std::string> unbuildable_;  // failures that do not pass
};

}  // namespace sgt

struct sgemmContext {
  static constexpr int kMaxDevices = 64;

  sgemmContext(std::vector<sgt::WinnerRecord> winners, sgt::NearestRules rules,
               sgt::OnUseSettings on_use, std::string database)
      : winners(std::move(winners)),
        rules(rules),
        on_use(std::move(on_use)),
        database(std::move(database)) {}

  // Of the current device; built on first use there, then a lock-free load. A thread with no
  // current CUDA context gets the device's primary context made current, as the runtime would.
  sgt::DeviceState& device_state();
  // Writes the miss log if one is set (at sgemmDestroy). False when the file cannot be written.
  bool write_miss_log();

  std::vector<sgt::WinnerRecord> winners;
  sgt::NearestRules rules;
  sgt::OnUseSettings on_use;
  std::string database;  // the database read; empty when none is installed (cuBLAS serves all)
  std::atomic<cudaStream_t> stream{nullptr};
  std::atomic<bool> miss_log_on{false};
  std::mutex miss_log_mutex;
  std::string miss_log_path;

  std::mutex devices_mutex;
  std::array<std::atomic<sgt::DeviceState*>, kMaxDevices> device_slots{};
  std::map<int, std::unique_ptr<sgt::DeviceState>> devices;
};
