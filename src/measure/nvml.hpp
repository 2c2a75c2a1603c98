// NVML loaded at run time (dlopen, no nvml.h, no link): clocks, clock-event reasons, power,
// temperature, and the locked-clock calls. A missing library or symbol turns features off and
// leaves one message for the caller to log; nothing here prints or throws.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace sgt {

// The few nvmlReturn_t values we act on.
inline constexpr int kNvmlSuccess = 0;
inline constexpr int kNvmlErrorNotSupported = 3;
inline constexpr int kNvmlErrorNoPermission = 4;
inline constexpr int kNvmlErrorFunctionNotFound = 13;  // also: our symbol lookup failed
// nvmlClockType_t
inline constexpr unsigned kNvmlClockGraphics = 0;
inline constexpr unsigned kNvmlClockSm = 1;
inline constexpr unsigned kNvmlClockMem = 2;
// nvmlTemperatureSensors_t: NVML_TEMPERATURE_GPU
inline constexpr unsigned kNvmlTemperatureGpu = 0;
// nvmlClockLimitId_t: pass to lock_gpu_clocks to lock at the base (TDP) clock.
inline constexpr unsigned kNvmlClockLimitTdp = 0xffffff01u;

// One NVML reading; a field is empty when its query failed or is unavailable.
struct NvmlReading {
  std::optional<unsigned> sm_clock_mhz, mem_clock_mhz;
  std::optional<double> power_w;  // nvmlDeviceGetPowerUsage (mW) / 1000
  std::optional<unsigned> temperature_c;
  std::optional<std::uint64_t> reasons;  // clock-event (throttle) reasons bit mask
};

// "GpuIdle|SwPowerCap|..." for a reasons mask ("none" for 0).
std::string reason_names(std::uint64_t reasons);

class Nvml {
 public:
  // Loads $SGEMM_NVML_LIBRARY when set (and only that: tests point it at a fake), else
  // libnvidia-ml.so.1; initializes NVML and finds the device by UUID ("GPU-..."), falling back
  // to `index`. Never throws: on any failure available() is false and message() says why.
  Nvml(const std::string& uuid, int index);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool available() const noexcept { return device_ != nullptr; }
  // One line for the log: what was loaded, or why NVML features are off.
  const std::string& message() const noexcept { return message_; }
  const std::string& library_path() const noexcept { return path_; }
  // True when the device was found by its UUID (not by index): required before locking clocks.
  bool matched_uuid() const noexcept { return matched_uuid_; }

  NvmlReading read() const;
  std::optional<unsigned> max_clock_mhz(unsigned clock_type) const;

  // Locked-clock calls: return the nvmlReturn_t (kNvmlErrorFunctionNotFound when the symbol is
  // missing or NVML is off).
  int lock_gpu_clocks(unsigned min_mhz, unsigned max_mhz) const;
  int reset_gpu_clocks() const;
  int lock_memory_clocks(unsigned min_mhz, unsigned max_mhz) const;
  int reset_memory_clocks() const;
  bool has_memory_lock() const noexcept;
  std::string error_string(int code) const;

  // Raw entry points for the clock lock's signal and exit handlers (async-signal-safe use:
  // plain calls, no allocation). Null when unavailable.
  using ResetFn = int (*)(void* device);
  ResetFn reset_gpu_fn() const noexcept;
  ResetFn reset_memory_fn() const noexcept;
  void* device_handle() const noexcept { return device_; }

  struct Api;  // function pointers, defined in nvml.cpp

 private:
  void* library_ = nullptr;
  void* device_ = nullptr;
  bool initialized_ = false;
  bool matched_uuid_ = false;
  std::unique_ptr<Api> api_;
  std::string path_;
  std::string message_;
};

}  // namespace sgt
