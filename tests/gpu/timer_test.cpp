// GPU tests of the Timer: a spin kernel of known cycle count times as cycles / SM clock, the
// same kernel interleaved with itself gives a ratio of 1, the clock probe reads a plausible MHz,
// and cache "rotate" times batches over operand copies (every copy launched, cuBLAS included).
// Observe mode only: nothing here changes clocks. Skips cleanly without a usable GPU.
#include "measure/timer.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "cuda/cublas_handle.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/module.hpp"
#include "cuda/stream.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "measure/clock_probe.hpp"
#include "measure/l2_flush.hpp"
#include "measure/operand_rotation.hpp"
#include "support/gpu_support.hpp"

namespace sgt {
namespace {

constexpr const char* kSpinSource = R"(
extern "C" __global__ void spin(long long cycles, int* sink) {
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles) now = clock64();
  if (now == 0) *sink = 1;  // never true: keeps the loop
}

// The same, counting its launches in *count.
extern "C" __global__ void spin_count(long long cycles, int* count) {
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles) now = clock64();
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(count, now != 0);
}
)";

// NVRTC-compiled spin kernel: each thread loops on clock64 for `cycles`.
class SpinKernel {
 public:
  explicit SpinKernel(const std::string& arch) : sink_(1) {
    const CompileResult compiled = compile_source(kSpinSource, "spin.cu", {}, arch);
    if (!compiled.ok) throw Error(ErrorKind::compile, "spin kernel: " + compiled.log);
    module_ = Module(compiled.cubin);
    function_ = module_.function("spin");
    count_function_ = module_.function("spin_count");
  }

