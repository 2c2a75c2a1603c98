// Clock lock and NVML loading against the fake NVML (tests/support/fake_nvml.cpp): lock then reset
// on scope exit, exception unwinding, std::exit, SIGTERM and SIGINT (forked children), and the
// fallback to observe on "no permission". Never loads the real NVML.
#include "measure/clock_lock.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "measure/nvml.hpp"

#ifndef SGEMM_FAKE_NVML_PATH
#error "SGEMM_FAKE_NVML_PATH must name libsgemm_fake_nvml.so (tests/extra.cmake sets it)"
#endif

namespace sgt {
namespace {

constexpr const char* kUuid = "GPU-00000000-1111-2222-3333-444444444444";

class ClockLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    log_path_ = ::testing::TempDir() + "fake_nvml_" + std::to_string(getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".log";
    std::remove(log_path_.c_str());
    if (const char* old = std::getenv("SGEMM_NVML_LIBRARY")) saved_library_ = old;
    setenv("SGEMM_NVML_LIBRARY", SGEMM_FAKE_NVML_PATH, 1);
    setenv("SGEMM_FAKE_NVML_LOG", log_path_.c_str(), 1);
    unsetenv("SGEMM_FAKE_NVML_SET_RESULT");
    unsetenv("SGEMM_FAKE_NVML_REASONS");
  }
  void TearDown() override {
    std::remove(log_path_.c_str());
    if (saved_library_) {
      setenv("SGEMM_NVML_LIBRARY", saved_library_->c_str(), 1);
    } else {
      unsetenv("SGEMM_NVML_LIBRARY");
    }
    unsetenv("SGEMM_FAKE_NVML_LOG");
    unsetenv("SGEMM_FAKE_NVML_SET_RESULT");
    unsetenv("SGEMM_FAKE_NVML_REASONS");
  }

  // The clock set/reset calls the fake recorded, in order.
  std::vector<std::string> clock_calls() const {
    std::vector<std::string> calls;
    std::ifstream in(log_path_);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("nvmlDeviceSet", 0) == 0 || line.rfind("nvmlDeviceReset", 0) == 0)
        calls.push_back(line);
    }
    return calls;
  }

  // Runs `body` in a forked child and returns its wait status.
  template <typename Body>
  int in_child(Body body) {
    const pid_t pid = fork();
    if (pid == 0) {
      body();
      _exit(99);  // body was expected to end the process itself
    }
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid);
    return status;
  }

  void expect_locked_then_reset(const std::vector<std::string>& calls) {
    ASSERT_EQ(calls.size(), 4u) << ::testing::PrintToString(calls);
    EXPECT_EQ(calls[0], "nvmlDeviceSetGpuLockedClocks 1980 1980 -> 0");
    EXPECT_EQ(calls[1], "nvmlDeviceSetMemoryLockedClocks 3201 3201 -> 0");
    EXPECT_EQ(calls[2], "nvmlDeviceResetMemoryLockedClocks");
    EXPECT_EQ(calls[3], "nvmlDeviceResetGpuLockedClocks");
  }

  std::string log_path_;
  std::optional<std::string> saved_library_;
};

TEST_F(ClockLockTest, LoadsTheFakeAndReads) {
  setenv("SGEMM_FAKE_NVML_REASONS", "0x4", 1);
  const Nvml nvml(kUuid, 0);
  ASSERT_TRUE(nvml.available()) << nvml.message();
  EXPECT_EQ(nvml.library_path(), SGEMM_FAKE_NVML_PATH);
  EXPECT_TRUE(nvml.matched_uuid());
  const NvmlReading r = nvml.read();
  EXPECT_EQ(r.sm_clock_mhz.value_or(0), 1755u);
  EXPECT_EQ(r.mem_clock_mhz.value_or(0), 3201u);
  EXPECT_DOUBLE_EQ(r.power_w.value_or(0), 312.0);
  EXPECT_EQ(r.temperature_c.value_or(0), 47u);
  EXPECT_EQ(r.reasons.value_or(0), 0x4u);
  EXPECT_EQ(nvml.max_clock_mhz(kNvmlClockGraphics).value_or(0), 1980u);
  std::ifstream in(log_path_);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "nvmlInit_v2");
}

