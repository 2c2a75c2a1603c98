// Wrong results and error statuses of sgemmSgemm under the two commonest concurrent patterns, per
// problem, on a tuning database: one thread on one handle with calls alternating between two
// streams, and two threads on one handle and one stream (threads that made no CUDA call before,
// as worker threads of an application often are). Each case makes 8 calls, each with its own A, B
// and C (C poisoned with NaN), and compares every C with pedantic cuBLAS on the same operands.
//   concurrency_table --db DB [--shapes FILE] [--repeats 4] [--markdown FILE]
// Without --shapes: the problems whose routes cover every route kind of the H200's shipped
// database (packed TMA, in-kernel split-K, F4's split with and without reduction, cuBLAS).
// Exit codes: 0 every call right, 1 a wrong result, an error status or a runtime failure, 2 bad
// arguments, 3 no usable GPU.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "config/shape_list.hpp"
#include "cuda/cublas_handle.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "sgemm_dispatch.h"
#include "tool_main.hpp"
#include "verify/utility_kernels.hpp"

namespace {

constexpr int kCalls = 8;
constexpr double kTolerance = 1e-4;  // relative Frobenius error; an overwritten C is off by ~1

struct Args {
  std::string db, shapes, markdown;
  int repeats = 4;
};

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw sgt::Error(sgt::ErrorKind::invalid_value, arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--db")
      a.db = value();
    else if (arg == "--shapes")
      a.shapes = value();
    else if (arg == "--markdown")
      a.markdown = value();
    else if (arg == "--repeats")
      a.repeats = std::stoi(value());
    else
      throw sgt::Error(sgt::ErrorKind::invalid_value, "unknown argument " + arg);
  }
  if (a.db.empty()) throw sgt::Error(sgt::ErrorKind::invalid_value, "--db is required");
  if (a.repeats < 1) throw sgt::Error(sgt::ErrorKind::invalid_value, "--repeats must be >= 1");
  return a;
}

std::vector<sgt::ProblemKey> default_problems() {
  const int sizes[][3] = {{4096, 4096, 4096}, {8192, 8192, 64}, {1024, 1024, 1024},
                          {3000, 3000, 3000}, {64, 64, 65536},  {4096, 16, 4096},
                          {2048, 2048, 2048}};
  std::vector<sgt::ProblemKey> out;
  for (const auto& s : sizes) {
    sgt::ProblemKey p;
    p.m = s[0], p.n = s[1], p.k = s[2];
    p = sgt::with_minimal_leading_dimensions(p);
    p.align = sgt::alignment_class(p.lda, p.ldb, p.ldc, 0, 0, 0);
    out.push_back(p);
  }
  return out;
}

sgemmOperation_t op(sgt::Op o) { return o == sgt::Op::N ? SGEMM_OP_N : SGEMM_OP_T; }

// Eight calls' operands and pedantic cuBLAS's results.
struct Operands {
  sgt::ProblemKey p;
  std::vector<sgt::DeviceBuffer<float>> a, b, c, ref;
};

Operands make_operands(const sgt::ProblemKey& p, const sgt::UtilityKernels& utility,
                       const sgt::CublasHandle& pedantic, std::uint64_t seed) {
  Operands o{p, {}, {}, {}, {}};
  for (int i = 0; i < kCalls; ++i) {
    o.a.emplace_back(sgt::elements_a(p));
    o.b.emplace_back(sgt::elements_b(p));
    o.c.emplace_back(sgt::elements_c(p));
    o.ref.emplace_back(sgt::elements_c(p));
    utility.fill_uniform(nullptr, o.a.back().get(), o.a.back().size(), seed++);
    utility.fill_uniform(nullptr, o.b.back().get(), o.b.back().size(), seed++);
    pedantic.sgemm(nullptr, p, 1.0f, o.a.back().get(), o.b.back().get(), 0.0f, o.ref.back().get());
  }
  SGT_CUDA_CHECK(cudaDeviceSynchronize());
  return o;
}

struct Outcome {
  int wrong = 0, errors = 0;
};

sgemmStatus_t call(sgemmHandle_t h, const Operands& o, int i) {
  const float alpha = 1.0f, beta = 0.0f;
  const sgt::ProblemKey& p = o.p;
  return sgemmSgemm(h, op(p.transa), op(p.transb), p.m, p.n, p.k, &alpha, o.a[i].get(), p.lda,
                    o.b[i].get(), p.ldb, &beta, o.c[i].get(), p.ldc);
}

Outcome check(const Operands& o, const std::vector<sgemmStatus_t>& status,
              const sgt::UtilityKernels& utility) {
  Outcome out;
  for (int i = 0; i < kCalls; ++i) {
    if (status[i] != SGEMM_STATUS_SUCCESS) {
      ++out.errors;
      continue;
    }
    const sgt::DiffNorms d =
        utility.diff(nullptr, o.c[i].get(), o.p.ldc, o.ref[i].get(), o.p.ldc, o.p.m, o.p.n);
    if (d.nonfinite > 0 || std::sqrt(d.diff_sq / std::max(d.ref_sq, 1e-300)) > kTolerance)
      ++out.wrong;
  }
  return out;
}

void poison_all(Operands& o, const sgt::UtilityKernels& utility) {
  for (auto& c : o.c) utility.poison(nullptr, c.get(), c.size());
  SGT_CUDA_CHECK(cudaDeviceSynchronize());
}

