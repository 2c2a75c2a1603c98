// An application that knows nothing of sgemm-tune: it calls cuBLAS's FP32 GEMM entry points the
// ways programs do, and writes every result's bytes, so that a run under
// LD_PRELOAD=libsgemm_cublas.so can be compared with a run without it.
//
//   cublas_app MODE OUT m,n,k,TA,TB [...]
//
// MODE: sgemm (cublasSgemm_v2), gemmex (cublasGemmEx, CUBLAS_COMPUTE_32F), sgemmex (cublasSgemmEx),
// beta (cublasSgemm_v2 with beta = 0.5 on a random C), tf32 (TF32 math mode), device-pointers
// (alpha and beta on the device), threads (4 threads, each its own handle and stream, twice),
// streams (one handle, its stream changed between calls), graph (each call captured in a CUDA
// graph, then the graph launched), recreated (a handle made, used, destroyed, and a new one made).
// Each result is also checked against an FP64 product on the host; the largest normwise error is
// printed. Exit 0 on success, 1 on any CUDA or cuBLAS error.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

#define CHECK(call)                                                                        \
  do {                                                                                     \
    const int status_ = static_cast<int>(call);                                            \
    if (status_ != 0) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, status_); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

struct Shape {
  int m, n, k;
  cublasOperation_t ta, tb;
};

struct Problem {
  Shape s;
  int lda, ldb, ldc;
  std::vector<float> a, b, c0;
  float alpha = 1.0f, beta = 0.0f;
};

Problem make(const Shape& s, unsigned seed, bool with_beta) {
  Problem p{s, s.ta == CUBLAS_OP_N ? s.m : s.k, s.tb == CUBLAS_OP_N ? s.k : s.n, s.m};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  p.a.resize(static_cast<size_t>(p.lda) * (s.ta == CUBLAS_OP_N ? s.k : s.m));
  p.b.resize(static_cast<size_t>(p.ldb) * (s.tb == CUBLAS_OP_N ? s.n : s.k));
  p.c0.resize(static_cast<size_t>(p.ldc) * s.n);
  for (float& x : p.a) x = u(rng);
  for (float& x : p.b) x = u(rng);
  for (float& x : p.c0) x = with_beta ? u(rng) : std::nanf("");
  p.alpha = 1.5f;
  p.beta = with_beta ? 0.5f : 0.0f;
  return p;
}

// ||C - C64|| / (sqrt(k + 2) |alpha| ||A|| ||B|| + 2 |beta| ||C0||), the tuner's normwise error.
double error_of(const Problem& p, const std::vector<float>& c) {
  const Shape& s = p.s;
  double diff = 0, na = 0, nb = 0, nc = 0;
  for (float x : p.a) na += double(x) * x;
  for (float x : p.b) nb += double(x) * x;
  for (int j = 0; j < s.n; ++j)
    for (int i = 0; i < s.m; ++i) {
      double sum = 0;
      for (int l = 0; l < s.k; ++l) {
        const double a =
            s.ta == CUBLAS_OP_N ? p.a[i + size_t(l) * p.lda] : p.a[l + size_t(i) * p.lda];
        const double b =
            s.tb == CUBLAS_OP_N ? p.b[l + size_t(j) * p.ldb] : p.b[j + size_t(l) * p.ldb];
        sum += a * b;
      }
      const double c0 = p.beta != 0 ? p.c0[i + size_t(j) * p.ldc] : 0;
      nc += c0 * c0;
      const double ref = p.alpha * sum + p.beta * c0;
      const double d = c[i + size_t(j) * p.ldc] - ref;
      diff += std::isfinite(d) ? d * d : INFINITY;
    }
  return std::sqrt(diff) / (std::sqrt(s.k + 2.0) * std::fabs(p.alpha) * std::sqrt(na * nb) +
                            2 * std::fabs(p.beta) * std::sqrt(nc));
}

struct Device {
  float *a = nullptr, *b = nullptr, *c = nullptr, *scalars = nullptr;
  explicit Device(const Problem& p) {
    CHECK(cudaMalloc(&a, p.a.size() * 4));
    CHECK(cudaMalloc(&b, p.b.size() * 4));
    CHECK(cudaMalloc(&c, p.c0.size() * 4));
    CHECK(cudaMalloc(&scalars, 8));
    CHECK(cudaMemcpy(a, p.a.data(), p.a.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, p.b.data(), p.b.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(c, p.c0.data(), p.c0.size() * 4, cudaMemcpyHostToDevice));
    const float s[2] = {p.alpha, p.beta};
    CHECK(cudaMemcpy(scalars, s, 8, cudaMemcpyHostToDevice));
  }
  ~Device() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(scalars);
  }
  std::vector<float> result(const Problem& p) const {
    std::vector<float> out(p.c0.size());
    CHECK(cudaMemcpy(out.data(), c, out.size() * 4, cudaMemcpyDeviceToHost));
    return out;
  }
};

