// GPU tests of the Timer: a spin kernel of known cycle count times as cycles / SM clock, the
// same kernel interleaved with itself gives a ratio of 1, the clock probe reads a plausible MHz.
// Observe mode only: nothing here changes clocks. Skips cleanly without a usable GPU.
#include "measure/timer.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <iostream>
#include <string>

#include "common/error.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/module.hpp"
#include "cuda/stream.hpp"
#include "measure/clock_probe.hpp"
#include "measure/l2_flush.hpp"

namespace sgt {
namespace {

constexpr const char* kSpinSource = R"(
extern "C" __global__ void spin(long long cycles, int* sink) {
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles) now = clock64();
  if (now == 0) *sink = 1;  // never true: keeps the loop
}
)";

// NVRTC-compiled spin kernel: each thread loops on clock64 for `cycles`.
class SpinKernel {
 public:
  explicit SpinKernel(const std::string& arch) : sink_(1) {
    nvrtcProgram program = nullptr;
    SGT_NVRTC_CHECK(nvrtcCreateProgram(&program, kSpinSource, "spin.cu", 0, nullptr, nullptr));
    const std::string arch_option = "--gpu-architecture=" + arch;
    const char* options[] = {arch_option.c_str()};
    const nvrtcResult rc = nvrtcCompileProgram(program, 1, options);
    std::size_t log_size = 0;
    nvrtcGetProgramLogSize(program, &log_size);
    std::string log(log_size, '\0');
    nvrtcGetProgramLog(program, log.data());
    if (rc != NVRTC_SUCCESS) {
      nvrtcDestroyProgram(&program);
      throw Error(ErrorKind::compile, "spin kernel: " + log);
    }
    std::size_t size = 0;
    SGT_NVRTC_CHECK(nvrtcGetCUBINSize(program, &size));
    std::string cubin(size, '\0');
    SGT_NVRTC_CHECK(nvrtcGetCUBIN(program, cubin.data()));
    nvrtcDestroyProgram(&program);
    module_ = Module(cubin);
    function_ = module_.function("spin");
  }

  LaunchFn launch(long long cycles, unsigned blocks) const {
    return [this, cycles, blocks](cudaStream_t stream) {
      long long c = cycles;
      int* sink = sink_.get();
      void* args[] = {&c, &sink};
      SGT_CU_CHECK(driver().cuLaunchKernel(function_, blocks, 1, 1, 32, 1, 1, 0,
                                           reinterpret_cast<CUstream>(stream), args, nullptr));
    };
  }

 private:
  Module module_;
  CUfunction function_ = nullptr;
  DeviceBuffer<int> sink_;
};

class TimerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
    SGT_CUDA_CHECK(cudaSetDevice(0));
    device_ = query_device(0);
    stream_ = std::make_unique<Stream>();
    spin_ = std::make_unique<SpinKernel>(device_.arch());
    settings_.min_time_s = 0.2;
    settings_.timeout_s = 10;
    settings_.min_rounds = 30;
    settings_.min_round_time_s = 0.2;
  }

  static void print(const char* what, const Measurement& m) {
    std::cout << what << ": median " << m.median_us << " us, min " << m.min_us << ", rel stdev "
              << m.rel_stdev << ", samples " << m.samples_us.size() << ", discarded " << m.discarded
              << ", probe clock " << m.sm_clock_mhz << " MHz [" << m.sm_clock_min_mhz << ", "
              << m.sm_clock_max_mhz << "], span clock " << m.sm_clock_span_mhz
              << " MHz, NVML clock " << m.nvml_sm_clock_mhz << " MHz, power " << m.power_w
              << " W, stop " << m.stop_reason << ", warnings '" << m.warnings << "'\n";
  }

  DeviceInfo device_;
  MeasureSettings settings_;
  std::unique_ptr<Stream> stream_;
  std::unique_ptr<SpinKernel> spin_;
};

TEST_F(TimerTest, ClockProbeReadsPlausibleMhz) {
  ClockProbe probe(device_, 20);
  const double mhz = probe.read_mhz(stream_->get());
  std::cout << "clock probe: " << mhz << " MHz (device default " << device_.default_clock_khz / 1e3
            << " MHz)\n";
  EXPECT_GE(mhz, 100);
  EXPECT_LE(mhz, 3000);
  Timer timer(device_, settings_, stream_->get());
  for (const std::string& note : timer.notes()) std::cout << "note: " << note << "\n";
  EXPECT_EQ(timer.clock_policy(), "observe");
  const double again = timer.read_clock_mhz();
  EXPECT_GE(again, 100);
  EXPECT_LE(again, 3000);
}

TEST_F(TimerTest, L2FlusherIsTwiceTheL2) {
  L2Flusher flusher(device_.l2_bytes);
  EXPECT_EQ(flusher.bytes(), static_cast<std::size_t>(2 * device_.l2_bytes));
  flusher.flush(stream_->get());
  flusher.flush(stream_->get());
  EXPECT_NO_THROW(stream_->synchronize());
}

