// Per-device state is built on the first call on that device; after that a call only reads.
#include "dispatch/context.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "cuda/device_info.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace sgt {

DeviceState::DeviceState(int ordinal, const std::vector<WinnerRecord>& winners) {
  const DeviceInfo info = query_device(ordinal);
  name_ = info.name;
  arch_ = info.arch();
  std::size_t workspace_floats = 0;
  for (const WinnerRecord& w : winners) {
    if (w.gpu.name != name_ || w.gpu.arch != arch_) continue;
    TunedEntry entry;
    entry.record = w;
    if (w.family != "cublas") {
      try {
        entry.family = &find_family(w.family);
        entry.knobs = parse_knobs(w.config);
        if (!entry.family->cannot_implement(entry.knobs, w.problem).empty()) continue;
        entry.geometry = entry.family->geometry(entry.knobs, w.problem);
      } catch (const Error&) {
        continue;  // a family or knob this build does not know: not usable, cuBLAS serves it
      }
      workspace_floats = std::max(workspace_floats, entry.geometry.workspace_floats);
    }
    exact_[w.problem] = std::move(entry);
  }
  if (workspace_floats > 0) workspace_ = DeviceBuffer<float>(workspace_floats);
}

Route DeviceState::route(const ProblemKey& key) const {
  Route r;
  const auto it = exact_.find(key);
  if (it == exact_.end()) {
    r.why = "not tuned";
    return r;
  }
  if (!it->second.family) {
    r.why = "tuned: cuBLAS was fastest";
    return r;
  }
  r.source = Route::Source::exact;
  r.entry = &it->second;
  return r;
}

const SgemmKernel* DeviceState::kernel(const TunedEntry& entry) {
  {
    std::shared_lock lock(kernels_mutex_);
    if (const auto it = kernels_.find(&entry); it != kernels_.end()) return it->second.get();
    if (unbuildable_.contains(&entry)) return nullptr;
  }
  std::unique_lock lock(kernels_mutex_);
  if (const auto it = kernels_.find(&entry); it != kernels_.end()) return it->second.get();
  try {
    std::string cubin(entry.record.cubin.begin(), entry.record.cubin.end());
    if (cubin.empty() || entry.record.cubin_arch != arch_) {
      CompileResult r = compile_template(entry.family->name() + ".cu",
                                         entry.family->defines(entry.knobs, entry.record.problem), arch_);
      if (!r.ok) {
        unbuildable_[&entry] = true;
        return nullptr;
      }
      cubin = std::move(r.cubin);
    }
    auto kernel = std::make_unique<SgemmKernel>(cubin);
    const SgemmKernel* raw = kernel.get();
    kernels_[&entry] = std::move(kernel);
    return raw;
  } catch (const Error&) {
    unbuildable_[&entry] = true;
    return nullptr;
  }
}

}  // namespace sgt

sgt::DeviceState& sgemmContext::device_state() {
  int ordinal = 0;
  SGT_CUDA_CHECK(cudaGetDevice(&ordinal));
  std::lock_guard lock(devices_mutex);
  auto& slot = devices[ordinal];
  if (!slot) slot = std::make_unique<sgt::DeviceState>(ordinal, winners);
  return *slot;
}
