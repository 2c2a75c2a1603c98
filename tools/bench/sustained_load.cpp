// Throughput under sustained load. For each problem of a shape list, sgemmSgemm (the tuned path)
// and cublasSgemm each run back to back for a few seconds, in alternating phases, while NVML is
// sampled (SM clock, power, clock-event reasons). `sgemm-tune bench` times single launches after
// an L2 flush with idle gaps between them; this shows whether a lead holds while the GPU is kept
// busy, and whether power capping (SwPowerCap) is what moves it. It only reads NVML.
//   sustained_load --db DB --shapes FILE [--seconds 3] [--phases 2] [--sample-ms 20] [--json FILE]
// Exit codes: 0 done, 1 runtime failure, 2 bad arguments, 3 no usable GPU.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "config/shape_list.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "measure/nvml.hpp"
#include "sgemm_dispatch.h"
#include "space/problem.hpp"
#include "tool_main.hpp"
#include "verify/utility_kernels.hpp"

namespace {

constexpr std::uint64_t kSwPowerCap = 0x4;
// HwSlowdown, SwThermalSlowdown, HwThermalSlowdown, HwPowerBrakeSlowdown.
constexpr std::uint64_t kSlowdowns = 0x8 | 0x20 | 0x40 | 0x80;

struct Args {
  std::string db, shapes, json;
  double seconds = 3;
  int phases = 2;
  int sample_ms = 20;
};

Args parse_args(int argc, char** argv) {
  Args a;
  for_each_option(argc, argv, [&a](const std::string& flag, const std::string& value) {
    if (flag == "--db")
      a.db = value;
    else if (flag == "--shapes")
      a.shapes = value;
    else if (flag == "--json")
      a.json = value;
    else if (flag == "--seconds")
      a.seconds = std::stod(value);
    else if (flag == "--phases")
      a.phases = std::stoi(value);
    else if (flag == "--sample-ms")
      a.sample_ms = std::stoi(value);
    else
      throw sgt::Error(sgt::ErrorKind::invalid_value, "unknown option " + flag);
  });
  if (a.db.empty() || a.shapes.empty())
    throw sgt::Error(sgt::ErrorKind::invalid_value,
                     "usage: sustained_load --db DB --shapes FILE [--seconds 3] [--phases 2] "
                     "[--sample-ms 20] [--json FILE]");
  if (a.seconds <= 0 || a.phases < 1 || a.sample_ms < 1)
    throw sgt::Error(sgt::ErrorKind::invalid_value,
                     "--seconds, --phases and --sample-ms must be positive");
  return a;
}

// NVML read every `period` on a thread of its own while a phase runs.
class Sampler {
 public:
  Sampler(const sgt::Nvml& nvml, int period_ms) : nvml_(nvml), period_ms_(period_ms) {}
  void start() {
    readings_.clear();
    stop_ = false;
    thread_ = std::thread([this] {
      while (!stop_.load()) {
        const sgt::NvmlReading r = nvml_.read();
        {
          std::lock_guard lock(mutex_);
          readings_.push_back(r);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(period_ms_));
      }
    });
  }
  std::vector<sgt::NvmlReading> stop() {
    stop_ = true;
    thread_.join();
    std::lock_guard lock(mutex_);
    return readings_;
  }

 private:
  const sgt::Nvml& nvml_;
  int period_ms_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<sgt::NvmlReading> readings_;
};

// One path's phases summed: calls, GPU time, and what NVML read meanwhile.
struct PathTotals {
  long long calls = 0;
  double gpu_ms = 0;
  double clock_sum = 0, power_sum = 0, power_max = 0;
  unsigned clock_min = ~0u;
  int samples = 0, clock_samples = 0, power_samples = 0, capped = 0, slowed = 0;
  std::uint64_t reasons = 0;