void gemm(const std::string& mode, cublasHandle_t h, const Problem& p, const Device& d) {
  const Shape& s = p.s;
  if (mode == "gemmex") {
    CHECK(cublasGemmEx(h, s.ta, s.tb, s.m, s.n, s.k, &p.alpha, d.a, CUDA_R_32F, p.lda, d.b,
                       CUDA_R_32F, p.ldb, &p.beta, d.c, CUDA_R_32F, p.ldc, CUBLAS_COMPUTE_32F,
                       CUBLAS_GEMM_DEFAULT));
  } else if (mode == "sgemmex") {
    CHECK(cublasSgemmEx(h, s.ta, s.tb, s.m, s.n, s.k, &p.alpha, d.a, CUDA_R_32F, p.lda, d.b,
                        CUDA_R_32F, p.ldb, &p.beta, d.c, CUDA_R_32F, p.ldc));
  } else if (mode == "device-pointers") {
    CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CHECK(cublasSgemm(h, s.ta, s.tb, s.m, s.n, s.k, d.scalars, d.a, p.lda, d.b, p.ldb,
                      d.scalars + 1, d.c, p.ldc));
    CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  } else {
    CHECK(cublasSgemm(h, s.ta, s.tb, s.m, s.n, s.k, &p.alpha, d.a, p.lda, d.b, p.ldb, &p.beta, d.c,
                      p.ldc));
  }
}

// One problem, one handle and stream: the result, after the stream's work is done.
std::vector<float> run_one(const std::string& mode, const Problem& p) {
  cublasHandle_t h;
  CHECK(cublasCreate(&h));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cublasSetStream(h, stream));
  if (mode == "tf32") CHECK(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
  Device d(p);
  if (mode == "graph") {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    gemm("sgemm", h, p, d);
    CHECK(cudaStreamEndCapture(stream, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  } else if (mode == "streams") {
    // The same call on a second stream, then back: C is overwritten with the same result.
    cudaStream_t other;
    CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    gemm("sgemm", h, p, d);
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cublasSetStream(h, other));
    gemm("sgemm", h, p, d);
    CHECK(cudaStreamSynchronize(other));
    CHECK(cudaStreamDestroy(other));
  } else {
    gemm(mode, h, p, d);
  }
  CHECK(cudaStreamSynchronize(stream));
  std::vector<float> out = d.result(p);
  CHECK(cublasDestroy(h));
  CHECK(cudaStreamDestroy(stream));
  return out;
}

Shape parse(const char* arg) {
  Shape s{};
  char ta = 'N', tb = 'N';
  if (std::sscanf(arg, "%d,%d,%d,%c,%c", &s.m, &s.n, &s.k, &ta, &tb) < 3) {
    std::fprintf(stderr, "bad shape '%s' (m,n,k,TA,TB)\n", arg);
    std::exit(2);
  }
  s.ta = ta == 'T' ? CUBLAS_OP_T : CUBLAS_OP_N;
  s.tb = tb == 'T' ? CUBLAS_OP_T : CUBLAS_OP_N;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: cublas_app MODE OUT m,n,k,TA,TB [...]\n");
    return 2;
  }
  const std::string mode = argv[1];
  std::vector<Problem> problems;
  for (int i = 3; i < argc; ++i) problems.push_back(make(parse(argv[i]), 7 + i, mode == "beta"));
  std::vector<std::vector<float>> results(problems.size());
  if (mode == "threads") {
    // Four threads at once, each with its own handle and stream, each running every problem.
    std::vector<std::vector<std::vector<float>>> per_thread(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        for (int round = 0; round < 2; ++round)
          for (const Problem& p : problems) per_thread[t].push_back(run_one("sgemm", p));
      });
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t)
      for (size_t i = 0; i < per_thread[t].size(); ++i)
        if (per_thread[t][i] != per_thread[0][i]) {
          std::fprintf(stderr, "thread %d, call %zu: result differs from thread 0's\n", t, i);
          return 1;
        }
    for (size_t i = 0; i < problems.size(); ++i) results[i] = per_thread[0][i];
  } else {
    for (size_t i = 0; i < problems.size(); ++i)
      results[i] = run_one(mode == "recreated" ? "sgemm" : mode, problems[i]);
    if (mode == "recreated")  // every handle above was destroyed; a new one still works
      for (size_t i = 0; i < problems.size(); ++i) results[i] = run_one("sgemm", problems[i]);
  }
  double worst = 0;
  std::FILE* out = std::fopen(argv[2], "wb");
  if (!out) return 1;
  for (size_t i = 0; i < problems.size(); ++i) {
    worst = std::fmax(worst, error_of(problems[i], results[i]));
    std::fwrite(results[i].data(), 4, results[i].size(), out);
  }
  std::fclose(out);
  std::printf("max normwise error %.3e\n", worst);
  return 0;
}
