// Per-device state is built on the first call on that device; a problem's route is resolved on
// its first call there and published in a lock-free table, so a warm call only reads.
#include "dispatch/context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "common/error.hpp"
#include "cuda/capture_mode.hpp"
#include "cuda/device_info.hpp"
#include "cuda/driver_api.hpp"
#include "db/device_records.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/templates.hpp"

namespace sgt {

std::uint64_t hash_key(const ProblemKey& key) noexcept {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  const auto mix = [&h](std::uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  };
  mix(static_cast<std::uint64_t>(key.transa) | (static_cast<std::uint64_t>(key.transb) << 1) |
      (static_cast<std::uint64_t>(static_cast<unsigned>(key.align)) << 2));
  mix(static_cast<unsigned>(key.m));
  mix(static_cast<unsigned>(key.n));
  mix(static_cast<unsigned>(key.k));
  mix(static_cast<unsigned>(key.lda));
  mix(static_cast<unsigned>(key.ldb));
  mix(static_cast<unsigned>(key.ldc));
  return h;
}

const char* source_name(Route::Source s) {
  switch (s) {
    case Route::Source::exact:
      return "exact";
    case Route::Source::nearest:
      return "nearest";
    case Route::Source::cublas:
      return "cublas";
    case Route::Source::on_use:
      return "on_use";
  }
  return "cublas";
}

namespace {

// Errors of the CUDA runtime, the driver or a library call may pass (memory, a module load during
// capture); a template of another version, a compile error or a refusal by cuBLASLt does not.
bool may_pass(const Error& e) {
  return e.kind() == ErrorKind::cuda || e.kind() == ErrorKind::cublas;
}

int compute_major_of(int ordinal) {
  int major = 0;
  SGT_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal));
  return major;
}

}  // namespace

DeviceState::DeviceState(int ordinal, const std::vector<WinnerRecord>& winners,
                         const NearestRules& rules, const OnUseSettings& on_use)
    : compute_major_(compute_major_of(ordinal)),
      rules_(rules),
      on_use_(on_use),
      lanes_(compute_major_),
      table_(winners.size() + kMaxUntunedRoutes) {
  const DeviceInfo info = query_device(ordinal);
  limits_ = device_limits(info);
  name_ = info.name;
  arch_ = info.arch();
  gpu_ = gpu_record(info);
  cublas_route_.why = "tuned on use: cuBLAS was fastest";
  untracked_.key = ProblemKey{};
  untracked_.why = fmt::format(
      "more than {} untuned problems on this device: cuBLAS, without a route of its own",
      kMaxUntunedRoutes);
  for (const WinnerRecord& w : winners) {
    if (w.gpu.name != name_ || w.gpu.arch != arch_) continue;
    TunedEntry entry;
    entry.record = w;
    if (w.family == kCublasLtFamily) {
      try {
        entry.lt_algo = parse_lt_algorithm_config(w.config);
      } catch (const Error&) {
        continue;  // not an algorithm this build can read: cuBLAS serves it
      }
    } else if (w.family != kCublasFamily) {
      try {
        entry.family = &find_family(w.family);
        entry.knobs = parse_knobs(w.config);
        if (!entry.family->cannot_implement(entry.knobs, w.problem).empty()) continue;
        entry.geometry = entry.family->geometry(entry.knobs, w.problem, limits_);
      } catch (const Error&) {
        continue;  // a family or knob this build does not know: not usable, cuBLAS serves it
      }
    }
    exact_[w.problem] = std::move(entry);
  }
  for (const auto& [key, entry] : exact_) {
    pool_entries_.push_back(&entry);
    pool_.push_back({key, entry.family != nullptr, entry.record.time_us, entry.record.cublas_us});
  }
}

// Modules, scratch and handles are released once the device has finished every call enqueued
// with them (as cublasDestroy, this waits for the device).
DeviceState::~DeviceState() { cudaDeviceSynchronize(); }

std::vector<const Route*> DeviceState::routes() {
  std::lock_guard lock(resolve_mutex_);
  std::vector<const Route*> out;
  for (const auto& r : owned_) out.push_back(r.get());
  return out;
}

