// dlopen/dlsym of the NVML entry points; every call checks its pointer first.
#include "measure/nvml.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <vector>

namespace sgt {

using NvmlDevice = void*;

struct Nvml::Api {
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*handle_by_uuid)(const char*, NvmlDevice*) = nullptr;
  int (*handle_by_index)(unsigned, NvmlDevice*) = nullptr;
  int (*clock_info)(NvmlDevice, unsigned, unsigned*) = nullptr;
  int (*max_clock_info)(NvmlDevice, unsigned, unsigned*) = nullptr;
  int (*reasons)(NvmlDevice, unsigned long long*) = nullptr;
  int (*power_usage)(NvmlDevice, unsigned*) = nullptr;
  int (*temperature)(NvmlDevice, unsigned, unsigned*) = nullptr;
  int (*set_gpu_locked)(NvmlDevice, unsigned, unsigned) = nullptr;
  int (*reset_gpu_locked)(NvmlDevice) = nullptr;
  int (*set_mem_locked)(NvmlDevice, unsigned, unsigned) = nullptr;
  int (*reset_mem_locked)(NvmlDevice) = nullptr;
};

namespace {

template <typename Fn>
bool find(void* library, const char* name, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

// A device call through an entry point that may be missing (an older driver).
template <typename... Args>
int call_on(NvmlDevice device, int (*fn)(NvmlDevice, Args...), Args... args) {
  if (!device || !fn) return kNvmlErrorFunctionNotFound;
  return fn(device, args...);
}

}  // namespace

std::string reason_names(std::uint64_t reasons) {
  static const std::pair<std::uint64_t, const char*> names[] = {{0x1, "GpuIdle"},
                                                                {0x2, "ApplicationsClocksSetting"},
                                                                {0x4, "SwPowerCap"},
                                                                {0x8, "HwSlowdown"},
                                                                {0x10, "SyncBoost"},
                                                                {0x20, "SwThermalSlowdown"},
                                                                {0x40, "HwThermalSlowdown"},
                                                                {0x80, "HwPowerBrakeSlowdown"},
                                                                {0x100, "DisplayClockSetting"}};
  if (reasons == 0) return "none";
  std::string out;
  std::uint64_t rest = reasons;
  for (const auto& [bit, name] : names) {
    if (!(reasons & bit)) continue;
    if (!out.empty()) out += '|';
    out += name;
    rest &= ~bit;
  }
  if (rest) out += fmt::format("{}0x{:x}", out.empty() ? "" : "|", rest);
  return out;
}

Nvml::Nvml(const std::string& uuid, int index) : api_(std::make_unique<Api>()) {
  const char* env = std::getenv("SGEMM_NVML_LIBRARY");
  path_ = (env && *env) ? env : "libnvidia-ml.so.1";
  library_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    const char* why = dlerror();
    message_ = fmt::format("NVML off: cannot load {} ({})", path_, why ? why : "unknown error");
    return;
  }
  Api& a = *api_;
  std::vector<std::string> missing;
  auto required = [&](const char* name, auto& fn) {
    if (!find(library_, name, fn)) missing.emplace_back(name);
  };
  required("nvmlInit_v2", a.init);
  required("nvmlShutdown", a.shutdown);
  find(library_, "nvmlErrorString", a.error_string);
  find(library_, "nvmlDeviceGetHandleByUUID", a.handle_by_uuid);
  find(library_, "nvmlDeviceGetHandleByIndex_v2", a.handle_by_index);
  if (!a.handle_by_uuid && !a.handle_by_index) missing.emplace_back("nvmlDeviceGetHandleBy*");
  find(library_, "nvmlDeviceGetClockInfo", a.clock_info);
  find(library_, "nvmlDeviceGetMaxClockInfo", a.max_clock_info);
  if (!find(library_, "nvmlDeviceGetCurrentClocksEventReasons", a.reasons))
    find(library_, "nvmlDeviceGetCurrentClocksThrottleReasons", a.reasons);
  find(library_, "nvmlDeviceGetPowerUsage", a.power_usage);
  find(library_, "nvmlDeviceGetTemperature", a.temperature);
  find(library_, "nvmlDeviceSetGpuLockedClocks", a.set_gpu_locked);
  find(library_, "nvmlDeviceResetGpuLockedClocks", a.reset_gpu_locked);
  find(library_, "nvmlDeviceSetMemoryLockedClocks", a.set_mem_locked);
  find(library_, "nvmlDeviceResetMemoryLockedClocks", a.reset_mem_locked);
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
    message_ = fmt::format("NVML off: {} lacks {}", path_, list);
    return;
  }
  if (const int rc = a.init(); rc != kNvmlSuccess) {
    message_ = fmt::format("NVML off: nvmlInit_v2 failed: {}", error_string(rc));
    return;
  }
  initialized_ = true;
  NvmlDevice device = nullptr;
  int rc = kNvmlErrorFunctionNotFound;
  if (a.handle_by_uuid && !uuid.empty()) rc = a.handle_by_uuid(uuid.c_str(), &device);
  matched_uuid_ = rc == kNvmlSuccess && device != nullptr;
  if (rc != kNvmlSuccess && a.handle_by_index && index >= 0)
    rc = a.handle_by_index(static_cast<unsigned>(index), &device);
  if (rc != kNvmlSuccess || device == nullptr) {
    message_ = fmt::format("NVML off: no NVML device for {} / index {}: {}", uuid, index,
                           error_string(rc));
    return;
  }
  device_ = device;
  std::string absent;
  if (!a.reasons) absent += " clock-event reasons";
  if (!a.power_usage) absent += " power";
  if (!a.temperature) absent += " temperature";
  if (!a.set_gpu_locked || !a.reset_gpu_locked) absent += " locked clocks";
  message_ = fmt::format("NVML on: {}{}{}", path_, absent.empty() ? "" : "; missing:", absent);
}

