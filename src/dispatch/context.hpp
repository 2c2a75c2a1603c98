// The state behind an sgemmHandle_t: the tuned winners (read once from the database), and per
// device a cuBLAS handle, the loaded kernels, the workspace and a route cache per problem.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
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
#include "cuda/device_buffer.hpp"
#include "db/records.hpp"
#include "dispatch/lookup.hpp"
#include "dispatch/miss_log.hpp"
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
// call counter of the miss log.
struct Route {
  enum class Source { exact, nearest, cublas };
  Source source = Source::cublas;
  ProblemKey key;
  const SgemmKernel* kernel = nullptr;  // exact or nearest: the loaded kernel
  const CublasLtPlan* lt_plan = nullptr;  // exact: the tuned cuBLASLt algorithm's plan
  LaunchGeometry geometry;              // computed for this problem
  const TunedEntry* entry = nullptr;    // the exact entry or the neighbour used (or vetoing)
  double distance = 0;                  // nearest: log distance to the neighbour
  std::string why;                      // why this path
  bool miss = false;                    // not tuned: counted when the miss log is on
  mutable std::atomic<std::uint64_t> calls{0};
};

const char* source_name(Route::Source s);

// Open-addressing table of published routes: lock-free lookups, inserts under the owner's mutex.
// Fixed capacity (no rehash, so a reader never sees a table move); filled to half at most.
class RouteTable {
 public:
  static constexpr std::size_t kCapacity = 8192;  // slots, a power of two
  static constexpr std::size_t kMaxEntries = kCapacity / 2;

  RouteTable() : slots_(new std::atomic<const Route*>[kCapacity]) {
    for (std::size_t i = 0; i < kCapacity; ++i) slots_[i].store(nullptr, std::memory_order_relaxed);
  }
  const Route* find(const ProblemKey& key) const noexcept {
    for (std::size_t i = hash_key(key) & (kCapacity - 1);; i = (i + 1) & (kCapacity - 1)) {
      const Route* r = slots_[i].load(std::memory_order_acquire);
      if (!r) return nullptr;
      if (r->key == key) return r;
    }
  }
  bool insert(const Route* route) noexcept;  // false when full
  std::size_t size() const noexcept { return size_; }

 private:
  std::unique_ptr<std::atomic<const Route*>[]> slots_;
  std::size_t size_ = 0;
};

class DeviceState {
 public:
  DeviceState(int ordinal, const std::vector<WinnerRecord>& winners, const NearestRules& rules);

  // The route of a problem: a lock-free lookup once resolved; the first call resolves it (nearest
  // search, kernel load or JIT) under a mutex and may allocate.
  const Route& route(const ProblemKey& key) {
    if (const Route* r = table_.find(key)) return *r;
    return resolve(key);
  }
  // cuBLAS on the stream; the cuBLAS handle's stream is only changed when it differs.
  void cublas_sgemm(cudaStream_t stream, const ProblemKey& key, float alpha, const float* a,
                    const float* b, float beta, float* c);
  // The tuned cuBLASLt algorithm of a route's plan on the stream.
  void lt_sgemm(cudaStream_t stream, const CublasLtPlan& plan, float alpha, const float* a,
                const float* b, float beta, float* c) const {
    lt_->run(plan, 0, stream, alpha, a, b, beta, c);
  }
  float* workspace() const { return workspace_.get(); }
  std::size_t workspace_floats() const { return workspace_floats_; }
  const std::string& arch() const { return arch_; }
  // Every route resolved so far (call only while no call is in flight, or accept stale counts).
  std::vector<const Route*> routes();

 private:
  const Route& resolve(const ProblemKey& key);
  void fill(Route& r);
  // The loaded kernel of an entry (stored cubin, else JIT for this arch); null when unbuildable
  // or tuned with another version of the family's template.
  const SgemmKernel* kernel(const TunedEntry& entry, std::string& why);
  // The checked plan of a "cublaslt" entry's algorithm; null when this cuBLAS cannot run it.
  const CublasLtPlan* lt_plan(const TunedEntry& entry, std::string& why);

  std::string name_, arch_;
  NearestRules rules_;
  std::map<ProblemKey, TunedEntry, ProblemKeyLess> exact_;
  std::vector<const TunedEntry*> pool_entries_;  // exact_ entries, in pool_ order
  std::vector<Neighbour> pool_;
  CublasHandle cublas_{false};
  std::atomic<cudaStream_t> cublas_stream_{nullptr};
  std::mutex cublas_mutex_;
  DeviceBuffer<float> workspace_;  // the largest any exact entry needs, allocated once
  std::size_t workspace_floats_ = 0;

  std::mutex resolve_mutex_;  // guards everything below, and inserts into table_
  RouteTable table_;
  std::map<ProblemKey, const Route*, ProblemKeyLess> overflow_;  // routes beyond the table
  std::vector<std::unique_ptr<Route>> owned_;
  std::map<const TunedEntry*, std::unique_ptr<SgemmKernel>> kernels_;
  // cuBLASLt (its handle and workspace) only once a route needs it, one plan per tuned problem.
  std::unique_ptr<CublasLtGemm> lt_;
  std::vector<std::unique_ptr<CublasLtPlan>> lt_plans_;
  std::map<const TunedEntry*, std::string> unbuildable_;
};

}  // namespace sgt

struct sgemmContext {
  static constexpr int kMaxDevices = 64;

  sgemmContext(std::vector<sgt::WinnerRecord> winners, sgt::NearestRules rules)
      : winners(std::move(winners)), rules(rules) {}

  // Of the current device; built on first use there (allocates), then a lock-free load.
  sgt::DeviceState& device_state();
  // Writes the miss log if one is set (at sgemmDestroy). False when the file cannot be written.
  bool write_miss_log();

  std::vector<sgt::WinnerRecord> winners;
  sgt::NearestRules rules;
  std::atomic<cudaStream_t> stream{nullptr};
  std::atomic<bool> miss_log_on{false};
  std::mutex miss_log_mutex;
  std::string miss_log_path;

  std::mutex devices_mutex;
  std::array<std::atomic<sgt::DeviceState*>, kMaxDevices> device_slots{};
  std::map<int, std::unique_ptr<sgt::DeviceState>> devices;
};
