// Host time per call on the warm path, with every call queued behind a spinning kernel so only
// the enqueue cost is timed: a bare cuLaunchKernel, cublasSgemm, and sgemmSgemm (a tuned kernel
// of one launch, a tuned split-K kernel with its reduction, which takes the stream's lane, and
// the cuBLAS fallback) on a 256^3 problem (256x256x1024 for the split). Median of 7 runs of 200
// calls.
//   dispatch_overhead [--db tuned.db] [--size 256] [--runs 7] [--calls 200]
// Without --db a scratch database is made with one f1_simt winner for the NN problem.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "cuda/driver_api.hpp"
#include "cuda/module.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/templates.hpp"
#include "sgemm_dispatch.h"
#include "space/family.hpp"
#include "tool_main.hpp"

namespace {

constexpr const char* kHelpers = R"(
extern "C" __global__ void empty_kernel(int) {}
extern "C" __global__ void spin_kernel(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
}
)";

// Bench-wide configurations of f1_simt that every recent GPU can run (64x64 tiles of 32x64
// warps): one launch, and a split of K in two summed by sgemm_reduce (a second launch and scratch).
constexpr const char* kConfig =
    "BK=8,BM=64,BN=64,MIN_BLOCKS=1,PAD=4,RASTER=1,REGDB=1,SPLITK=1,STAGES=3,TM=8,TN=8,WM=32,WN=64";
constexpr const char* kSplitConfig =
    "BK=8,BM=64,BN=64,MIN_BLOCKS=1,PAD=4,RASTER=1,REDUCE=0,REGDB=1,SPLITK=2,STAGES=3,TM=8,TN=8,WM="
    "32,WN=64";

std::string compile_helpers(const std::string& arch) {
  const sgt::CompileResult compiled = sgt::compile_source(kHelpers, "helpers.cu", {}, arch);
  if (!compiled.ok)
    throw sgt::Error(sgt::ErrorKind::compile, "helper kernels failed to compile: " + compiled.log);
  return compiled.cubin;
}

sgt::WinnerRecord f1_winner(const sgt::DeviceInfo& device, const char* config, int m, int n,
                            int k) {
  const sgt::Family& family = sgt::find_family("f1_simt");
  const sgt::Knobs knobs = sgt::with_knobs_added_later(family, sgt::parse_knobs(config));
  sgt::ProblemKey p;
  p.m = p.lda = p.ldc = m;
  p.n = n;
  p.k = p.ldb = k;
  p.align = sgt::alignment_class(p.lda, p.ldb, p.ldc, 0, 0, 0);
  if (std::string why = sgt::failed_constraint(family, knobs, sgt::DeviceLimits{}); !why.empty())
    throw sgt::Error(sgt::ErrorKind::invalid_value, "bench config: " + why);
  if (std::string why = family.cannot_implement(knobs, p); !why.empty())
    throw sgt::Error(sgt::ErrorKind::invalid_value, "bench config: " + why);
  const sgt::CompileResult r =
      sgt::compile_template("f1_simt.cu", family.defines(knobs, p), device.arch());
  if (!r.ok) throw sgt::Error(sgt::ErrorKind::compile, r.log);
  sgt::WinnerRecord w;
  w.problem = p;
  w.gpu = {device.name,     device.uuid,     device.arch(),
           device.sm_count, device.l2_bytes, device.default_clock_khz / 1000};
  const sgt::SoftwareInfo sw = sgt::query_software();
  w.software = {sw.driver, sw.runtime, sw.nvrtc, sw.cublas};
  w.family = family.name();
  w.config = sgt::knobs_to_string(knobs);
  w.template_hash = sgt::template_hash("f1_simt.cu");
  w.time_us = 1;  // placeholders: only the path matters here
  w.cublas_us = 2;
  w.cubin.assign(r.cubin.begin(), r.cubin.end());
  w.cubin_arch = device.arch();
  return w;
}

std::string make_database(const sgt::DeviceInfo& device, int size) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("sgemm_dispatch_overhead_" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(path);
  sgt::Database db = sgt::Database::open(path, sgt::OpenMode::create);
  sgt::TuningStore store(db);
  store.set_winner(f1_winner(device, kConfig, size, size, size));
  store.set_winner(f1_winner(device, kSplitConfig, size, size, 4 * size));
  return path;
}

