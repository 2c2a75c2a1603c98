// `sgemm-tune bench`: the dispatcher (libsgemm_dispatch, as an application calls it) against
// cublasSgemm and the best of cuBLASLt's top heuristic algorithms over a shape list, all checked
// and timed in the same interleaved rounds.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/bench_problem.hpp"
#include "cli/bench_row.hpp"
#include "cli/cli_common.hpp"
#include "common/error.hpp"
#include "config/shape_list.hpp"
#include "config/tuning_settings.hpp"
#include "cuda/cublas_handle.hpp"
#include "cuda/cublaslt_gemm.hpp"
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
  int lt_algos = CublasLtGemm::kDefaultTopK;  // 0: no cuBLASLt comparison
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
  TuningSettings settings =
      load_tuning_settings(a.settings.empty() ? default_config_path("measure.yaml") : a.settings);
  settings.measure.max_rounds = settings.measure.bench_max_rounds;
  Stream stream;
  CublasHandle cublas(false);    // what an application's cublasSgemm does
  CublasHandle reference(true);  // the verification reference
  UtilityKernels utility(device.arch());
  Timer timer(device, settings.measure, stream.get());
  sgemmHandle_t handle = nullptr;
  if (const sgemmStatus_t st = sgemmCreate(&handle, a.db.c_str()); st != SGEMM_STATUS_SUCCESS)
    throw Error(ErrorKind::database,
                fmt::format("sgemmCreate({}): {}", a.db, sgemmGetStatusString(st)));
  sgemmSetStream(handle, stream.get());

  const double peak_tflops = device.sm_count * 128.0 * 2.0 * device.default_clock_khz * 1e3 / 1e12;
  const double copy_tbps = measure_copy_tbps(stream.get());
  // The unit is named: the same configuration's lead over cuBLAS differs between units of one
  // model by a few percent (docs/findings.md, "Units of one model differ by a few percent").
  spdlog::info("{} ({}): FP32 peak {:.1f} TFLOP/s at {} MHz, device copy {:.2f} TB/s", device.name,
               device.uuid, peak_tflops, device.default_clock_khz / 1000, copy_tbps);

  std::unique_ptr<CublasLtGemm> lt;
  if (a.lt_algos > 0) lt = std::make_unique<CublasLtGemm>();
  const BenchContext ctx{settings, stream.get(), cublas,      reference, utility, timer,
                         lt.get(), a.lt_algos,   peak_tflops, copy_tbps, a.seed};

  nlohmann::json rows = nlohmann::json::array();
  std::printf("%s\n", bench_table_header(lt != nullptr).c_str());
  std::vector<double> ratios, lt_ratios;
  for (const Shape& shape : shapes) {
    const ProblemKey& p = shape.problem.key;
    const GemmFn dispatched = [&](cudaStream_t, float al, const float* x, const float* y, float be,
                                  float* c) {
      const sgemmStatus_t st = sgemmSgemm(handle, op(p.transa), op(p.transb), p.m, p.n, p.k, &al, x,
                                          p.lda, y, p.ldb, &be, c, p.ldc);
      if (st != SGEMM_STATUS_SUCCESS)
        throw Error(ErrorKind::internal, fmt::format("sgemmSgemm: {}", sgemmGetStatusString(st)));
    };
    BenchRow row = bench_problem(ctx, shape, dispatched);
    char description[1024] = {};
    sgemmDescribe(handle, op(p.transa), op(p.transb), p.m, p.n, p.k, p.lda, p.ldb, p.ldc,
                  description, sizeof description);
    row.route = nlohmann::json::parse(description);
    ratios.push_back(row.ratio);
    if (row.lt.has_result()) lt_ratios.push_back(row.lt.ratio);
    std::printf("%s\n", bench_table_line(row, lt != nullptr).c_str());
    std::fflush(stdout);
    rows.push_back(bench_row_json(row));
  }
  const double geomean = geometric_mean(ratios);
  std::printf("geomean ratio (cuBLAS time / tuned time): %.3f over %zu problems\n", geomean,
              ratios.size());
  const double lt_geomean = geometric_mean(lt_ratios);
  if (lt)
    std::printf("geomean ratio (cuBLASLt best time / tuned time): %.3f over %zu problems\n",
                lt_geomean, lt_ratios.size());
  sgemmDestroy(handle);
  if (!a.json.empty()) {
    const nlohmann::json doc = {
        {"device", device.name},
        {"uuid", device.uuid},
        {"arch", device.arch()},
        {"sm_count", device.sm_count},
        {"peak_tflops", peak_tflops},
        {"copy_tbps", copy_tbps},
        {"database", a.db},
        {"shapes", a.shapes},
        {"seed", a.seed},
        {"clock_policy", timer.clock_policy()},
        {"geomean_ratio", geomean},
        {"lt_algos", a.lt_algos},
        {"geomean_lt_ratio", lt ? nlohmann::json(lt_geomean) : nlohmann::json()},
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
  cmd->add_option("--settings", a->settings,
                  "Measurement settings (default: configs/measure.yaml)");
  cmd->add_option("--json", a->json, "Also write the results as JSON to this file");
  cmd->add_option("--seed", a->seed, "Data seed");
  cmd->add_option("--lt-algos", a->lt_algos,
                  "Also time the best of cuBLASLt's top K heuristic algorithms (0: off)")
      ->check(CLI::Range(0, 64));
  cmd->callback([a, &exit_code] {
    if (a->db.empty()) a->db = default_database_path();
    exit_code = run_bench(*a);
  });
}

}  // namespace sgt::cli