TEST_F(TimerTest, MeasureSpinKernelOfKnownLength) {
  Timer timer(device_, settings_, stream_->get());
  constexpr long long kCycles = 1'000'000;  // ~0.5 ms at 2 GHz
  const auto blocks = static_cast<unsigned>(device_.sm_count);
  const Measurement m = timer.measure(spin_->launch(kCycles, blocks));
  print("measure spin 1e6 cycles", m);
  ASSERT_GT(m.sm_clock_mhz, 100);
  const double expected_us = kCycles / m.sm_clock_mhz;
  EXPECT_NEAR(m.median_us, expected_us, 0.03 * expected_us);
  EXPECT_GE(static_cast<int>(m.samples_us.size()), settings_.min_samples);
  EXPECT_GE(m.gpu_time_s, settings_.min_time_s * 0.999);
  EXPECT_FALSE(m.stop_reason.empty());
  EXPECT_LE(m.min_us, m.median_us);
  // Every SM busy: SM 0's cycles across the sample agree with the probes around it.
  if (m.sm_clock_span_mhz > 0) {
    EXPECT_NEAR(m.sm_clock_span_mhz, m.sm_clock_mhz, 0.05 * m.sm_clock_mhz);
  }
}

TEST_F(TimerTest, MeasureShortSingleBlockKernel) {
  Timer timer(device_, settings_, stream_->get());
  constexpr long long kCycles = 20'000;  // ~10 us
  const Measurement m = timer.measure(spin_->launch(kCycles, 1));
  print("measure spin 2e4 cycles, 1 block", m);
  ASSERT_GT(m.sm_clock_mhz, 100);
  const double expected_us = kCycles / m.sm_clock_mhz;
  // Launch overhead inside the events is a few microseconds here.
  EXPECT_GT(m.median_us, expected_us * 0.97);
  EXPECT_LT(m.median_us, expected_us * 1.10 + 5);
}

TEST_F(TimerTest, ScreenSpinKernel) {
  Timer timer(device_, settings_, stream_->get());
  constexpr long long kCycles = 400'000;
  const auto blocks = static_cast<unsigned>(device_.sm_count);
  const Measurement m = timer.screen(spin_->launch(kCycles, blocks));
  print("screen spin 4e5 cycles", m);
  ASSERT_GT(m.sm_clock_mhz, 100);
  EXPECT_GE(static_cast<int>(m.samples_us.size()), settings_.screen_min_samples);
  EXPECT_GE(m.gpu_time_s * 1e3, settings_.screen_budget_ms * 0.999);
  EXPECT_NEAR(m.median_us, kCycles / m.sm_clock_mhz, 0.05 * kCycles / m.sm_clock_mhz);
}

TEST_F(TimerTest, InterleaveSameKernelTwiceGivesRatioOne) {
  Timer timer(device_, settings_, stream_->get());
  const auto blocks = static_cast<unsigned>(device_.sm_count);
  const LaunchFn a = spin_->launch(400'000, blocks);
  const Interleaved r = timer.interleave({a, a}, 12345);
  print("interleave kernel 0", r.kernels[0]);
  print("interleave kernel 1", r.kernels[1]);
  std::cout << "ratio median " << r.ratio_summary[1].median << " spread "
            << r.ratio_summary[1].spread << " rounds " << r.rounds << " discarded rounds "
            << r.discarded_rounds << "\n";
  EXPECT_EQ(r.seed, 12345u);
  ASSERT_EQ(r.kernels.size(), 2u);
  ASSERT_EQ(r.ratio_summary.size(), 2u);
  EXPECT_GE(r.rounds, settings_.min_rounds);
  EXPECT_EQ(r.ratios[1].size(), static_cast<std::size_t>(r.rounds));
  EXPECT_EQ(r.kernels[1].samples_us.size(), static_cast<std::size_t>(r.rounds));
  EXPECT_DOUBLE_EQ(r.ratio_summary[0].median, 1.0);
  EXPECT_NEAR(r.ratio_summary[1].median, 1.0, 0.01);
  EXPECT_LT(r.ratio_summary[1].spread, 0.02);
}

TEST_F(TimerTest, InterleaveSeesATwiceAsLongKernel) {
  Timer timer(device_, settings_, stream_->get());
  const auto blocks = static_cast<unsigned>(device_.sm_count);
  const Interleaved r =
      timer.interleave({spin_->launch(300'000, blocks), spin_->launch(600'000, blocks)}, 7);
  EXPECT_NEAR(r.ratio_summary[1].median, 2.0, 0.04);
}

TEST_F(TimerTest, EveryoneThrottledIsAnErrorNotANumber) {
  // A threshold no real clock reaches makes every sample "throttled".
  settings_.throttle_fraction = 100;
  settings_.timeout_s = 0.5;
  settings_.throttle_sleep_ms = 1;
  settings_.throttle_sleep_max_ms = 2;
  settings_.warmup_min_ms = 1;
  settings_.warmup_max_ms = 20;
  Timer timer(device_, settings_, stream_->get());
  const LaunchFn launch = spin_->launch(20'000, 1);
  try {
    timer.measure(launch);
    FAIL() << "measure() must throw when every sample is discarded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::internal) << e.what();
  }
  EXPECT_THROW(timer.interleave({launch, launch}, 1), Error);
}

}  // namespace
}  // namespace sgt
