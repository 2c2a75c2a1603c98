// Opt-in clock locking (--lock-clocks base|max|<MHz>) through NVML for users who own the GPU.
// On "no permission" / "not supported" it says so and leaves the clocks alone (observe mode).
// While locked, the clocks are reset on destruction, SIGINT, SIGTERM and std::exit.
#pragma once

#include <string>
#include <string_view>

#include "measure/nvml.hpp"

namespace sgt {

struct LockRequest {
  enum class Kind { base, max, mhz };
  Kind kind = Kind::max;
  unsigned mhz = 0;  // with Kind::mhz
};

// "base", "max" or a positive integer (MHz); throws sgt::Error(invalid_value) otherwise.
LockRequest parse_lock_request(std::string_view text);

class ClockLock {
 public:
  // Tries to lock the GPU (and memory, where NVML has it) clocks. Never throws for NVML failures:
  // locked() is false and message() says why and that measurement falls back to observe.
  // `nvml` must outlive the lock. One lock per process at a time.
  ClockLock(const Nvml& nvml, const LockRequest& request);
  ~ClockLock();
  ClockLock(const ClockLock&) = delete;
  ClockLock& operator=(const ClockLock&) = delete;

  bool locked() const noexcept { return locked_; }
  const std::string& message() const noexcept { return message_; }
  // "lock:1980" / "lock:base" when locked, "observe" otherwise.
  const std::string& policy() const noexcept { return policy_; }
  // Resets the locked clocks now (idempotent).
  void release() noexcept;

 private:
  const Nvml& nvml_;
  bool locked_ = false;
  std::string message_;
  std::string policy_ = "observe";
};

}  // namespace sgt
