// Grid-stride kernels launched with a fixed modest grid: simple and fast enough for checks.
#include "verify/utility_kernels.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "cuda/driver_api.hpp"
#include "jit/nvrtc_compiler.hpp"

namespace sgt {
namespace {

constexpr unsigned kBlocks = 1024, kThreads = 256;

std::string compile_utility(const std::string& arch) {
  CompileResult r = compile_template("utility.cu", {}, arch);
  if (!r.ok)
    throw Error(ErrorKind::compile, fmt::format("utility.cu failed to compile:\n{}", r.log));
  return r.cubin;
}

void launch(CUfunction f, cudaStream_t s, void** params) {
  SGT_CU_CHECK(driver().cuLaunchKernel(f, kBlocks, 1, 1, kThreads, 1, 1, 0,
                                       reinterpret_cast<CUstream>(s), params, nullptr));
}

}  // namespace

UtilityKernels::UtilityKernels(const std::string& arch)
    : module_(compile_utility(arch)), scratch_(4) {
  fill_uniform_ = module_.function("fill_uniform");
  fill_integers_ = module_.function("fill_integers");
  diff_norms_ = module_.function("diff_norms");
  sum_squares_ = module_.function("sum_squares");
}

void UtilityKernels::fill_uniform(cudaStream_t s, float* x, std::size_t count,
                                  std::uint64_t seed) const {
  unsigned long long n = count, sd = seed;
  void* params[] = {&x, &n, &sd};
  launch(fill_uniform_, s, params);
}

void UtilityKernels::fill_integers(cudaStream_t s, float* x, std::size_t count, std::uint64_t seed,
                                   int lo, int hi) const {
  unsigned long long n = count, sd = seed;
  void* params[] = {&x, &n, &sd, &lo, &hi};
  launch(fill_integers_, s, params);
}

void UtilityKernels::poison(cudaStream_t s, float* x, std::size_t count) {
  SGT_CUDA_CHECK(cudaMemsetAsync(x, 0xFF, count * sizeof(float), s));
}

double UtilityKernels::sum_squares(cudaStream_t s, const float* x, int ld, int rows,
                                   int cols) const {
  if (rows == 0 || cols == 0) return 0;
  double* out = scratch_.get();
  SGT_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(double), s));
  void* params[] = {&x, &ld, &rows, &cols, &out};
  launch(sum_squares_, s, params);
  double host = 0;
  SGT_CUDA_CHECK(cudaMemcpyAsync(&host, out, sizeof(double), cudaMemcpyDeviceToHost, s));
  SGT_CUDA_CHECK(cudaStreamSynchronize(s));
  return host;
}

DiffNorms UtilityKernels::diff(cudaStream_t s, const float* c, int ldc, const float* ref, int ldr,
                               int rows, int cols) const {
  DiffNorms norms;
  if (rows == 0 || cols == 0) return norms;
  double* out = scratch_.get();
  SGT_CUDA_CHECK(cudaMemsetAsync(out, 0, 4 * sizeof(double), s));
  void* params[] = {&c, &ldc, &ref, &ldr, &rows, &cols, &out};
  launch(diff_norms_, s, params);
  double host[4] = {};
  SGT_CUDA_CHECK(cudaMemcpyAsync(host, out, sizeof(host), cudaMemcpyDeviceToHost, s));
  SGT_CUDA_CHECK(cudaStreamSynchronize(s));
  norms.diff_sq = host[0];
  norms.ref_sq = host[1];
  norms.nonfinite = static_cast<std::int64_t>(host[2]);
  norms.unequal = static_cast<std::int64_t>(host[3]);
  return norms;
}

}  // namespace sgt
