// FP64 host reference for small problems; everything else goes through the project's own
// verification code so the tests exercise what the tuner uses.
#include "support/gpu_support.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <thread>

#include "config/search_space.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/sgemm_kernel.hpp"
#include "tuner/compile_pool.hpp"
#include "verify/tolerance.hpp"

namespace sgt::testing {

GpuEnv& gpu_env() {
  static GpuEnv env(query_device(0));
  return env;
}

DeviceLimits gpu_limits() {
  // Test lists are built before any test runs, also where there is no GPU: the reference limits.
  if (!gpu_unavailable_reason().empty()) return DeviceLimits{};
  return device_limits(gpu_env().device);
}

std::string source_path(const std::string& relative) {
  const char* env = std::getenv("SGEMM_SOURCE_DIR");
  return fmt::format("{}/{}", env && *env ? env : SGEMM_SOURCE_DIR, relative);
}

ProblemKey make_problem(Op ta, Op tb, int m, int n, int k, int pad, int align) {
  ProblemKey p;
  p.transa = ta;
  p.transb = tb;
  p.m = m;
  p.n = n;
  p.k = k;
  p = with_minimal_leading_dimensions(p);
  p.lda += pad;
  p.ldb += pad;
  p.ldc += pad;
  p.align = std::min(align, alignment_class(p.lda, p.ldb, p.ldc, 0, 0, 0));
  return p;
}

ProblemKey make_aligned_problem(Op ta, Op tb, int m, int n, int k, int pad) {
  ProblemKey p = make_problem(ta, tb, m, n, k);
  for (int* ld : {&p.lda, &p.ldb, &p.ldc}) *ld = (*ld + 3) / 4 * 4 + pad;
  p.align = alignment_class(p.lda, p.ldb, p.ldc, 0, 0, 0);
  return p;
}

std::vector<std::array<int, 3>> edge_shapes() {
  return {{1, 1, 1},      {1, 257, 129},  {257, 1, 129},  {33, 65, 3},    {127, 129, 7},
          {100, 37, 515}, {255, 257, 64}, {64, 64, 1000}, {513, 300, 129}};
}

namespace {

std::vector<float> to_host(const float* device, std::size_t count) {
  std::vector<float> host(count);
  SGT_CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

// Normwise error of C against an FP64 product alpha op(A) op(B), with beta = 0.
double fp64_error(const ProblemKey& p, const std::vector<float>& a, const std::vector<float>& b,
                  const std::vector<float>& c, float alpha) {
  double diff = 0, a_sq = 0, b_sq = 0;
  for (int i = 0; i < rows_a(p); ++i)
    for (int j = 0; j < cols_a(p); ++j)
      a_sq += std::pow(a[i + static_cast<std::size_t>(j) * p.lda], 2);
  for (int i = 0; i < rows_b(p); ++i)
    for (int j = 0; j < cols_b(p); ++j)
      b_sq += std::pow(b[i + static_cast<std::size_t>(j) * p.ldb], 2);
  for (int j = 0; j < p.n; ++j) {
    for (int i = 0; i < p.m; ++i) {
      double s = 0;
      for (int l = 0; l < p.k; ++l) {
        const double av = p.transa == Op::N ? a[i + static_cast<std::size_t>(l) * p.lda]
                                            : a[l + static_cast<std::size_t>(i) * p.lda];
        const double bv = p.transb == Op::N ? b[l + static_cast<std::size_t>(j) * p.ldb]
                                            : b[j + static_cast<std::size_t>(l) * p.ldb];
        s += av * bv;
      }
      const double got = c[i + static_cast<std::size_t>(j) * p.ldc];
      if (!std::isfinite(got)) return INFINITY;
      diff += std::pow(got - alpha * s, 2);
    }
  }
  return normwise_error(diff, p.k, alpha, a_sq, b_sq, 0.0f, 0.0);
}

}  // namespace

double fp64_error_of(const ProblemKey& p, const GemmFn& gemm, std::uint64_t seed) {
  GpuEnv& env = gpu_env();
  const cudaStream_t s = env.stream.get();
  const auto count_a = static_cast<std::size_t>(elements_a(p));
  const auto count_b = static_cast<std::size_t>(elements_b(p));
  const auto count_c = static_cast<std::size_t>(elements_c(p));
  DeviceBuffer<float> a(count_a), b(count_b), c(count_c);
  env.utility.fill_uniform(s, a.get(), count_a, seed * 3 + 1);
  env.utility.fill_uniform(s, b.get(), count_b, seed * 3 + 2);
  UtilityKernels::poison(s, c.get(), count_c);
  const float alpha = 1.5f;
  gemm(s, alpha, a.get(), b.get(), 0.0f, c.get());
  SGT_CUDA_CHECK(cudaStreamSynchronize(s));
  return fp64_error(p, to_host(a.get(), count_a), to_host(b.get(), count_b),
                    to_host(c.get(), count_c), alpha);
}

namespace {

// A case's kernel with its launch geometry and a workspace of its own, zeroed once as the
// tuner's and the dispatcher's are, called as a GemmFn.
struct CaseKernel {
  CaseKernel(const Family& family, const Case& c, const CompileResult& compiled)
      : kernel(compiled.cubin),
        geometry(family.geometry(c.knobs, c.problem, testing::gpu_limits())),
        workspace(std::max<std::size_t>(geometry.workspace_floats, 1)),
        problem(c.problem) {
    workspace.zero();
  }
  GemmFn gemm() {
    return
        [this](cudaStream_t s, float alpha, const float* a, const float* b, float beta, float* cc) {
          kernel.launch(geometry, problem_args(problem, a, b, cc, workspace.get(), alpha, beta), s);
        };
  }
  SgemmKernel kernel;
  LaunchGeometry geometry;
  DeviceBuffer<float> workspace;
  ProblemKey problem;
};

CaseOutcome check_case(const Family& family, const Case& c, const CompileResult& compiled) {
  GpuEnv& env = gpu_env();
  const ProblemKey& problem = c.problem;
  CaseOutcome out;
  CaseKernel kernel(family, c, compiled);
  const GemmFn gemm = kernel.gemm();
  GemmChecker checker(problem, env.utility, env.cublas, env.stream.get(), 4.0, c.misalign_floats);
  static std::uint64_t seed = 7;
  out.check = checker.check(gemm, seed++);

  // FP64 reference on fresh random data, for problems small enough for the host.
  if (static_cast<double>(problem.m) * problem.n * problem.k <= 4e7) {
    checker.fill_random(seed++);
    const float alpha = 1.5f;
    const auto count_c = static_cast<std::size_t>(elements_c(problem));
    UtilityKernels::poison(env.stream.get(), checker.c(), count_c);
    gemm(env.stream.get(), alpha, checker.a(), checker.b(), 0.0f, checker.c());
    SGT_CUDA_CHECK(cudaStreamSynchronize(env.stream.get()));
    const auto a = to_host(checker.a(), static_cast<std::size_t>(elements_a(problem)));
    const auto b = to_host(checker.b(), static_cast<std::size_t>(elements_b(problem)));
    out.fp64_error = fp64_error(problem, a, b, to_host(checker.c(), count_c), alpha);
    env.cublas.sgemm(env.stream.get(), problem, alpha, checker.a(), checker.b(), 0.0f, checker.c());
    SGT_CUDA_CHECK(cudaStreamSynchronize(env.stream.get()));
    out.cublas_fp64_error = fp64_error(problem, a, b, to_host(checker.c(), count_c), alpha);
  }
  return out;
}

// Compiles each distinct (knobs, defines) of the cases once, all of them in parallel. job_of[i]:
// the index of case i's result, SIZE_MAX when the family cannot implement it.
std::vector<CompileResult> compile_cases(const Family& family, const std::vector<Case>& cases,
                                         std::vector<std::size_t>& job_of) {
  GpuEnv& env = gpu_env();
  std::map<std::string, std::size_t> job_index;
  job_of.assign(cases.size(), SIZE_MAX);
  std::vector<CompilePool::Job> jobs;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!family.cannot_implement(cases[i].knobs, cases[i].problem).empty()) continue;
    const std::vector<std::string> defines = family.defines(cases[i].knobs, cases[i].problem);
    std::string key;
    for (const std::string& d : defines) key += d + " ";
    auto [it, inserted] = job_index.emplace(key, jobs.size());
    if (inserted)
      jobs.push_back([&family, defines, arch = env.device.arch()] {
        return compile_template(family.name() + ".cu", defines, arch);
      });
    job_of[i] = it->second;
  }
  CompilePool pool(std::move(jobs),
                   static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  std::vector<CompileResult> compiled(pool.size());
  for (std::size_t j = 0; j < pool.size(); ++j) compiled[j] = pool.take(j);
  return compiled;
}

RepeatOutcome repeat_case(const Family& family, const Case& c, const CompileResult& compiled) {
  GpuEnv& env = gpu_env();
  const cudaStream_t s = env.stream.get();
  const ProblemKey& p = c.problem;
  RepeatOutcome out;
  CaseKernel kernel(family, c, compiled);
  const LaunchGeometry& geometry = kernel.geometry;
  DeviceBuffer<float>& workspace = kernel.workspace;
  out.k_splits = geometry.k_splits;
  const GemmFn gemm = kernel.gemm();
  GemmChecker checker(p, env.utility, env.cublas, s, 4.0, c.misalign_floats);
  out.first = checker.check(gemm, 11);
  out.second = checker.check(gemm, 12);

  // Two runs on the same A, B and C0 (beta != 0) must agree bit for bit.
  checker.fill_random(13);
  const auto count_c = static_cast<std::size_t>(elements_c(p));
  DeviceBuffer<float> c0(count_c);
  SGT_CUDA_CHECK(
      cudaMemcpyAsync(c0.get(), checker.c(), count_c * sizeof(float), cudaMemcpyDeviceToDevice, s));
  std::vector<std::vector<float>> results;
  for (int run = 0; run < 2; ++run) {
    SGT_CUDA_CHECK(cudaMemcpyAsync(checker.c(), c0.get(), count_c * sizeof(float),
                                   cudaMemcpyDeviceToDevice, s));
    gemm(s, 1.5f, checker.a(), checker.b(), 0.25f, checker.c());
    SGT_CUDA_CHECK(cudaGetLastError());
    SGT_CUDA_CHECK(cudaStreamSynchronize(s));
    results.push_back(to_host(checker.c(), count_c));
  }
  for (std::size_t i = 0; i < count_c; ++i)
    out.unequal += std::memcmp(&results[0][i], &results[1][i], sizeof(float)) != 0;
  if (geometry.k_splits > 1) {
    std::vector<unsigned> counters(SGEMM_TILE_COUNTERS);
    SGT_CUDA_CHECK(cudaMemcpy(counters.data(), workspace.get(), counters.size() * sizeof(unsigned),
                              cudaMemcpyDeviceToHost));
    for (unsigned v : counters) out.counters_left += v != 0;
  }
  return out;
}

}  // namespace

namespace {

// Compiles every case's kernel once, then runs `check` on each case that compiled; the others
// get an outcome with the family's reason or the compile log.
template <class Outcome, class Check>
std::vector<Outcome> for_each_case(const Family& family, const std::vector<Case>& cases,
                                   Check check) {
  std::vector<std::size_t> job_of;
  const std::vector<CompileResult> compiled = compile_cases(family, cases, job_of);
  std::vector<Outcome> outcomes;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Outcome out;
    if (job_of[i] == SIZE_MAX) {
      out.why_not = family.cannot_implement(cases[i].knobs, cases[i].problem);
    } else if (!compiled[job_of[i]].ok) {
      out.why_not = compiled[job_of[i]].log;
    } else {
      out = check(family, cases[i], compiled[job_of[i]]);
      out.compiled = true;
    }
    outcomes.push_back(std::move(out));
  }
  return outcomes;
}

}  // namespace