  // Operand set `set` increments counts[set].
  RotatingLaunch counting(long long cycles, unsigned blocks, int* counts, int sets) const {
    return {
        [this, cycles, blocks, counts](cudaStream_t stream, int set) {
          long long c = cycles;
          int* count = counts + set;
          void* args[] = {&c, &count};
          SGT_CU_CHECK(driver().cuLaunchKernel(count_function_, blocks, 1, 1, 32, 1, 1, 0,
                                               reinterpret_cast<CUstream>(stream), args, nullptr));
        },
        sets};
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
  CUfunction count_function_ = nullptr;
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
              << " MHz, NVML clock " << m.nvml_sm_clock_mhz.value_or(0) << " MHz, power "
              << m.power_mw.value_or(0) / 1e3 << " W, temperature " << m.temperature_c.value_or(0)
              << " C, cache " << m.cache << " W, stop " << to_string(m.stop_reason)
              << ", warnings '" << m.warnings << "'\n";
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
  EXPECT_NE(m.stop_reason, StopReason::not_stopped);
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
  // About 0.25 ms a sample: all screen_samples fit in screen_max_ms.
  EXPECT_EQ(static_cast<int>(m.samples_us.size()), settings_.screen_samples);
  EXPECT_EQ(m.stop_reason, StopReason::samples);
  EXPECT_EQ(m.flushes, settings_.screen_samples);
  EXPECT_NEAR(m.median_us, kCycles / m.sm_clock_mhz, 0.05 * kCycles / m.sm_clock_mhz);
}

// A search's screening of a candidate already run (verified): a first sample above the rejection
// threshold is the only one; a median of the first screen_min_samples above the drop threshold
// ends it there, whatever the wall cap would allow; under both it goes on to screen_samples.
TEST_F(TimerTest, ScreenCutsAFirstSampleOrAMedianAboveItsThreshold) {
  Timer timer(device_, settings_, stream_->get());
  constexpr long long kCycles = 400'000;
  const auto blocks = static_cast<unsigned>(device_.sm_count);
  const LaunchFn spin = spin_->launch(kCycles, blocks);
  const RotatingLaunch launch{[&](cudaStream_t st, int) { spin(st); }, 1};
  timer.screen(launch);  // primes the kernel, as the verification does in a search
  const Measurement rejected = timer.screen(launch, true, {.reject_above_us = 1.0});
  print("screen spin 4e5 cycles, rejected", rejected);
  EXPECT_EQ(rejected.stop_reason, StopReason::rejected);
  EXPECT_EQ(rejected.samples_us.size(), 1u);
  EXPECT_GT(rejected.median_us, 1.0);
  const Measurement dropped = timer.screen(launch, true, {.drop_above_us = 1.0});
  print("screen spin 4e5 cycles, dropped", dropped);
  EXPECT_EQ(dropped.stop_reason, StopReason::dropped);
  EXPECT_EQ(static_cast<int>(dropped.samples_us.size()), settings_.screen_min_samples);
  EXPECT_EQ(dropped.flushes, settings_.screen_min_samples);
  // Both: the first sample decides first.
  const Measurement both =
      timer.screen(launch, true, {.reject_above_us = 1.0, .drop_above_us = 1.0});
  EXPECT_EQ(both.stop_reason, StopReason::rejected);
  const Measurement kept =
      timer.screen(launch, true, {.reject_above_us = 1e6, .drop_above_us = 1e6});
  EXPECT_EQ(kept.stop_reason, StopReason::samples);
  EXPECT_EQ(static_cast<int>(kept.samples_us.size()), settings_.screen_samples);
  // Primed: no launch before the samples, so a flush and a launch per sample and nothing else.
  EXPECT_EQ(kept.flushes, settings_.screen_samples);
  EXPECT_NEAR(kept.median_us, kCycles / kept.sm_clock_mhz, 0.05 * kCycles / kept.sm_clock_mhz);
}

TEST_F(TimerTest, ScreenOfALongKernelStopsAtTheWallCap) {
  settings_.screen_max_ms = 30;
  Timer timer(device_, settings_, stream_->get());
  constexpr long long kCycles = 8'000'000;  // about 4-5 ms a sample
  const auto blocks = static_cast<unsigned>(device_.sm_count);
  const Measurement m = timer.screen(spin_->launch(kCycles, blocks));
  print("screen spin 8e6 cycles", m);
  EXPECT_EQ(m.stop_reason, StopReason::wall_cap);
  EXPECT_GE(static_cast<int>(m.samples_us.size()), settings_.screen_min_samples);
  EXPECT_LT(static_cast<int>(m.samples_us.size()), settings_.screen_samples);
  // The cap is checked between batches sized to fit it: at most one batch over.
  EXPECT_LT(m.wall_time_s, 2.5 * settings_.screen_max_ms * 1e-3 + 0.05);
}

TEST_F(TimerTest, InterleaveOfSmallKernelsStopsAtTheRoundCap) {
  settings_.min_round_time_s = 1e3;  // out of reach: the cap must end it
  settings_.max_rounds = 60;
  Timer timer(device_, settings_, stream_->get());
  const LaunchFn a = spin_->launch(2'000, 1);
  const Interleaved r = timer.interleave({a, a}, 99);
  print("interleave capped", r.kernels[1]);
  EXPECT_EQ(r.kernels[0].stop_reason, StopReason::round_cap);
  EXPECT_GE(r.rounds, settings_.max_rounds);
  EXPECT_LE(r.rounds + r.discarded_rounds, settings_.max_rounds + 1);
  EXPECT_EQ(r.kernels[1].samples_us.size(), static_cast<std::size_t>(r.rounds));
  EXPECT_LT(r.kernels[0].wall_time_s, 5.0);
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

std::vector<int> to_host(const DeviceBuffer<int>& d) {
  std::vector<int> h(d.size());
  SGT_CUDA_CHECK(cudaMemcpy(h.data(), d.get(), d.bytes(), cudaMemcpyDeviceToHost));
  return h;
}

float first_float(const float* device) {
  float v = 0;
  SGT_CUDA_CHECK(cudaMemcpy(&v, device, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

TEST_F(TimerTest, RotateTimesOneLaunchOfTheBatchAndCyclesEverySet) {
  SGT_SKIP_WITHOUT_GPU();
  settings_.cache = CacheMode::rotate;
  Timer timer(device_, settings_, stream_->get());
  constexpr int kSets = 5;
  constexpr long long kCycles = 200'000;
  DeviceBuffer<int> counts(kSets);
  SGT_CUDA_CHECK(cudaMemset(counts.get(), 0, counts.bytes()));
  SGT_CUDA_CHECK(cudaDeviceSynchronize());
  const auto blocks = static_cast<unsigned>(device_.sm_count);
  const Measurement m = timer.measure(spin_->counting(kCycles, blocks, counts.get(), kSets));
  print("measure rotate 5 sets, spin 2e5 cycles", m);
  EXPECT_EQ(m.cache, "rotate:5");
  ASSERT_TRUE(std::isfinite(m.median_us));
  ASSERT_GT(m.median_us, 0);
  ASSERT_GT(m.sm_clock_mhz, 100);
  // The sample is the batch's time over its 5 launches: one launch's length, not five.
  EXPECT_NEAR(m.median_us, kCycles / m.sm_clock_mhz, 0.05 * kCycles / m.sm_clock_mhz);
  // Every set launched, in turn: the counts differ by at most one.
  const std::vector<int> c = to_host(counts);
  std::cout << "launches per set:";
  for (int v : c) std::cout << " " << v;
  std::cout << "\n";
  EXPECT_GE(*std::min_element(c.begin(), c.end()), static_cast<int>(m.samples_us.size()));
  EXPECT_LE(*std::max_element(c.begin(), c.end()) - *std::min_element(c.begin(), c.end()), 1);
}

TEST_F(TimerTest, RotationCopiesTheOperandsAndCublasRunsOnEveryCopy) {
  SGT_SKIP_WITHOUT_GPU();
  settings_.cache = CacheMode::rotate;
  const ProblemKey p = testing::make_problem(Op::N, Op::N, 1024, 1024, 1024);
  DeviceBuffer<float> a(elements_a(p)), b(elements_b(p)), c(elements_c(p));
  SGT_CUDA_CHECK(cudaMemset(a.get(), 0x3c, a.bytes()));  // 0.0115 in every element
  SGT_CUDA_CHECK(cudaMemset(b.get(), 0x3c, b.bytes()));
  SGT_CUDA_CHECK(cudaMemset(c.get(), 0, c.bytes()));
  SGT_CUDA_CHECK(cudaDeviceSynchronize());  // before the copies on the non-default stream
  const OperandRotation rotation(p, {a.get(), b.get(), c.get()}, settings_, stream_->get());
  std::cout << rotation.note() << "\n";
  ASSERT_GE(rotation.sets(), 2);
  const std::size_t set_bytes = (a.size() + b.size() + c.size()) * sizeof(float);
  EXPECT_EQ(rotation.plan().set_bytes, set_bytes);
  if (!rotation.plan().capped) {
    EXPECT_GE(rotation.plan().total_bytes, static_cast<std::size_t>(3 * device_.l2_bytes));
  }
  for (int i = 0; i < rotation.sets(); ++i) {
    EXPECT_NE(rotation.set(i).a, a.get());
    EXPECT_EQ(first_float(rotation.set(i).a), first_float(a.get()));
    EXPECT_EQ(first_float(rotation.set(i).c), 0.0f);
  }

  CublasHandle cublas(false);
  Timer timer(device_, settings_, stream_->get());
  const Measurement m = timer.screen(rotation.launch([&](cudaStream_t st, const OperandSet& o) {
    cublas.sgemm(st, p, 1.0f, o.a, o.b, 0.0f, o.c);
  }));
  print("screen cuBLAS 1024^3, rotate", m);
  EXPECT_EQ(m.cache, "rotate:" + std::to_string(rotation.sets()));
  EXPECT_TRUE(std::isfinite(m.median_us));
  EXPECT_GT(m.median_us, 0);
  // C = A B with beta 0 in every copy: each was launched.
  const float expected = 1024 * first_float(a.get()) * first_float(b.get());
  for (int i = 0; i < rotation.sets(); ++i)
    EXPECT_NEAR(first_float(rotation.set(i).c), expected, 1e-3f * expected) << "set " << i;
}

TEST_F(TimerTest, InterleaveRotatesCublasAndTheKernelAlike) {
  SGT_SKIP_WITHOUT_GPU();
  settings_.cache = CacheMode::rotate;
  const ProblemKey p = testing::make_problem(Op::N, Op::N, 2048, 2048, 2048);
  DeviceBuffer<float> a(elements_a(p)), b(elements_b(p)), c(elements_c(p));
  SGT_CUDA_CHECK(cudaMemset(a.get(), 0x3c, a.bytes()));
  SGT_CUDA_CHECK(cudaMemset(b.get(), 0x3c, b.bytes()));
  SGT_CUDA_CHECK(cudaDeviceSynchronize());
  const OperandRotation rotation(p, {a.get(), b.get(), c.get()}, settings_, stream_->get());
  ASSERT_GE(rotation.sets(), 2) << rotation.note();
  CublasHandle cublas(false);
  const auto gemm = [&](cudaStream_t st, const OperandSet& o) {
    cublas.sgemm(st, p, 1.0f, o.a, o.b, 0.0f, o.c);
  };
  Timer timer(device_, settings_, stream_->get());
  const Interleaved r = timer.interleave({rotation.launch(gemm), rotation.launch(gemm)}, 99);
  print("interleave cuBLAS rotate 0", r.kernels[0]);
  print("interleave cuBLAS rotate 1", r.kernels[1]);
  const std::string cache = "rotate:" + std::to_string(rotation.sets());
  for (const Measurement& m : r.kernels) {
    EXPECT_EQ(m.cache, cache);
    EXPECT_TRUE(std::isfinite(m.median_us));
    EXPECT_GT(m.median_us, 0);
  }
  EXPECT_NEAR(r.ratio_summary[1].median, 1.0, 0.05);
}

TEST_F(TimerTest, RotateWithOneOperandSetFallsBackToColdFlush) {
  SGT_SKIP_WITHOUT_GPU();
  settings_.cache = CacheMode::rotate;
  Timer timer(device_, settings_, stream_->get());
  const Measurement m = timer.screen(spin_->launch(50'000, 1));
  EXPECT_EQ(m.cache, "cold-flush");
  EXPECT_NE(m.warnings.find("one operand set"), std::string::npos) << m.warnings;
  EXPECT_GT(m.median_us, 0);
}

TEST_F(TimerTest, NvmlReadingsAreCarriedByTheMeasurement) {
  SGT_SKIP_WITHOUT_GPU();
  Timer timer(device_, settings_, stream_->get());
  if (!timer.nvml_available()) GTEST_SKIP() << "NVML not available";
  const auto blocks = static_cast<unsigned>(device_.sm_count);
  for (const Measurement& m : {timer.screen(spin_->launch(400'000, blocks)),
                               timer.measure(spin_->launch(400'000, blocks))}) {
    print("with NVML", m);
    EXPECT_TRUE(m.nvml);
    ASSERT_TRUE(m.power_mw.has_value());
    EXPECT_GT(*m.power_mw, 10'000);  // > 10 W
    ASSERT_TRUE(m.temperature_c.has_value());
    EXPECT_GT(*m.temperature_c, 0);
    EXPECT_LT(*m.temperature_c, 120);
    EXPECT_TRUE(m.reasons_seen.has_value());
  }
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
