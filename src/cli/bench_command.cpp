// `sgemm-tune bench`: the dispatcher (libsgemm_dispatch, as an application calls it) against
// cublasSgemm over a shape list, both checked and timed in the same interleaved rounds.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "cli/cli_common.hpp"
#include "common/error.hpp"
#include "config/shape_list.hpp"
#include "config/tuning_settings.hpp"
#include "cuda/cublas_handle.hpp"
#include "cuda/device_info.hpp"
#include "cuda/stream.hpp"
#include "measure/timer.hpp"
#include "sgemm_dispatch.h"
#include "verify/gemm_checker.hpp"

namespace sgt::cli {
namespace {

struct BenchArgs {
  std::string shapes, db, settings, json;
  std::uint64_t seed = 20261201;
};

// Device-to-device copy bandwidth, bytes read plus written per second (the memory ceiling).
double measure_copy_tbps(cudaStream_t stream) {
  const std::size_t bytes = std::size_t(1) << 31;
  DeviceBuffer<char> src(bytes), dst(bytes);
  Event start, stop;
  SGT_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
  start.record(stream);
  for (int i = 0; i < 5; ++i)
    SGT_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
  stop.record(stream);
  stop.synchronize();
  return 5.0 * 2.0 * bytes / (stop.elapsed_ms_since(start) * 1e-3) / 1e12;
}

sgemmOperation_t op(Op o) { return o == Op::N ? SGEMM_OP_N : SGEMM_OP_T; }

int run_bench(const BenchArgs& a) {
  const std::vector<Shape> shapes = load_shape_list(a.shapes);
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) {
    spdlog::error("sgemm-tune bench needs a GPU: {}", why);
    return kExitNoGpu;
  }
  const DeviceInfo device = query_device(0);
  const TuningSettings settings =
      load_tuning_settings(a.settings.empty() ? default_config_path("measure.yaml") : a.settings);
  Stream stream;
  CublasHandle cublas(false);    // what an application's cublasSgemm does
  CublasHandle reference(true);  // the verification reference
  UtilityKernels utility(device.arch());
  Timer timer(device, settings.measure, stream.get());
  sgemmHandle_t handle = nullptr;
  if (const sgemmStatus_t st = sgemmCreate(&handle, a.db.c_str()); st != SGEMM_STATUS_SUCCESS)
    throw Error(ErrorKind::database, fmt::format("sgemmCreate({}): {}", a.db, sgemmGetStatusString(st)));
  sgemmSetStream(handle, stream.get());

  const double peak_tflops = device.sm_count * 128.0 * 2.0 * device.default_clock_khz * 1e3 / 1e12;
  const double copy_tbps = measure_copy_tbps(stream.get());
  spdlog::info("{}: FP32 peak {:.1f} TFLOP/s at {} MHz, device copy {:.2f} TB/s", device.name,
               peak_tflops, device.default_clock_khz / 1000, copy_tbps);