std::vector<Case> unaligned_cases(const std::vector<Knobs>& configs,
                                  const std::vector<std::array<int, 3>>& shapes) {
  std::vector<Case> cases;
  for (const Knobs& knobs : configs)
    for (Op ta : {Op::N, Op::T})
      for (Op tb : {Op::N, Op::T})
        for (const auto& [m, n, k] : shapes) {
          cases.push_back({knobs, make_problem(ta, tb, m, n, k, 5, 1), 0});
          cases.push_back({knobs, make_problem(ta, tb, m, n, k, 0, 1), 1});
          cases.push_back({knobs, make_problem(ta, tb, m, n, k, 2, 2), 0});
        }
  return cases;
}

std::vector<CaseOutcome> run_family_cases(const Family& family, const std::vector<Case>& cases) {
  return for_each_case<CaseOutcome>(family, cases, check_case);
}

std::vector<RepeatOutcome> run_family_cases_twice(const Family& family,
                                                  const std::vector<Case>& cases) {
  return for_each_case<RepeatOutcome>(family, cases, repeat_case);
}

std::vector<Knobs> default_space_configs(const Family& family) {
  SearchSpace mine;
  for (FamilySpace& f : load_search_space(source_path("configs/spaces")).families)
    if (f.family == &family) mine.families.push_back(std::move(f));
  std::vector<Knobs> out;
  if (mine.families.empty()) return out;
  for (const Candidate& c : enumerate(mine, DeviceLimits{}).valid) out.push_back(c.knobs);
  return out;
}

std::vector<Knobs> default_space_configs_with(const Family& family, const std::string& knob,
                                              int value) {
  std::vector<Knobs> out;
  std::set<Knobs> seen;
  for (Knobs k : default_space_configs(family)) {
    k[knob] = value;
    if (failed_constraint(family, k, DeviceLimits{}).empty() && seen.insert(k).second)
      out.push_back(std::move(k));
  }
  return out;
}

}  // namespace sgt::testing