// One thread, one handle, calls alternating between two streams (sgemmSetStream between calls).
Outcome alternating_streams(const std::string& db, Operands& o,
                            const sgt::UtilityKernels& utility) {
  poison_all(o, utility);
  sgemmHandle_t h = nullptr;
  if (sgemmCreate(&h, db.c_str()) != SGEMM_STATUS_SUCCESS)
    throw sgt::Error(sgt::ErrorKind::database, "sgemmCreate failed on " + db);
  cudaStream_t s[2];
  for (cudaStream_t& x : s) SGT_CUDA_CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  std::vector<sgemmStatus_t> status(kCalls);
  for (int i = 0; i < kCalls; ++i) {
    sgemmSetStream(h, s[i % 2]);
    status[i] = call(h, o, i);
  }
  SGT_CUDA_CHECK(cudaDeviceSynchronize());
  for (cudaStream_t x : s) cudaStreamDestroy(x);
  sgemmDestroy(h);
  return check(o, status, utility);
}

// Two threads (no CUDA call made on them before), one handle, one stream, four calls each.
Outcome two_threads_one_stream(const std::string& db, Operands& o,
                               const sgt::UtilityKernels& utility) {
  poison_all(o, utility);
  sgemmHandle_t h = nullptr;
  if (sgemmCreate(&h, db.c_str()) != SGEMM_STATUS_SUCCESS)
    throw sgt::Error(sgt::ErrorKind::database, "sgemmCreate failed on " + db);
  cudaStream_t s = nullptr;
  SGT_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  sgemmSetStream(h, s);
  std::vector<sgemmStatus_t> status(kCalls);
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      for (int i = t; i < kCalls; i += 2) status[i] = call(h, o, i);
    });
  for (auto& t : threads) t.join();
  SGT_CUDA_CHECK(cudaDeviceSynchronize());
  cudaStreamDestroy(s);
  sgemmDestroy(h);
  return check(o, status, utility);
}

std::string route_of(const std::string& db, const sgt::ProblemKey& p) {
  sgemmHandle_t h = nullptr;
  if (sgemmCreate(&h, db.c_str()) != SGEMM_STATUS_SUCCESS) return "?";
  char text[4096];
  std::string out = "?";
  if (sgemmDescribe(h, op(p.transa), op(p.transb), p.m, p.n, p.k, p.lda, p.ldb, p.ldc, text,
                    sizeof text) == SGEMM_STATUS_SUCCESS) {
    const nlohmann::json d = nlohmann::json::parse(text);
    out = d.value("source", "?") + " " + d.value("family", "");
  }
  sgemmDestroy(h);
  return out;
}

std::string cell(const std::vector<Outcome>& runs) {
  int wrong = 0, errors = 0, worst = 0;
  for (const Outcome& r : runs) {
    wrong += r.wrong;
    errors += r.errors;
    worst = std::max(worst, r.wrong + r.errors);
  }
  if (wrong == 0 && errors == 0) return fmt::format("ok ({} calls)", kCalls * runs.size());
  return fmt::format("{} wrong, {} errors of {} calls (worst run {} of {})", wrong, errors,
                     kCalls * runs.size(), worst, kCalls);
}

int main_impl(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  std::vector<sgt::ProblemKey> problems;
  if (args.shapes.empty())
    problems = default_problems();
  else
    for (const sgt::Shape& s : sgt::load_shape_list(args.shapes)) problems.push_back(s.problem.key);
  if (const std::string why = sgt::gpu_unavailable_reason(); !why.empty()) {
    std::printf("%s\n", why.c_str());
    return 3;
  }
  SGT_CUDA_CHECK(cudaFree(nullptr));
  const sgt::DeviceInfo device = sgt::query_device(0);
  const sgt::UtilityKernels utility(device.arch());
  const sgt::CublasHandle pedantic(true);
  std::string header = "| pattern |", rule = "|---|",
              alt = "| one thread, one handle, calls alternating between two streams |",
              two = "| two threads, one handle, one stream |";
  bool all_right = true;
  std::uint64_t seed = 1;
  for (const sgt::ProblemKey& p : problems) {
    Operands o = make_operands(p, utility, pedantic, seed);
    seed += 2 * kCalls;
    std::vector<Outcome> a, b;
    for (int r = 0; r < args.repeats; ++r) {
      a.push_back(alternating_streams(args.db, o, utility));
      b.push_back(two_threads_one_stream(args.db, o, utility));
    }
    for (const auto* runs : {&a, &b})
      for (const Outcome& x : *runs) all_right = all_right && x.wrong == 0 && x.errors == 0;
    const std::string name = fmt::format("{}x{}x{} ({})", p.m, p.n, p.k, route_of(args.db, p));
    header += " " + name + " |";
    rule += "---|";
    alt += " " + cell(a) + " |";
    two += " " + cell(b) + " |";
    std::printf("%-48s alternating streams: %s; two threads: %s\n", name.c_str(), cell(a).c_str(),
                cell(b).c_str());
    std::fflush(stdout);
  }
  const std::string table = header + "\n" + rule + "\n" + alt + "\n" + two + "\n";
  std::printf("\n%s", table.c_str());
  if (!args.markdown.empty()) std::ofstream(args.markdown) << table;
  return all_right ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return tool_main("concurrency_table", [&] { return main_impl(argc, argv); });
}
