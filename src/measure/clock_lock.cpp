// The active lock lives in globals so the signal and exit handlers can reset it; handlers are
// installed once, reset, restore the default disposition and re-raise the signal.
#include "measure/clock_lock.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <mutex>

#include "common/error.hpp"

namespace sgt {
namespace {

// What the handlers need, written before g_active becomes true.
Nvml::ResetFn g_reset_gpu = nullptr;
Nvml::ResetFn g_reset_memory = nullptr;
void* g_device = nullptr;
std::atomic<bool> g_active{false};
static_assert(std::atomic<bool>::is_always_lock_free);

void reset_active() noexcept {
  if (!g_active.exchange(false)) return;
  if (g_reset_memory) g_reset_memory(g_device);
  if (g_reset_gpu) g_reset_gpu(g_device);
}

extern "C" void on_fatal_signal(int sig) {
  reset_active();
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);  // delivered with the default action once this handler returns
}

extern "C" void on_exit_reset() { reset_active(); }

void install_handlers_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_handler = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    std::atexit(on_exit_reset);
  });
}

// Blocks SIGINT and SIGTERM for its lifetime, so a lock is never made without being registered.
class BlockSignals {
 public:
  BlockSignals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~BlockSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

bool is_refusal(int rc) { return rc == kNvmlErrorNoPermission || rc == kNvmlErrorNotSupported; }

}  // namespace

LockRequest parse_lock_request(std::string_view text) {
  LockRequest r;
  if (text == "base") {
    r.kind = LockRequest::Kind::base;
    return r;
  }
  if (text == "max") {
    r.kind = LockRequest::Kind::max;
    return r;
  }
  unsigned mhz = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mhz);
  if (ec != std::errc() || end != text.data() + text.size() || mhz == 0 || mhz > 10000) {
    throw Error(ErrorKind::invalid_value,
                fmt::format("--lock-clocks '{}': expected base, max or a clock in MHz", text));
  }
  r.kind = LockRequest::Kind::mhz;
  r.mhz = mhz;
  return r;
}

ClockLock::ClockLock(const Nvml& nvml, const LockRequest& request) : nvml_(nvml) {
  const std::string fallback = "; measuring in observe mode (clocks untouched)";
  if (!nvml.available()) {
    message_ = fmt::format("cannot lock clocks: {}{}", nvml.message(), fallback);
    return;
  }
  if (!nvml.matched_uuid()) {
    message_ = "cannot lock clocks: NVML did not find the device by its UUID" + fallback;
    return;
  }
  if (g_active.load()) {
    message_ = "cannot lock clocks: another clock lock is active in this process" + fallback;
    return;
  }
  unsigned gpu_mhz = 0;
  std::string target;
  switch (request.kind) {
    case LockRequest::Kind::base:
      gpu_mhz = kNvmlClockLimitTdp;
      target = "base";
      break;
    case LockRequest::Kind::max: {
      const auto max = nvml.max_clock_mhz(kNvmlClockGraphics);
      if (!max) {
        message_ = "cannot lock clocks: NVML reports no maximum graphics clock" + fallback;
        return;
      }
      gpu_mhz = *max;
      target = std::to_string(*max);
      break;
    }
    case LockRequest::Kind::mhz:
      gpu_mhz = request.mhz;
      target = std::to_string(request.mhz);
      break;
  }

  install_handlers_once();
  BlockSignals blocked;
  const int rc = nvml.lock_gpu_clocks(gpu_mhz, gpu_mhz);
  if (rc != kNvmlSuccess) {
    message_ =
        fmt::format("cannot lock clocks at {}: {}{}{}", target, nvml.error_string(rc),
                    is_refusal(rc) ? " (needs root and a GPU that supports it)" : "", fallback);
    return;
  }
  g_reset_gpu = nvml.reset_gpu_fn();
  g_reset_memory = nullptr;
  g_device = nvml.device_handle();
  locked_ = true;
  policy_ = "lock:" + target;
  message_ =
      fmt::format("GPU clocks locked at {}", target == "base" ? "base (TDP)" : target + " MHz");
  if (nvml.has_memory_lock()) {
    if (const auto mem = nvml.max_clock_mhz(kNvmlClockMem)) {
      const int mem_rc = nvml.lock_memory_clocks(*mem, *mem);
      if (mem_rc == kNvmlSuccess) {
        g_reset_memory = nvml.reset_memory_fn();
        message_ += fmt::format(", memory clocks at {} MHz", *mem);
      } else {
        message_ += fmt::format(" (memory clocks not locked: {})", nvml.error_string(mem_rc));
      }
    }
  }
  g_active.store(true);
}

ClockLock::~ClockLock() { release(); }

void ClockLock::release() noexcept {
  if (!locked_) return;
  locked_ = false;
  BlockSignals blocked;
  reset_active();
}

}  // namespace sgt