  void add(const std::vector<sgt::NvmlReading>& readings) {
    for (const sgt::NvmlReading& r : readings) {
      ++samples;
      if (r.sm_clock_mhz) {
        clock_sum += *r.sm_clock_mhz;
        clock_min = std::min(clock_min, *r.sm_clock_mhz);
        ++clock_samples;
      }
      if (r.power_w) {
        power_sum += *r.power_w;
        power_max = std::max(power_max, *r.power_w);
        ++power_samples;
      }
      if (r.reasons) {
        reasons |= *r.reasons;
        capped += (*r.reasons & kSwPowerCap) ? 1 : 0;
        slowed += (*r.reasons & kSlowdowns) ? 1 : 0;
      }
    }
  }
  double us_per_call() const {
    return calls > 0 ? 1000.0 * gpu_ms / static_cast<double>(calls) : 0;
  }
  double mean_clock() const { return clock_samples ? clock_sum / clock_samples : 0; }
  double mean_power() const { return power_samples ? power_sum / power_samples : 0; }
  nlohmann::json to_json(const sgt::ProblemKey& p) const {
    return {{"calls", calls},
            {"us_per_call", us_per_call()},
            {"tflops", us_per_call() > 0 ? sgt::flops(p) / us_per_call() / 1e6 : 0},
            {"sm_clock_mean_mhz", mean_clock()},
            {"sm_clock_min_mhz", clock_samples ? clock_min : 0},
            {"power_mean_w", mean_power()},
            {"power_max_w", power_max},
            {"samples", samples},
            {"power_capped_fraction", samples ? static_cast<double>(capped) / samples : 0},
            {"slowdown_fraction", samples ? static_cast<double>(slowed) / samples : 0},
            {"reasons", sgt::reason_names(reasons)}};
  }
};

// Runs `call` back to back for `seconds` with NVML sampled; at most two batches of about 100 ms
// are queued at a time, so the GPU never idles and the host never runs far ahead.
void run_phase(const std::function<void()>& call, cudaStream_t stream, double seconds,
               Sampler& sampler, PathTotals& totals) {
  cudaEvent_t t0, t1;
  SGT_CUDA_CHECK(cudaEventCreate(&t0));
  SGT_CUDA_CHECK(cudaEventCreate(&t1));
  for (int i = 0; i < 3; ++i) call();
  SGT_CUDA_CHECK(cudaEventRecord(t0, stream));
  for (int i = 0; i < 3; ++i) call();
  SGT_CUDA_CHECK(cudaEventRecord(t1, stream));
  SGT_CUDA_CHECK(cudaEventSynchronize(t1));
  float probe_ms = 0;
  SGT_CUDA_CHECK(cudaEventElapsedTime(&probe_ms, t0, t1));
  const long long batch =
      std::max(1LL, static_cast<long long>(100.0 / std::max(probe_ms / 3, 1e-3f)));

  std::vector<cudaEvent_t> done(2);
  for (cudaEvent_t& e : done) SGT_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  sampler.start();
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  SGT_CUDA_CHECK(cudaEventRecord(t0, stream));
  long long calls = 0;
  for (int b = 0; std::chrono::steady_clock::now() < end; ++b) {
    cudaEvent_t slot = done[static_cast<std::size_t>(b % 2)];
    if (b >= 2) SGT_CUDA_CHECK(cudaEventSynchronize(slot));  // the batch before the previous one
    for (long long i = 0; i < batch; ++i) call();
    calls += batch;
    SGT_CUDA_CHECK(cudaEventRecord(slot, stream));
  }
  SGT_CUDA_CHECK(cudaEventRecord(t1, stream));
  SGT_CUDA_CHECK(cudaEventSynchronize(t1));
  totals.add(sampler.stop());
  float ms = 0;
  SGT_CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));
  totals.calls += calls;
  totals.gpu_ms += ms;
  for (cudaEvent_t e : done) cudaEventDestroy(e);
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
}