const Route& DeviceState::resolve(const ProblemKey& key) {
  const RelaxedCaptureMode relaxed;  // a first call inside a capture may load and allocate
  std::lock_guard lock(resolve_mutex_);
  if (const Route* r = table_.find(key)) return *r;
  const auto now = std::chrono::steady_clock::now();
  const auto pending = pending_.find(key);
  if (pending != pending_.end() && now < pending->second.retry_at) return *pending->second.route;
  const bool tuned = exact_.count(key) > 0;
  if (!tuned && pending == pending_.end() && untuned_routes_ >= kMaxUntunedRoutes)
    return untracked_;
  auto route = std::make_unique<Route>();
  route->key = key;
  if (!fill(*route)) {
    // Served by cuBLAS for now; kept (not published) so that concurrent callers holding it stay
    // valid, and tried again after the interval.
    if (pending == pending_.end()) {
      if (!tuned) ++untuned_routes_;
      route->why += " (will be tried again)";
      const Route& r = *route;
      pending_[key] = {std::move(route), now + kRetryInterval};
      return r;
    }
    pending->second.retry_at = now + kRetryInterval;
    return *pending->second.route;
  }
  if (pending == pending_.end() && !tuned) ++untuned_routes_;
  if (pending != pending_.end()) {
    owned_.push_back(std::move(pending->second.route));  // a caller may still hold it
    pending_.erase(pending);
  }
  const Route* raw = route.get();
  owned_.push_back(std::move(route));
  table_.insert(raw);  // sized for every tuned problem and kMaxUntunedRoutes others
  return *raw;
}

bool DeviceState::fill(Route& r) {
  bool transient = false;
  if (const auto it = exact_.find(r.key); it != exact_.end()) {
    const TunedEntry& entry = it->second;
    r.entry = &entry;
    std::string why;
    if (entry.lt_algo) {
      if ((r.lt_plan = lt_plan(entry, why, transient))) {
        r.source = Route::Source::exact;
        r.scratch_bytes = kTileCounterBytes + r.lt_plan->algorithms().front().workspace_bytes;
        r.why = "tuned problem: a cuBLASLt algorithm";
      } else {
        r.why = "tuned, but the cuBLASLt algorithm is unavailable: " + why;
      }
    } else if (!entry.family) {
      r.why = "tuned: cuBLAS was fastest";
    } else if (const SgemmKernel* k = kernel(entry, why, transient)) {
      r.source = Route::Source::exact;
      r.kernel = k;
      r.geometry = entry.geometry;
      r.scratch_bytes = sizeof(float) * r.geometry.workspace_floats;
      r.why = "tuned problem";
    } else {
      r.why = "tuned, but the kernel is unavailable: " + why;
    }
    return !transient;
  }
  r.miss = true;
  if (on_use_.enabled) {
    try {
      start_trial(r);
      return true;
    } catch (const Error& e) {
      r.why = std::string("not tuned; tuning on use could not start: ") + e.what();
      return !may_pass(e);
    }
  }
  // The neighbour's kernel runs this problem as compiled: at the neighbour's alignment class.
  const auto as_tuned = [&r](const TunedEntry& e) {
    ProblemKey p = r.key;
    p.align = e.record.problem.align;
    return p;
  };
  const auto check = [&](std::size_t i) -> std::string {
    const TunedEntry& e = *pool_entries_[i];
    try {
      if (std::string why = kernel_cannot_serve(*e.family, e.knobs, e.record.problem, r.key);
          !why.empty())
        return why;
      std::string why;
      if (!kernel(e, why, transient)) return "kernel unavailable: " + why;
      return {};
    } catch (const Error& ex) {
      return ex.what();
    }
  };
  const NearestChoice c = choose_nearest(r.key, pool_, rules_, check);
  r.distance = c.distance;
  r.why = c.why;
  if (c.index < 0) return !transient;
  const TunedEntry& e = *pool_entries_[static_cast<std::size_t>(c.index)];
  std::string why;
  r.kernel = kernel(e, why, transient);  // cached by check
  r.geometry = e.family->geometry(e.knobs, as_tuned(e), limits_);
  r.scratch_bytes = sizeof(float) * r.geometry.workspace_floats;
  r.entry = &e;
  r.source = r.kernel ? Route::Source::nearest : Route::Source::cublas;
  return !transient;
}