  nlohmann::json rows = nlohmann::json::array();
  std::printf("%-40s %-7s %10s %10s %8s %9s %7s %7s %s\n", "problem", "path", "tuned us", "cuBLAS us",
              "ratio", "TFLOP/s", "%peak", "%floor", "kernel");
  std::vector<double> ratios;
  for (const Shape& shape : shapes) {
    const ProblemKey& p = shape.problem.key;
    const float alpha = shape.problem.alpha, beta = shape.problem.beta;
    GemmChecker checker(p, utility, reference, stream.get(), settings.verify.tolerance_factor);
    const GemmFn dispatched = [&](cudaStream_t, float al, const float* x, const float* y, float be, float* c) {
      const sgemmStatus_t st = sgemmSgemm(handle, op(p.transa), op(p.transb), p.m, p.n, p.k, &al, x, p.lda,
                                          y, p.ldb, &be, c, p.ldc);
      if (st != SGEMM_STATUS_SUCCESS)
        throw Error(ErrorKind::internal, fmt::format("sgemmSgemm: {}", sgemmGetStatusString(st)));
    };
    const CheckResult check = checker.check(dispatched, a.seed + 17);
    checker.fill_random(a.seed);
    const Interleaved rounds = timer.interleave(
        {[&](cudaStream_t s) { cublas.sgemm(s, p, alpha, checker.a(), checker.b(), beta, checker.c()); },
         [&](cudaStream_t s) { dispatched(s, alpha, checker.a(), checker.b(), beta, checker.c()); }},
        a.seed);
    char description[1024] = {};
    sgemmDescribe(handle, op(p.transa), op(p.transb), p.m, p.n, p.k, p.lda, p.ldb, p.ldc, description,
                  sizeof description);
    const nlohmann::json route = nlohmann::json::parse(description);
    const double tuned_us = rounds.kernels[1].median_us, cublas_us = rounds.kernels[0].median_us;
    const double ratio = 1.0 / rounds.ratio_summary[1].median;  // cuBLAS time / tuned time
    const double tflops = flops(p) / (tuned_us * 1e6);
    const double floor_us = roofline_floor_us(p, peak_tflops, copy_tbps);
    ratios.push_back(ratio);
    std::printf("%-40s %-7s %10.2f %10.2f %7.3fx %9.2f %6.1f%% %6.1f%% %s%s\n",
                fmt::format("{}{} {}x{}x{}", op_char(p.transa), op_char(p.transb), p.m, p.n, p.k).c_str(),
                route.value("source", "?").c_str(), tuned_us, cublas_us, ratio, tflops,
                100 * tflops / peak_tflops, 100 * floor_us / tuned_us, route.value("family", "?").c_str(),
                check.passed ? "" : "  INCORRECT");
    rows.push_back({{"problem", p.to_string()}, {"label", shape.label}, {"transa", std::string(1, op_char(p.transa))},
                    {"transb", std::string(1, op_char(p.transb))}, {"m", p.m}, {"n", p.n}, {"k", p.k},
                    {"route", route}, {"tuned_us", tuned_us}, {"cublas_us", cublas_us}, {"ratio", ratio},
                    {"ratio_spread", rounds.ratio_summary[1].spread}, {"rounds", rounds.rounds},
                    {"tflops", tflops}, {"percent_peak", 100 * tflops / peak_tflops},
                    {"floor_us", floor_us}, {"percent_floor", 100 * floor_us / tuned_us},
                    {"correct", check.passed}, {"check", check.message},
                    {"sm_clock_mhz", rounds.kernels[1].sm_clock_mhz}});
  }
  double log_sum = 0;
  for (double r : ratios) log_sum += std::log(r);
  const double geomean = ratios.empty() ? 0 : std::exp(log_sum / ratios.size());
  std::printf("geomean ratio (cuBLAS time / tuned time): %.3f over %zu problems\n", geomean, ratios.size());
  sgemmDestroy(handle);
  if (!a.json.empty()) {
    const nlohmann::json doc = {{"device", device.name}, {"arch", device.arch()}, {"sm_count", device.sm_count},
                                {"peak_tflops", peak_tflops}, {"copy_tbps", copy_tbps},
                                {"database", a.db}, {"shapes", a.shapes}, {"seed", a.seed},
                                {"clock_policy", timer.clock_policy()}, {"geomean_ratio", geomean},
                                {"problems", rows}};
    std::ofstream(a.json) << doc.dump(2) << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench", "Dispatcher vs cuBLAS over a shape list");
  cmd->add_option("--shapes", a->shapes, "Shape list")->required();
  cmd->add_option("--db", a->db, "Tuning database the dispatcher reads");
  cmd->add_option("--settings", a->settings, "Measurement settings (default: configs/measure.yaml)");
  cmd->add_option("--json", a->json, "Also write the results as JSON to this file");
  cmd->add_option("--seed", a->seed, "Data seed");
  cmd->callback([a, &exit_code] {
    if (a->db.empty()) a->db = default_database_path();
    exit_code = run_bench(*a);
  });
}

}  // namespace sgt::cli