struct Row {
  std::string name;
  double median_us = 0, min_us = 0;
  bool overran = false;  // the spin ended before the calls were queued: the numbers include waits
};

struct Options {
  std::string db_path;
  int size = 256, runs = 7, calls = 200;
};

// The command line; std::nullopt after printing the usage (an unknown option).
std::optional<Options> parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> const char* {
      if (i + 1 >= argc) throw sgt::Error(sgt::ErrorKind::invalid_value, a + " needs a value");
      return argv[++i];
    };
    if (a == "--db")
      o.db_path = next();
    else if (a == "--size")
      o.size = std::atoi(next());
    else if (a == "--runs")
      o.runs = std::atoi(next());
    else if (a == "--calls")
      o.calls = std::atoi(next());
    else {
      std::fprintf(stderr,
                   "usage: dispatch_overhead [--db PATH] [--size N] [--runs R] [--calls C]\n");
      return std::nullopt;
    }
  }
  return o;
}

// Prints what the dispatcher serves the three problems with; the first two must be the tuned
// kernels the database holds.
void describe_routes(sgemmHandle_t h, int size) {
  char text[2048];
  sgemmDescribe(h, SGEMM_OP_N, SGEMM_OP_N, size, size, size, size, size, size, text, sizeof text);
  std::printf("tuned:    %s\n", text);
  if (!std::strstr(text, "\"source\":\"exact\""))
    throw sgt::Error(sgt::ErrorKind::internal,
                     "the tuned problem is not served by its tuned kernel");
  sgemmDescribe(h, SGEMM_OP_N, SGEMM_OP_N, size, size, 4 * size, size, 4 * size, size, text,
                sizeof text);
  std::printf("split:    %s\n", text);
  if (!std::strstr(text, "\"source\":\"exact\""))
    throw sgt::Error(sgt::ErrorKind::internal,
                     "the split problem is not served by its tuned kernel");
  sgemmDescribe(h, SGEMM_OP_T, SGEMM_OP_N, size, size, size, size, size, size, text, sizeof text);
  std::printf("fallback: %s\n", text);
}

using Cases = std::vector<std::pair<std::string, std::function<void()>>>;

// Host time per call of each case: `calls` calls queued behind a spinning kernel, `runs` times.
std::vector<Row> time_cases(const Cases& cases, CUfunction spin, cudaStream_t stream, int runs,
                            int calls) {
  unsigned long long spin_ns = 50'000'000;  // 50 ms: far longer than 200 queued calls take
  void* spin_params[] = {&spin_ns};
  using clock = std::chrono::steady_clock;
  std::vector<Row> rows;
  for (const auto& [name, call] : cases) {
    for (int i = 0; i < 20; ++i) call();  // warm: routes resolved, kernels loaded
    SGT_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<double> per_call;
    Row row{name};
    for (int r = 0; r < runs; ++r) {
      SGT_CU_CHECK(sgt::driver().cuLaunchKernel(
          spin, 1, 1, 1, 1, 1, 1, 0, reinterpret_cast<CUstream>(stream), spin_params, nullptr));
      const auto t0 = clock::now();
      for (int i = 0; i < calls; ++i) call();
      const auto t1 = clock::now();
      if (cudaStreamQuery(stream) == cudaSuccess) row.overran = true;
      SGT_CUDA_CHECK(cudaStreamSynchronize(stream));
      per_call.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
    }
    std::sort(per_call.begin(), per_call.end());
    row.median_us = per_call[per_call.size() / 2];
    row.min_us = per_call.front();
    rows.push_back(row);
  }
  return rows;
}

