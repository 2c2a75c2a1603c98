// Tuning on use against offline tuning, on problems removed from a tuned database:
//   tune_on_use --db TUNED.db --shapes HELD_OUT.csv [--calls 20] [--rounds 200] [--idle 1]
//               [--json FILE]
// The held-out problems' winners are deleted from a copy of TUNED.db. For each problem, a handle on
// the copy with SGEMM_DISPATCH_TUNE=1 (a fresh per-user database) makes the first --calls calls
// back to back, as an application's calls come (no host wait between them, so that the trial times
// a busy GPU, not one waking from idle), each checked on the GPU against cuBLAS's result of the
// same call (normwise, FP32 tolerance; read back once the calls are done; --idle 1 waits for each
// call instead, and the trial then times a GPU that idled in between);
// then the route it settled on, and the offline winner's route from a handle on TUNED.db, are
// each timed against cublasSgemm in interleaved rounds (warm, back to back; median of the paired
// ratios). Reported: both speed-ups, their geomeans and quotient, the host time the first calls
// added over warm calls (the stall), and every wrong result. Exit 0 when every result was right.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/shape_list.hpp"
#include "cuda/device_buffer.hpp"
#include "db/database.hpp"
#include "measure/statistics.hpp"
#include "sgemm_dispatch.h"
#include "tool_main.hpp"

namespace {

using sgt::Error;
using sgt::ErrorKind;

struct Args {
  std::string db, shapes, json;
  int calls = 20, rounds = 200;
  bool idle = false;  // --idle: wait for each call before the next (the GPU idles between calls)
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
    else if (flag == "--calls")
      a.calls = std::stoi(value);
    else if (flag == "--rounds")
      a.rounds = std::stoi(value);
    else if (flag == "--idle")
      a.idle = value != "0";
    else
      throw Error(ErrorKind::invalid_value, "unknown option " + flag);
  });
  if (a.db.empty() || a.shapes.empty() || a.calls < 1 || a.rounds < 1)
    throw Error(ErrorKind::invalid_value,
                "usage: tune_on_use --db TUNED.db --shapes HELD_OUT.csv [--calls 20] "
                "[--rounds 200] [--idle 1] [--json FILE]");
  return a;
}

void check(cudaError_t e) {
  if (e != cudaSuccess) throw Error(ErrorKind::cuda, cudaGetErrorString(e));
}
void check(cublasStatus_t s) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(ErrorKind::cublas, "cuBLAS call failed");
}
void check(sgemmStatus_t s) {
  if (s != SGEMM_STATUS_SUCCESS) throw Error(ErrorKind::internal, sgemmGetStatusString(s));
}

// A copy of the tuned database without the held-out problems' winners.
void remove_winners(const std::string& path, const std::vector<sgt::Shape>& held_out) {
  sgt::Database db = sgt::Database::open(path, sgt::OpenMode::read_write);
  for (const sgt::Shape& s : held_out) {
    const sgt::ProblemKey& p = s.problem.key;
    sgt::Statement del(db,
                       "DELETE FROM winners WHERE problem_id IN (SELECT id FROM problems WHERE "
                       "transa = ?1 AND transb = ?2 AND m = ?3 AND n = ?4 AND k = ?5 AND lda = ?6 "
                       "AND ldb = ?7 AND ldc = ?8)");
    del.bind(1, std::string(1, sgt::op_char(p.transa)))
        .bind(2, std::string(1, sgt::op_char(p.transb)))
        .bind(3, p.m)
        .bind(4, p.n)
        .bind(5, p.k)
        .bind(6, p.lda)
        .bind(7, p.ldb)
        .bind(8, p.ldc);
    del.step();
  }
}

// One problem's operands, a scratch C and cuBLAS's C.
struct Operands {
  sgt::Problem problem;
  sgt::DeviceBuffer<float> a, b, c0, c, reference, dense;