Nvml::~Nvml() {
  if (initialized_ && api_->shutdown) api_->shutdown();
  // The library stays loaded: a clock-lock exit handler may still hold its reset entry point.
}

NvmlReading Nvml::read() const {
  NvmlReading r;
  if (!device_) return r;
  const Api& a = *api_;
  unsigned value = 0;
  if (a.clock_info && a.clock_info(device_, kNvmlClockSm, &value) == kNvmlSuccess)
    r.sm_clock_mhz = value;
  if (a.clock_info && a.clock_info(device_, kNvmlClockMem, &value) == kNvmlSuccess)
    r.mem_clock_mhz = value;
  if (a.power_usage && a.power_usage(device_, &value) == kNvmlSuccess) r.power_w = value * 1e-3;
  if (a.temperature && a.temperature(device_, kNvmlTemperatureGpu, &value) == kNvmlSuccess)
    r.temperature_c = value;
  unsigned long long reasons = 0;
  if (a.reasons && a.reasons(device_, &reasons) == kNvmlSuccess) r.reasons = reasons;
  return r;
}

std::optional<unsigned> Nvml::max_clock_mhz(unsigned clock_type) const {
  unsigned value = 0;
  if (device_ && api_->max_clock_info &&
      api_->max_clock_info(device_, clock_type, &value) == kNvmlSuccess)
    return value;
  return std::nullopt;
}

int Nvml::lock_gpu_clocks(unsigned min_mhz, unsigned max_mhz) const {
  return call_on(device_, api_->set_gpu_locked, min_mhz, max_mhz);
}

int Nvml::reset_gpu_clocks() const { return call_on(device_, api_->reset_gpu_locked); }

int Nvml::lock_memory_clocks(unsigned min_mhz, unsigned max_mhz) const {
  return call_on(device_, api_->set_mem_locked, min_mhz, max_mhz);
}

int Nvml::reset_memory_clocks() const { return call_on(device_, api_->reset_mem_locked); }

bool Nvml::has_memory_lock() const noexcept {
  return device_ && api_->set_mem_locked && api_->reset_mem_locked;
}

Nvml::ResetFn Nvml::reset_gpu_fn() const noexcept {
  return device_ ? reinterpret_cast<ResetFn>(api_->reset_gpu_locked) : nullptr;
}

Nvml::ResetFn Nvml::reset_memory_fn() const noexcept {
  return device_ ? reinterpret_cast<ResetFn>(api_->reset_mem_locked) : nullptr;
}

std::string Nvml::error_string(int code) const {
  if (api_ && api_->error_string) {
    if (const char* s = api_->error_string(code)) return fmt::format("{} ({})", s, code);
  }
  switch (code) {
    case kNvmlSuccess:
      return "success (0)";
    case kNvmlErrorNotSupported:
      return "not supported (3)";
    case kNvmlErrorNoPermission:
      return "insufficient permissions (4)";
    case kNvmlErrorFunctionNotFound:
      return "function not found (13)";
    default:
      return fmt::format("NVML error {}", code);
  }
}

}  // namespace sgt