TEST_F(ClockLockTest, MissingLibraryTurnsNvmlOff) {
  setenv("SGEMM_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  const Nvml nvml(kUuid, 0);
  EXPECT_FALSE(nvml.available());
  EXPECT_NE(nvml.message().find("NVML off"), std::string::npos) << nvml.message();
  EXPECT_FALSE(nvml.read().sm_clock_mhz.has_value());
  EXPECT_EQ(nvml.lock_gpu_clocks(1000, 1000), kNvmlErrorFunctionNotFound);
}

TEST_F(ClockLockTest, MissingSymbolTurnsNvmlOff) {
  setenv("SGEMM_NVML_LIBRARY", "libc.so.6", 1);  // loads, but has no nvmlInit_v2
  const Nvml nvml(kUuid, 0);
  EXPECT_FALSE(nvml.available());
  EXPECT_NE(nvml.message().find("nvmlInit_v2"), std::string::npos) << nvml.message();
}

TEST_F(ClockLockTest, ReasonNames) {
  EXPECT_EQ(reason_names(0), "none");
  EXPECT_EQ(reason_names(0x4 | 0x40), "SwPowerCap|HwThermalSlowdown");
  EXPECT_EQ(reason_names(0x1 | 0x400), "GpuIdle|0x400");
}

TEST_F(ClockLockTest, ParsesRequests) {
  EXPECT_EQ(parse_lock_request("base").kind, LockRequest::Kind::base);
  EXPECT_EQ(parse_lock_request("max").kind, LockRequest::Kind::max);
  const LockRequest r = parse_lock_request("1410");
  EXPECT_EQ(r.kind, LockRequest::Kind::mhz);
  EXPECT_EQ(r.mhz, 1410u);
  for (const char* bad : {"", "fast", "0", "12x", "-5", "99999"}) {
    EXPECT_THROW(parse_lock_request(bad), Error) << bad;
  }
}

TEST_F(ClockLockTest, LocksAndResetsOnScopeExit) {
  const Nvml nvml(kUuid, 0);
  ASSERT_EQ(nvml.library_path(), SGEMM_FAKE_NVML_PATH);
  {
    ClockLock lock(nvml, parse_lock_request("max"));
    EXPECT_TRUE(lock.locked()) << lock.message();
    EXPECT_EQ(lock.policy(), "lock:1980");
    EXPECT_EQ(clock_calls().size(), 2u);  // nothing reset yet
  }
  expect_locked_then_reset(clock_calls());
}

TEST_F(ClockLockTest, ReleaseIsIdempotent) {
  const Nvml nvml(kUuid, 0);
  ClockLock lock(nvml, parse_lock_request("max"));
  lock.release();
  lock.release();
  EXPECT_FALSE(lock.locked());
  expect_locked_then_reset(clock_calls());
}

TEST_F(ClockLockTest, ResetsWhenAnExceptionUnwinds) {
  const Nvml nvml(kUuid, 0);
  try {
    ClockLock lock(nvml, parse_lock_request("max"));
    ASSERT_TRUE(lock.locked());
    throw std::runtime_error("kernel failed");
  } catch (const std::runtime_error&) {
  }
  expect_locked_then_reset(clock_calls());
}

TEST_F(ClockLockTest, BaseAndMhzTargets) {
  const Nvml nvml(kUuid, 0);
  {
    ClockLock lock(nvml, parse_lock_request("base"));
    EXPECT_EQ(lock.policy(), "lock:base");
  }
  {
    ClockLock lock(nvml, parse_lock_request("1410"));
    EXPECT_EQ(lock.policy(), "lock:1410");
  }
  const std::vector<std::string> calls = clock_calls();
  ASSERT_EQ(calls.size(), 8u);
  EXPECT_EQ(calls[0], "nvmlDeviceSetGpuLockedClocks 4294967041 4294967041 -> 0");  // TDP id
  EXPECT_EQ(calls[4], "nvmlDeviceSetGpuLockedClocks 1410 1410 -> 0");
  EXPECT_EQ(calls[7], "nvmlDeviceResetGpuLockedClocks");
}

TEST_F(ClockLockTest, NoPermissionFallsBackToObserve) {
  setenv("SGEMM_FAKE_NVML_SET_RESULT", "no_permission", 1);
  const Nvml nvml(kUuid, 0);
  {
    ClockLock lock(nvml, parse_lock_request("max"));
    EXPECT_FALSE(lock.locked());
    EXPECT_EQ(lock.policy(), "observe");
    EXPECT_NE(lock.message().find("Insufficient Permissions"), std::string::npos) << lock.message();
    EXPECT_NE(lock.message().find("observe"), std::string::npos) << lock.message();
  }
  const std::vector<std::string> calls = clock_calls();
  ASSERT_EQ(calls.size(), 1u) << ::testing::PrintToString(calls);  // no reset: nothing locked
  EXPECT_EQ(calls[0], "nvmlDeviceSetGpuLockedClocks 1980 1980 -> 4");
}

TEST_F(ClockLockTest, NotSupportedFallsBackToObserve) {
  setenv("SGEMM_FAKE_NVML_SET_RESULT", "not_supported", 1);
  const Nvml nvml(kUuid, 0);
  ClockLock lock(nvml, parse_lock_request("1200"));
  EXPECT_FALSE(lock.locked());
  EXPECT_NE(lock.message().find("Not Supported"), std::string::npos) << lock.message();
}

TEST_F(ClockLockTest, NvmlOffMeansNoLock) {
  setenv("SGEMM_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  const Nvml nvml(kUuid, 0);
  ClockLock lock(nvml, parse_lock_request("max"));
  EXPECT_FALSE(lock.locked());
  EXPECT_NE(lock.message().find("observe"), std::string::npos);
}

TEST_F(ClockLockTest, ResetsOnStdExit) {
  const int status = in_child([] {
    static const Nvml nvml(kUuid, 0);
    new ClockLock(nvml, parse_lock_request("max"));  // never destroyed: the atexit hook resets
    std::exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  expect_locked_then_reset(clock_calls());
}

TEST_F(ClockLockTest, ResetsOnSigterm) {
  const int status = in_child([] {
    const Nvml nvml(kUuid, 0);
    ClockLock lock(nvml, parse_lock_request("max"));
    if (!lock.locked()) _exit(3);
    kill(getpid(), SIGTERM);
    pause();
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);  // re-raised with the default handler
  expect_locked_then_reset(clock_calls());
}

TEST_F(ClockLockTest, ResetsOnSigint) {
  const int status = in_child([] {
    const Nvml nvml(kUuid, 0);
    ClockLock lock(nvml, parse_lock_request("max"));
    if (!lock.locked()) _exit(3);
    raise(SIGINT);
    pause();
  });
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  expect_locked_then_reset(clock_calls());
}

}  // namespace
}  // namespace sgt