  explicit Operands(const sgt::Problem& pr) : problem(pr) {
    const sgt::ProblemKey& p = pr.key;
    const auto fill = [](sgt::DeviceBuffer<float>& buffer, std::size_t n, unsigned seed) {
      std::mt19937 gen(seed);
      std::uniform_real_distribution<float> u(-1, 1);
      std::vector<float> host(n);
      for (float& x : host) x = u(gen);
      buffer = sgt::DeviceBuffer<float>(n);
      check(cudaMemcpy(buffer.get(), host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    };
    fill(a, static_cast<std::size_t>(p.lda) * sgt::cols_a(p), 1);
    fill(b, static_cast<std::size_t>(p.ldb) * sgt::cols_b(p), 2);
    fill(c0, static_cast<std::size_t>(p.ldc) * p.n, 3);
    c = sgt::DeviceBuffer<float>(c0.size());
    reference = sgt::DeviceBuffer<float>(c0.size());
    dense = sgt::DeviceBuffer<float>(static_cast<std::size_t>(p.m) * p.n);
  }
  void reset() {
    check(cudaMemcpy(c.get(), c0.get(), c0.size() * 4, cudaMemcpyDeviceToDevice));
    check(cudaMemcpy(reference.get(), c0.get(), c0.size() * 4, cudaMemcpyDeviceToDevice));
  }
  sgemmStatus_t dispatch(sgemmHandle_t h, cudaStream_t s) {
    const sgt::ProblemKey& p = problem.key;
    return sgemmSgemmOnStream(h, s, p.transa == sgt::Op::N ? SGEMM_OP_N : SGEMM_OP_T,
                              p.transb == sgt::Op::N ? SGEMM_OP_N : SGEMM_OP_T, p.m, p.n, p.k,
                              &problem.alpha, a.get(), p.lda, b.get(), p.ldb, &problem.beta,
                              c.get(), p.ldc);
  }
  void cublas(cublasHandle_t h, float* out) {
    const sgt::ProblemKey& p = problem.key;
    check(cublasSgemm(h, p.transa == sgt::Op::N ? CUBLAS_OP_N : CUBLAS_OP_T,
                      p.transb == sgt::Op::N ? CUBLAS_OP_N : CUBLAS_OP_T, p.m, p.n, p.k,
                      &problem.alpha, a.get(), p.lda, b.get(), p.ldb, &problem.beta, out, p.ldc));
  }
  // Enqueues the normwise difference of C from cuBLAS's C, ||C - R|| and ||R|| over the m x n
  // block, into out[0] and out[1] (device memory; `nrm` is a handle in device pointer mode).
  void enqueue_error(cublasHandle_t h, cublasHandle_t nrm, float* out) {
    const sgt::ProblemKey& p = problem.key;
    const float one = 1, minus_one = -1, zero = 0;
    check(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, p.m, p.n, &one, c.get(), p.ldc, &minus_one,
                      reference.get(), p.ldc, dense.get(), p.m));
    check(cublasSnrm2(nrm, p.m * p.n, dense.get(), 1, out));
    check(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, p.m, p.n, &one, reference.get(), p.ldc, &zero,
                      reference.get(), p.ldc, dense.get(), p.m));
    check(cublasSnrm2(nrm, p.m * p.n, dense.get(), 1, out + 1));
  }
};

// cuBLAS time over the handle's time: median of the paired ratios of interleaved rounds.
double speedup(Operands& x, sgemmHandle_t h, cublasHandle_t cublas, cudaStream_t s, int rounds) {
  std::vector<cudaEvent_t> e(3 * static_cast<std::size_t>(rounds));
  for (cudaEvent_t& ev : e) check(cudaEventCreate(&ev));
  for (int w = 0; w < 3; ++w) {
    check(x.dispatch(h, s));
    x.cublas(cublas, x.reference.get());
  }
  for (int r = 0; r < rounds; ++r) {
    check(cudaEventRecord(e[3 * r], s));
    check(x.dispatch(h, s));
    check(cudaEventRecord(e[3 * r + 1], s));
    x.cublas(cublas, x.reference.get());
    check(cudaEventRecord(e[3 * r + 2], s));
  }
  check(cudaStreamSynchronize(s));
  std::vector<double> ratios;
  for (int r = 0; r < rounds; ++r) {
    float own = 0, lib = 0;
    check(cudaEventElapsedTime(&own, e[3 * r], e[3 * r + 1]));
    check(cudaEventElapsedTime(&lib, e[3 * r + 1], e[3 * r + 2]));
    ratios.push_back(lib / own);
  }
  for (cudaEvent_t ev : e) cudaEventDestroy(ev);
  return sgt::median(ratios);
}