const CublasLtPlan* DeviceState::lt_plan(const TunedEntry& entry, std::string& why,
                                         bool& transient) {
  // Called once per entry: only the entry's own problem routes to it, and a route is resolved once.
  try {
    // An algorithm is valid for the cuBLAS it was tuned with; cuBLASLt checks it here as well.
    const std::string cublas = query_software().cublas;
    if (entry.record.software.cublas != cublas)
      throw Error(ErrorKind::not_supported, fmt::format("tuned with cuBLAS {}, this is cuBLAS {}",
                                                        entry.record.software.cublas, cublas));
    if (!lt_)
      lt_ = std::make_unique<CublasLtGemm>(CublasLtGemm::CallerWorkspace{},
                                           CublasLtGemm::kDefaultWorkspaceBytes);
    lt_plans_.push_back(
        std::make_unique<CublasLtPlan>(lt_->plan_for(entry.record.problem, *entry.lt_algo)));
    return lt_plans_.back().get();
  } catch (const Error& e) {
    why = e.what();
    transient = transient || may_pass(e);
    return nullptr;
  }
}

const SgemmKernel* DeviceState::kernel(const TunedEntry& entry, std::string& why, bool& transient) {
  if (const auto it = kernels_.find(&entry); it != kernels_.end()) return it->second.get();
  if (const auto it = unbuildable_.find(&entry); it != unbuildable_.end()) {
    why = it->second;
    return nullptr;
  }
  try {
    // Only the kernel that was measured runs: a winner tuned with another version of its template
    // (or of the headers and launch code that go with it) goes to cuBLAS until it is tuned again.
    // Its stored cubin does not help, since its parameters follow the old template.
    if (const std::string now = template_hash(entry.family->name() + ".cu");
        entry.record.template_hash != now) {
      why = unbuildable_[&entry] = fmt::format(
          "tuned with another version of {}.cu (template {}, this build {}); tune it again",
          entry.family->name(), entry.record.template_hash.substr(0, 12), now.substr(0, 12));
      return nullptr;
    }
    std::string cubin(entry.record.cubin.begin(), entry.record.cubin.end());
    if (cubin.empty() || entry.record.cubin_arch != arch_) {
      CompileResult r =
          compile_template(entry.family->name() + ".cu",
                           entry.family->defines(entry.knobs, entry.record.problem), arch_);
      if (!r.ok) {
        why = unbuildable_[&entry] = "JIT compilation failed";
        return nullptr;
      }
      cubin = std::move(r.cubin);
    }
    auto loaded = std::make_unique<SgemmKernel>(cubin);
    const SgemmKernel* raw = loaded.get();
    kernels_[&entry] = std::move(loaded);
    return raw;
  } catch (const Error& e) {
    why = e.what();
    if (may_pass(e))
      transient = true;  // not remembered: the next resolution tries again
    else
      unbuildable_[&entry] = why;
    return nullptr;
  }
}

}  // namespace sgt

sgt::DeviceState& sgemmContext::device_state() {
  int ordinal = 0;
  SGT_CUDA_CHECK(cudaGetDevice(&ordinal));
  // Kernels are launched through the driver, which needs a current context: a thread that has
  // made no runtime call yet has none, so the runtime's primary context is bound here.
  CUcontext current = nullptr;
  SGT_CU_CHECK(sgt::driver().cuCtxGetCurrent(&current));
  if (!current) SGT_CUDA_CHECK(cudaSetDevice(ordinal));
  if (ordinal < 0 || ordinal >= kMaxDevices)
    throw sgt::Error(sgt::ErrorKind::not_supported,
                     fmt::format("device {} is beyond {}", ordinal, kMaxDevices));
  auto& slot = device_slots[static_cast<std::size_t>(ordinal)];
  if (sgt::DeviceState* d = slot.load(std::memory_order_acquire)) return *d;
  std::lock_guard lock(devices_mutex);
  if (sgt::DeviceState* d = slot.load(std::memory_order_relaxed)) return *d;
  auto state = std::make_unique<sgt::DeviceState>(ordinal, winners, rules, on_use);
  slot.store(state.get(), std::memory_order_release);
  sgt::DeviceState& ref = *state;
  devices[ordinal] = std::move(state);
  return ref;
}

bool sgemmContext::write_miss_log() {
  std::string path;
  {
    std::lock_guard lock(miss_log_mutex);
    path = miss_log_path;
  }
  if (path.empty()) return true;
  std::vector<const sgt::Route*> all;
  {
    std::lock_guard lock(devices_mutex);
    for (const auto& [ordinal, state] : devices) {
      const auto routes = state->routes();
      all.insert(all.end(), routes.begin(), routes.end());
    }
  }
  std::vector<sgt::MissCount> misses;
  for (const sgt::Route* r : all)
    if (r->miss) misses.push_back({r->key, r->calls.load(std::memory_order_relaxed)});
  const std::string text = sgt::miss_log_csv(misses);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}