int main_impl(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const std::vector<sgt::Shape> shapes = sgt::load_shape_list(args.shapes);
  if (const std::string why = sgt::gpu_unavailable_reason(); !why.empty()) {
    std::printf("%s\n", why.c_str());
    return 3;  // as sgemm-tune: no usable GPU
  }
  SGT_CUDA_CHECK(cudaFree(nullptr));
  const sgt::DeviceInfo device = sgt::query_device(0);
  const sgt::Nvml nvml(device.uuid, 0);
  if (!nvml.available())
    std::fprintf(stderr, "sustained_load: %s (no clock or power readings)\n",
                 nvml.message().c_str());
  sgt::UtilityKernels utility(device.arch());

  cudaStream_t stream = nullptr;
  SGT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t cublas = nullptr;
  SGT_CUBLAS_CHECK(cublasCreate(&cublas));
  SGT_CUBLAS_CHECK(cublasSetStream(cublas, stream));
  sgemmHandle_t h = nullptr;
  if (sgemmStatus_t s = sgemmCreate(&h, args.db.c_str()); s != SGEMM_STATUS_SUCCESS)
    throw sgt::Error(sgt::ErrorKind::database,
                     std::string("sgemmCreate: ") + sgemmGetStatusString(s));
  sgemmSetStream(h, stream);
  Sampler sampler(nvml, args.sample_ms);

  nlohmann::json out = {{"device", device.name},
                        {"uuid", device.uuid},
                        {"seconds", args.seconds},
                        {"phases", args.phases},
                        {"problems", nlohmann::json::array()}};
  std::printf("%s (%s), %d phases of %.1f s per path, alternating; NVML every %d ms\n",
              device.name.c_str(), device.uuid.c_str(), args.phases, args.seconds, args.sample_ms);
  std::printf("%-54s %-7s %10s %8s %7s %8s %8s %7s  %s\n", "problem", "path", "us/call", "TFLOP/s",
              "SM MHz", "min MHz", "power W", "capped", "reasons");
  double log_ratio_sum = 0;
  int ratios = 0;
  for (const sgt::Shape& shape : shapes) {
    const sgt::ProblemKey p = shape.problem.key;
    const std::size_t a_n = static_cast<std::size_t>(p.lda) * sgt::cols_a(p);
    const std::size_t b_n = static_cast<std::size_t>(p.ldb) * sgt::cols_b(p);
    const std::size_t c_n = static_cast<std::size_t>(p.ldc) * p.n;
    sgt::DeviceBuffer<float> a(a_n), b(b_n), c(c_n);
    // Random operands: power (and so the clock under a power cap) depends on the bits toggled.
    utility.fill_uniform(stream, a.get(), a_n, 1);
    utility.fill_uniform(stream, b.get(), b_n, 2);
    utility.fill_uniform(stream, c.get(), c_n, 3);
    const float alpha = shape.problem.alpha, beta = shape.problem.beta;
    const auto op = [](sgt::Op o) { return o == sgt::Op::N ? SGEMM_OP_N : SGEMM_OP_T; };
    const auto cop = [](sgt::Op o) { return o == sgt::Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; };
    char describe[2048] = {};
    sgemmDescribe(h, op(p.transa), op(p.transb), p.m, p.n, p.k, p.lda, p.ldb, p.ldc, describe,
                  sizeof describe);
    const auto tuned = [&] {
      if (sgemmStatus_t s = sgemmSgemm(h, op(p.transa), op(p.transb), p.m, p.n, p.k, &alpha,
                                       a.get(), p.lda, b.get(), p.ldb, &beta, c.get(), p.ldc);
          s != SGEMM_STATUS_SUCCESS)
        throw sgt::Error(sgt::ErrorKind::internal,
                         std::string("sgemmSgemm: ") + sgemmGetStatusString(s));
    };
    const auto reference = [&] {
      SGT_CUBLAS_CHECK(cublasSgemm(cublas, cop(p.transa), cop(p.transb), p.m, p.n, p.k, &alpha,
                                   a.get(), p.lda, b.get(), p.ldb, &beta, c.get(), p.ldc));
    };
    PathTotals totals[2];
    for (int phase = 0; phase < args.phases; ++phase) {
      run_phase(tuned, stream, args.seconds, sampler, totals[0]);
      run_phase(reference, stream, args.seconds, sampler, totals[1]);
    }
    const char* names[2] = {"sgemm", "cublas"};
    for (int i = 0; i < 2; ++i) {
      const PathTotals& t = totals[i];
      std::printf("%-54s %-7s %10.2f %8.2f %7.0f %8u %8.1f %6.0f%%  %s\n",
                  i == 0 ? p.to_string().c_str() : "", names[i], t.us_per_call(),
                  sgt::flops(p) / t.us_per_call() / 1e6, t.mean_clock(),
                  t.clock_samples ? t.clock_min : 0, t.mean_power(),
                  t.samples ? 100.0 * t.capped / t.samples : 0.0,
                  sgt::reason_names(t.reasons).c_str());
    }
    const double ratio =
        totals[0].us_per_call() > 0 ? totals[1].us_per_call() / totals[0].us_per_call() : 0;
    if (ratio > 0) {
      log_ratio_sum += std::log(ratio);
      ++ratios;
    }
    std::printf("%-54s ratio %.3f (cuBLAS time / sgemm time, sustained)\n", "", ratio);
    out["problems"].push_back({{"problem", p.to_string()},
                               {"route", nlohmann::json::parse(describe, nullptr, false)},
                               {"sgemm", totals[0].to_json(p)},
                               {"cublas", totals[1].to_json(p)},
                               {"ratio", ratio}});
  }
  const double geomean = ratios > 0 ? std::exp(log_ratio_sum / ratios) : 0;
  out["geomean_ratio"] = geomean;
  std::printf("geomean ratio over %d problems: %.3f\n", ratios, geomean);
  if (!args.json.empty()) {
    std::ofstream f(args.json);
    f << out.dump(2) << "\n";
    if (!f) throw sgt::Error(sgt::ErrorKind::invalid_value, args.json + ": cannot write");
  }
  sgemmDestroy(h);
  cublasDestroy(cublas);
  cudaStreamDestroy(stream);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return tool_main("sustained_load", [&] { return main_impl(argc, argv); });
}