std::string describe(sgemmHandle_t h, const sgt::ProblemKey& p) {
  char buf[8192];
  const sgemmStatus_t st = sgemmDescribe(h, p.transa == sgt::Op::N ? SGEMM_OP_N : SGEMM_OP_T,
                                         p.transb == sgt::Op::N ? SGEMM_OP_N : SGEMM_OP_T, p.m, p.n,
                                         p.k, p.lda, p.ldb, p.ldc, buf, sizeof buf);
  return st == SGEMM_STATUS_SUCCESS ? std::string(buf) : std::string("{}");
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const std::vector<sgt::Shape> held_out = sgt::load_shape_list(args.shapes);
  const std::filesystem::path work =
      std::filesystem::temp_directory_path() / fmt::format("tune_on_use_{}", ::getpid());
  std::filesystem::create_directories(work);
  const std::string reduced = (work / "held-out.db").string();
  std::filesystem::copy_file(args.db, reduced, std::filesystem::copy_options::overwrite_existing);
  remove_winners(reduced, held_out);

  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cublasHandle_t cublas = nullptr;
  check(cublasCreate(&cublas));
  check(cublasSetStream(cublas, s));
  cublasHandle_t nrm = nullptr;  // the norms of the checks, written to device memory
  check(cublasCreate(&nrm));
  check(cublasSetStream(nrm, s));
  check(cublasSetPointerMode(nrm, CUBLAS_POINTER_MODE_DEVICE));
  sgemmHandle_t offline = nullptr;
  check(sgemmCreate(&offline, args.db.c_str()));

  nlohmann::json rows = nlohmann::json::array();
  double log_offline = 0, log_on_use = 0, worst_stall = 0;
  int wrong = 0;
  fmt::print("{:44} {:>8} {:>8} {:>9} {:>10}  route after {} calls\n", "problem", "offline",
             "on use", "stall ms", "max error", args.calls);
  for (const sgt::Shape& shape : held_out) {
    Operands x(shape.problem);
    // Warm calls' host time, on the offline handle's route.
    x.reset();
    check(x.dispatch(offline, s));
    check(cudaStreamSynchronize(s));
    std::vector<double> warm;
    for (int i = 0; i < args.calls; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      check(x.dispatch(offline, s));
      warm.push_back(seconds_since(t0));
      check(cudaStreamSynchronize(s));
    }
    const double offline_speedup = speedup(x, offline, cublas, s, args.rounds);

    // A fresh handle and per-user database: the problem is new to it.
    const std::string user_db = (work / fmt::format("user-{}.db", rows.size())).string();
    setenv("SGEMM_DISPATCH_TUNE", "1", 1);
    setenv("SGEMM_DISPATCH_TUNE_DB", user_db.c_str(), 1);
    sgemmHandle_t on_use = nullptr;
    check(sgemmCreate(&on_use, reduced.c_str()));
    unsetenv("SGEMM_DISPATCH_TUNE");
    unsetenv("SGEMM_DISPATCH_TUNE_DB");
    x.reset();
    sgt::DeviceBuffer<float> norms(2 * static_cast<std::size_t>(args.calls));
    double host = 0, max_error = 0;
    for (int i = 0; i < args.calls; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      check(x.dispatch(on_use, s));
      host += seconds_since(t0);
      x.cublas(cublas, x.reference.get());
      x.enqueue_error(cublas, nrm, norms.get() + 2 * i);
      if (args.idle) check(cudaStreamSynchronize(s));
    }
    check(cudaStreamSynchronize(s));
    std::vector<float> n2(norms.size());
    check(cudaMemcpy(n2.data(), norms.get(), n2.size() * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < args.calls; ++i) {
      const double d = n2[2 * i], r = n2[2 * i + 1];
      max_error = std::max(max_error, !std::isfinite(d) ? INFINITY : r > 0 ? d / r : d);
    }
    const double stall_ms = 1000 * (host - args.calls * sgt::median(warm));
    const bool right = max_error < 1e-5;
    wrong += right ? 0 : 1;
    const std::string route = describe(on_use, x.problem.key);
    const double on_use_speedup = speedup(x, on_use, cublas, s, args.rounds);
    check(sgemmDestroy(on_use));

    log_offline += std::log(offline_speedup);
    log_on_use += std::log(on_use_speedup);
    worst_stall = std::max(worst_stall, stall_ms);
    const nlohmann::json d = nlohmann::json::parse(route);
    fmt::print("{:44} {:8.3f} {:8.3f} {:9.2f} {:10.2e}  {} {}\n", x.problem.key.to_string(),
               offline_speedup, on_use_speedup, stall_ms, max_error, d.value("family", ""),
               d.value("config", "").substr(0, 40));
    rows.push_back({{"problem", x.problem.key.to_string()},
                    {"label", shape.label},
                    {"offline_speedup", offline_speedup},
                    {"on_use_speedup", on_use_speedup},
                    {"stall_ms", stall_ms},
                    {"max_error", max_error},
                    {"route", d}});
  }
  check(sgemmDestroy(offline));
  cublasDestroy(nrm);
  cublasDestroy(cublas);
  const double n = static_cast<double>(rows.size());
  const double g_offline = std::exp(log_offline / n), g_on_use = std::exp(log_on_use / n);
  fmt::print(
      "\n{} problems: geomean speed-up over cuBLAS offline {:.3f}, on use after {} calls {:.3f} "
      "({:.1f}% of offline); largest stall {:.1f} ms; wrong results {}\n",
      rows.size(), g_offline, args.calls, g_on_use, 100 * g_on_use / g_offline, worst_stall, wrong);
  if (!args.json.empty()) {
    std::ofstream out(args.json);
    out << nlohmann::json{{"problems", rows},
                          {"calls", args.calls},
                          {"geomean_offline", g_offline},
                          {"geomean_on_use", g_on_use},
                          {"largest_stall_ms", worst_stall},
                          {"wrong_results", wrong}}
               .dump(1)
        << "\n";
  }
  std::filesystem::remove_all(work);
  return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return tool_main("tune_on_use", [&] { return run(argc, argv); });
}
