// The state behind an sgemmHandle_t: the tuned winners (read once from the database), and per
// device a cuBLAS handle, loaded kernels and the split-K workspace.
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <vector>

#include "cuda/cublas_handle.hpp"
#include "cuda/device_buffer.hpp"
#include "db/records.hpp"
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

// A tuned winner prepared for launching: family and knobs resolved, geometry precomputed.
struct TunedEntry {
  WinnerRecord record;
  const Family* family = nullptr;  // null: the winner is cuBLAS
  Knobs knobs;
  LaunchGeometry geometry;
};

// Which path a problem takes, for sgemmSgemm and sgemmDescribe.
struct Route {
  enum class Source { exact, cublas } source = Source::cublas;
  const TunedEntry* entry = nullptr;  // for exact
  const char* why = "";               // for cublas: why no tuned kernel applies
};

class DeviceState {
 public:
  DeviceState(int ordinal, const std::vector<WinnerRecord>& winners);

  Route route(const ProblemKey& key) const;
  // The loaded kernel of an entry, JIT-compiling when no cubin for this architecture is stored.
  // Null when it cannot be built (the caller then uses cuBLAS).
  const SgemmKernel* kernel(const TunedEntry& entry);
  const CublasHandle& cublas() const { return cublas_; }
  float* workspace() const { return workspace_.get(); }
  const std::string& arch() const { return arch_; }

 private:
  std::string name_, arch_;
  std::map<ProblemKey, TunedEntry, ProblemKeyLess> exact_;
  CublasHandle cublas_{false};
  DeviceBuffer<float> workspace_;  // the largest any entry needs, allocated once
  std::shared_mutex kernels_mutex_;
  std::map<const TunedEntry*, std::unique_ptr<SgemmKernel>> kernels_;
  std::map<const TunedEntry*, bool> unbuildable_;
};

}  // namespace sgt

struct sgemmContext {
  explicit sgemmContext(std::vector<sgt::WinnerRecord> winners) : winners(std::move(winners)) {}

  sgt::DeviceState& device_state();  // of the current device, created on first use

  std::vector<sgt::WinnerRecord> winners;
  cudaStream_t stream = nullptr;
  std::mutex devices_mutex;
  std::map<int, std::unique_ptr<sgt::DeviceState>> devices;
};
