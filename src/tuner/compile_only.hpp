// The compile half of tuning, with no GPU: every candidate of a problem (or the model search's
// first batch) is built (and cached) for an architecture, and recorded as compiled, compile_failed
// or resources_exceeded. Warms a cache, checks a search space, measures compile throughput, and
// lets hosts without GPUs share the work.
#pragma once

#include <cstdint>
#include <string>

#include "config/search_space.hpp"
#include "db/records.hpp"
#include "jit/compile_cache.hpp"
#include "space/family.hpp"
#include "space/problem.hpp"

namespace sgt {

class TuningStore;

struct CompileOnlyOptions {
  std::string space_path = "configs/spaces";
  std::string arch = "sm_90";
  DeviceLimits limits;       // of the target GPU
  int compile_threads = 0;   // 0: one per core
  std::string cache_dir;     // "" = memory only
  std::string command_line;  // provenance
  std::string host;          // provenance; "" = this host's name
  // 0: every candidate. N: the first batch the model search would measure with a budget of N
  // (warm start and the cost model's best-ranked; its local search needs measurements).
  int max_candidates = 0;
};

struct CompileOnlyResult {
  ProblemKey problem;
  int candidates = 0, pruned = 0;
  int compiled = 0, compile_failed = 0, resources_exceeded = 0;
  int cache_hits = 0;
  double seconds = 0;
  double per_second() const { return seconds > 0 ? candidates / seconds : 0; }
};

// The GPU identity compile-only records are filed under: no unit, only the architecture.
GpuRecord compile_only_gpu(const std::string& arch, const DeviceLimits& limits);

class CompileOnly {
 public:
  // store may be null: nothing is recorded.
  CompileOnly(TuningStore* store, CompileOnlyOptions options);
  CompileOnlyResult run(const ProblemKey& problem);
  void finish(const std::string& status);

 private:
  TuningStore* store_;
  CompileOnlyOptions options_;
  SearchSpace space_;
  Enumeration enumeration_;
  CompileCache cache_;
  GpuRecord gpu_;
  SoftwareRecord software_;
  std::int64_t run_id_ = 0;
};

}  // namespace sgt