int main_impl(int argc, char** argv) {
  const std::optional<Options> options = parse_options(argc, argv);
  if (!options) return 2;
  std::string db_path = options->db_path;
  const int size = options->size, runs = options->runs, calls = options->calls;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no usable GPU\n");
    return 3;
  }
  SGT_CUDA_CHECK(cudaSetDevice(0));
  SGT_CUDA_CHECK(cudaFree(nullptr));  // the primary context, current for the driver calls below
  const sgt::DeviceInfo device = sgt::query_device(0);
  if (db_path.empty()) db_path = make_database(device, size);

  const sgt::Module helpers(compile_helpers(device.arch()));
  const CUfunction empty = helpers.function("empty_kernel");
  const sgt::DriverApi& api = sgt::driver();

  cudaStream_t stream = nullptr;
  SGT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::size_t elems =
      static_cast<std::size_t>(size) * size * 4;  // B of the split: size x 4 size
  sgt::DeviceBuffer<float> a(elems), b(elems), c(elems);
  SGT_CUDA_CHECK(cudaMemset(a.get(), 0, a.bytes()));
  SGT_CUDA_CHECK(cudaMemset(b.get(), 0, b.bytes()));
  const float alpha = 1.0f, beta = 0.0f;

  cublasHandle_t cublas = nullptr;
  SGT_CUBLAS_CHECK(cublasCreate(&cublas));
  SGT_CUBLAS_CHECK(cublasSetStream(cublas, stream));
  sgemmHandle_t h = nullptr;
  if (sgemmStatus_t s = sgemmCreate(&h, db_path.c_str()); s != SGEMM_STATUS_SUCCESS)
    throw sgt::Error(sgt::ErrorKind::database,
                     std::string("sgemmCreate: ") + sgemmGetStatusString(s));
  sgemmSetStream(h, stream);

  describe_routes(h, size);

  const auto check = [](sgemmStatus_t s) {
    if (s != SGEMM_STATUS_SUCCESS)
      throw sgt::Error(sgt::ErrorKind::internal,
                       std::string("sgemmSgemm: ") + sgemmGetStatusString(s));
  };
  int arg = 0;
  void* empty_params[] = {&arg};
  const Cases cases = {
      {"bare cuLaunchKernel",
       [&] {
         SGT_CU_CHECK(api.cuLaunchKernel(empty, 1, 1, 1, 32, 1, 1, 0,
                                         reinterpret_cast<CUstream>(stream), empty_params,
                                         nullptr));
       }},
      {"cublasSgemm",
       [&] {
         SGT_CUBLAS_CHECK(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &alpha,
                                      a.get(), size, b.get(), size, &beta, c.get(), size));
       }},
      {"sgemmSgemm tuned (exact)",
       [&] {
         check(sgemmSgemm(h, SGEMM_OP_N, SGEMM_OP_N, size, size, size, &alpha, a.get(), size,
                          b.get(), size, &beta, c.get(), size));
       }},
      {"sgemmSgemm split-K + reduce",
       [&] {
         check(sgemmSgemm(h, SGEMM_OP_N, SGEMM_OP_N, size, size, 4 * size, &alpha, a.get(), size,
                          b.get(), 4 * size, &beta, c.get(), size));
       }},
      {"sgemmSgemm cuBLAS fallback",
       [&] {
         check(sgemmSgemm(h, SGEMM_OP_T, SGEMM_OP_N, size, size, size, &alpha, a.get(), size,
                          b.get(), size, &beta, c.get(), size));
       }},
  };

  const std::vector<Row> rows =
      time_cases(cases, helpers.function("spin_kernel"), stream, runs, calls);

  std::printf(
      "\n%s (%s), %dx%dx%d, median of %d runs of %d calls queued behind a spinning kernel\n",
      device.name.c_str(), device.arch().c_str(), size, size, size, runs, calls);
  std::printf("%-30s %14s %12s %14s\n", "path", "median us/call", "min us/call", "vs bare (us)");
  const double bare = rows.front().median_us;
  for (const Row& r : rows)
    std::printf("%-30s %14.2f %12.2f %+14.2f%s\n", r.name.c_str(), r.median_us, r.min_us,
                r.median_us - bare, r.overran ? "  (spin ended early: not enqueue-only)" : "");
  sgemmDestroy(h);
  cublasDestroy(cublas);
  cudaStreamDestroy(stream);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return tool_main("dispatch_overhead", [&] { return main_impl(argc, argv); });
}
