// One problem at a time: the GPU thread verifies and times candidates in the order the compile
// pool finishes them; every outcome is committed as it is known, so an interrupted run resumes.
#include "tuner/tuner.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <thread>

#include "common/error.hpp"
#include "config/search_space.hpp"
#include "cuda/cublas_handle.hpp"
#include "cuda/stream.hpp"
#include "db/tuning_store.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/sgemm_kernel.hpp"
#include "jit/templates.hpp"
#include "measure/operand_rotation.hpp"
#include "measure/timer.hpp"
#include "tuner/compile_pool.hpp"
#include "tuner/cost_model.hpp"
#include "tuner/measurement_record.hpp"
#include "jit/compile_cache.hpp"
#include "tuner/winner_selection.hpp"
#include "verify/gemm_checker.hpp"

namespace sgt {

GpuRecord gpu_record(const DeviceInfo& d) {
  return {d.name, d.uuid, d.arch(), d.sm_count, d.l2_bytes, d.default_clock_khz / 1000};
}

SoftwareRecord software_record() {
  const SoftwareInfo sw = query_software();
  return {sw.driver, sw.runtime, sw.nvrtc, sw.cublas};
}

DeviceLimits device_limits(const DeviceInfo& d) {
  DeviceLimits limits;
  limits.cc = d.cc_major * 10 + d.cc_minor;
  limits.sm_count = d.sm_count;
  limits.smem_optin_bytes = static_cast<int>(d.smem_optin_bytes);
  limits.regs_per_sm = d.regs_per_sm;
  return limits;
}

namespace {

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : " ") + p;
  return out;
}

// Whether the CUDA context survived: after an illegal address every later call fails.
bool context_is_broken() {
  const cudaError_t err = cudaDeviceSynchronize();
  return err != cudaSuccess && err != cudaErrorNotReady;
}

struct Work {
  Candidate candidate;
  std::vector<std::string> defines;
  std::string config;
  std::string options;
};

}  // namespace

struct Tuner::State {
  TuningStore& store;
  TuneOptions options;
  DeviceInfo device;
  DeviceLimits limits;
  GpuRecord gpu;
  SoftwareRecord software;
  SearchSpace space;
  Stream stream;
  CublasHandle cublas{true};
  UtilityKernels utility;
  Timer timer;
  DeviceBuffer<float> workspace;
  CompileCache cache;
  std::int64_t run_id = 0;

  State(TuningStore& s, TuneOptions o, DeviceInfo d)
      : store(s),
        options(std::move(o)),
        device(std::move(d)),
        limits(device_limits(device)),
        gpu(gpu_record(device)),
        software(software_record()),
        space(load_search_space(options.space_path)),
        utility(device.arch()),
        timer(device, options.settings.measure, stream.get()),
        cache(options.cache_dir) {}

  float* workspace_for(std::size_t floats) {
    if (floats > workspace.size()) workspace = DeviceBuffer<float>(floats);
    return workspace.get();
  }
};

Tuner::Tuner(TuningStore& store, TuneOptions options) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) throw Error(ErrorKind::cuda, why);
  int ordinal = 0;
  SGT_CUDA_CHECK(cudaGetDevice(&ordinal));
  state_ = std::make_unique<State>(store, std::move(options), query_device(ordinal));
  RunRecord run;
  run.started_at = now_utc();
  run.host = host_name();
  run.command = state_->options.command_line;
  run.clock_policy = state_->timer.clock_policy();
  nlohmann::json notes = {{"timer", state_->timer.notes()},
                          {"sm_clock_mhz_at_start", state_->timer.read_clock_mhz()},
                          {"device_uuid", state_->device.uuid}};
  run.notes = notes.dump();
  run.seed = state_->options.seed;
  state_->run_id = store.begin_run(run, state_->gpu, state_->software);
}

Tuner::~Tuner() = default;

const DeviceInfo& Tuner::device() const { return state_->device; }
std::int64_t Tuner::run_id() const { return state_->run_id; }

void Tuner::finish(const std::string& status) { state_->store.finish_run(state_->run_id, status); }

ProblemResult Tuner::tune(const Problem& problem, int index, int count, const ProgressFn& progress) {
  State& s = *state_;
  const ProblemKey& key = problem.key;
  ProblemResult result;
  result.problem = key;
  if (const std::string why = validate(key); !why.empty())
    throw Error(ErrorKind::invalid_value, fmt::format("{}: {}", key.to_string(), why));

  // Candidates this problem can run, with their compile options.
  const Enumeration space = enumerate(s.space, s.limits);
  result.pruned = space.pruned;
  std::vector<Work> work;
  for (const Candidate& c : space.valid) {
    if (!c.family->cannot_implement(c.knobs, key).empty()) {
      ++result.pruned;
      continue;
    }
    Work w{c, c.family->defines(c.knobs, key), knobs_to_string(c.knobs), {}};
    std::vector<std::string> all = base_compile_options(s.device.arch());
    all.insert(all.end(), w.defines.begin(), w.defines.end());
    w.options = join(all);
    work.push_back(std::move(w));
  }
  // Best predicted first: the search starts near the optimum and a budget keeps the best-ranked.
  std::vector<double> predicted(work.size());
  for (std::size_t i = 0; i < work.size(); ++i)
    predicted[i] = estimate_cost(work[i].candidate.family->geometry(work[i].candidate.knobs, key), key,
                                 s.limits).time_us;
  std::vector<std::size_t> order(work.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return predicted[a] < predicted[b]; });
  std::vector<Work> ranked;
  for (std::size_t i : order) ranked.push_back(std::move(work[i]));
  work = std::move(ranked);
  if (s.options.max_candidates > 0 && static_cast<int>(work.size()) > s.options.max_candidates)
    work.resize(s.options.max_candidates);
  result.candidates = static_cast<int>(work.size());

  // What an earlier (interrupted) run already finished for this problem on this GPU and software.
  std::map<std::pair<std::string, std::string>, CandidateRecord> finished;
  if (!s.options.retune) {
    for (CandidateRecord& r : s.store.candidates(key, s.gpu, s.software))
      finished.emplace(std::make_pair(r.family, r.config + "|" + r.template_hash), std::move(r));
    if (auto winner = s.store.find_winner(key, s.gpu.name, s.gpu.arch);
        winner && !finished.empty()) {
      bool all_known = true;
      for (const Work& w : work)
        all_known &= finished.contains(
            {w.candidate.family->name(),
             w.config + "|" + template_hash(w.candidate.family->name() + ".cu")});
      if (all_known) {
        result.already_tuned = true;
        result.family = winner->family;
        result.config = winner->config;
        result.winner_us = winner->time_us;
        result.cublas_us = winner->cublas_us;
        result.reason = "already tuned (use --retune to measure again)";
        return result;
      }
    }
  }

  GemmChecker checker(key, s.utility, s.cublas, s.stream.get(),
                      s.options.settings.verify.tolerance_factor);
  const std::uint64_t timing_seed = s.options.seed;
  const float alpha = problem.alpha, beta = problem.beta;
  checker.fill_random(timing_seed);
  // The checker's buffers (cold-flush), or copies of them to rotate over (cache rotate).
  const OperandRotation operands(key, {checker.a(), checker.b(), checker.c()},
                                 s.options.settings.measure, s.stream.get());
  const RotatingLaunch cublas_launch = operands.launch([&](cudaStream_t st, const OperandSet& o) {
    s.cublas.sgemm(st, key, alpha, o.a, o.b, beta, o.c);
  });
  result.cublas_us = s.timer.screen(cublas_launch).median_us;

  // Compile everything not already finished, on worker threads, in candidate order.
  std::vector<CompilePool::Job> jobs;
  std::vector<std::size_t> job_of(work.size(), SIZE_MAX);
  std::vector<std::string> hashes(work.size());
  for (std::size_t i = 0; i < work.size(); ++i) {
    const std::string file = work[i].candidate.family->name() + ".cu";
    hashes[i] = template_hash(file);
    if (finished.contains({work[i].candidate.family->name(), work[i].config + "|" + hashes[i]}))
      continue;
    job_of[i] = jobs.size();
    jobs.push_back([&cache = s.cache, file, defines = work[i].defines, arch = s.device.arch()] {
      return cache.compile(file, defines, arch);
    });
  }
  const int threads = s.options.compile_threads > 0
                          ? s.options.compile_threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CompilePool pool(std::move(jobs), threads);

  struct Scored {
    std::size_t index;
    double screen_us;
  };
  std::vector<Scored> scored;
  std::map<std::size_t, std::string> cubins;  // kept for the finalists
  Progress p{index, count, key.to_string(), 0, static_cast<int>(work.size()), 0, result.cublas_us,
             "screen"};

  for (std::size_t i = 0; i < work.size(); ++i) {
    const Work& w = work[i];
    const Family& family = *w.candidate.family;
    CandidateRecord rec;
    rec.run_id = s.run_id;
    rec.problem = key;
    rec.family = family.name();
    rec.config = w.config;
    rec.template_hash = hashes[i];
    rec.compile_options = w.options;

    if (job_of[i] == SIZE_MAX) {
      const CandidateRecord& old = finished.at({rec.family, rec.config + "|" + rec.template_hash});
      ++result.resumed;
      if (old.outcome == Outcome::ok && old.screen) {
        scored.push_back({i, old.screen->median_us});
        ++result.ok;
      } else {
        ++result.failed;
      }
    } else {
      CompileResult compiled = pool.take(job_of[i]);
      const LaunchGeometry geometry = family.geometry(w.candidate.knobs, key);
      rec.registers = compiled.resources.registers;
      rec.spill_bytes = compiled.resources.spill_store_bytes + compiled.resources.spill_load_bytes;
      rec.smem_bytes = compiled.resources.static_smem_bytes + static_cast<int>(geometry.smem_bytes);
      const int threads_per_block =
          static_cast<int>(geometry.block.x * geometry.block.y * geometry.block.z);
      if (!compiled.ok) {
        rec.outcome = Outcome::compile_failed;
        rec.message = compiled.log;
      } else if (rec.spill_bytes > 0 || compiled.resources.stack_bytes > 0 ||
                 rec.registers * threads_per_block > s.limits.regs_per_sm ||
                 rec.smem_bytes > s.limits.smem_optin_bytes) {
        rec.outcome = Outcome::resources_exceeded;
        rec.message = fmt::format("{} registers x {} threads, {} bytes spilled, {} stack, {} smem",
                                  rec.registers, threads_per_block, rec.spill_bytes,
                                  compiled.resources.stack_bytes, rec.smem_bytes);
      } else {
        try {
          // From here a kernel of ours runs: a supervisor watching for crashes and hangs needs
          // to know which candidate is in flight.
          if (s.options.on_candidate) s.options.on_candidate(rec, true);
          SgemmKernel kernel(compiled.cubin);
          // The loaded function's attributes are authoritative where the ptxas report is silent.
          rec.registers = kernel.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
          const int local_bytes = kernel.attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
          if (local_bytes > 0) {
            throw Error(ErrorKind::internal,
                        fmt::format("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: {} bytes of local memory "
                                    "per thread (spills or stack)", local_bytes));
          }
          float* ws = s.workspace_for(geometry.workspace_floats);
          const GemmFn gemm = [&](cudaStream_t st, float al, const float* a, const float* b,
                                  float be, float* c) {
            SgemmArgs args{a, b, c, ws, key.m, key.n, key.k, key.lda, key.ldb, key.ldc, al, be, 1, 0};
            kernel.launch(geometry, args, st);
          };
          const CheckResult check = checker.check(gemm, timing_seed + 1000 + i);
          rec.error = std::max(check.error_beta_zero, check.error_beta);
          rec.message = check.message;
          if (!check.passed) {
            rec.outcome = Outcome::incorrect;
          } else {
            checker.fill_random(timing_seed);
            const Measurement m =
                s.timer.screen(operands.launch([&](cudaStream_t st, const OperandSet& o) {
                  gemm(st, alpha, o.a, o.b, beta, o.c);
                }));
            rec.screen = timing_record(m);
            rec.outcome = Outcome::ok;
            scored.push_back({i, m.median_us});
            cubins[i] = std::move(compiled.cubin);
          }
        } catch (const Error& e) {
          const std::string what = e.what();
          rec.outcome = what.find("OUT_OF_RESOURCES") != std::string::npos
                            ? Outcome::resources_exceeded
                            : Outcome::launch_failed;
          rec.message = what;
          if (context_is_broken()) {
            s.store.record_candidate(s.run_id, s.gpu, s.software, rec);
            if (s.options.on_candidate) s.options.on_candidate(rec, false);
            throw ContextLost(ErrorKind::cuda,
                        fmt::format("candidate {} {} broke the CUDA context: {}", rec.family,
                                    rec.config, what));
          }
        }
      }
      rec.outcome == Outcome::ok ? ++result.ok : ++result.failed;
      s.store.record_candidate(s.run_id, s.gpu, s.software, rec);
      if (s.options.on_candidate) s.options.on_candidate(rec, false);
    }
    p.done = static_cast<int>(i + 1);
    for (const Scored& sc : scored)
      if (p.best_us == 0 || sc.screen_us < p.best_us) p.best_us = sc.screen_us;
    if (progress) progress(p);
  }

  // Confirmation: the finalists and cuBLAS in interleaved rounds, one cold sample each per round.
  std::sort(scored.begin(), scored.end(),
            [](const Scored& a, const Scored& b) { return a.screen_us < b.screen_us; });
  const std::size_t n_final =
      std::min<std::size_t>(scored.size(), std::max(1, s.options.settings.measure.finalists));
  std::vector<std::unique_ptr<SgemmKernel>> kernels;
  std::vector<LaunchGeometry> geometries;
  std::vector<RotatingLaunch> launches = {cublas_launch};
  for (std::size_t f = 0; f < n_final; ++f) {
    const std::size_t i = scored[f].index;
    const Work& w = work[i];
    if (!cubins.contains(i)) {  // resumed: compile again (the cubin was not kept)
      CompileResult r = s.cache.compile(w.candidate.family->name() + ".cu", w.defines, s.device.arch());
      if (!r.ok) throw Error(ErrorKind::compile, fmt::format("{} no longer compiles:\n{}", w.config, r.log));
      cubins[i] = std::move(r.cubin);
    }
    kernels.push_back(std::make_unique<SgemmKernel>(cubins[i]));
    geometries.push_back(w.candidate.family->geometry(w.candidate.knobs, key));
  }
  std::size_t workspace_floats = 0;
  for (const LaunchGeometry& g : geometries) workspace_floats = std::max(workspace_floats, g.workspace_floats);
  float* ws = s.workspace_for(workspace_floats);
  for (std::size_t f = 0; f < n_final; ++f) {
    launches.push_back(operands.launch([&, f](cudaStream_t st, const OperandSet& o) {
      SgemmArgs args{o.a, o.b, o.c, ws, key.m, key.n, key.k,
                     key.lda, key.ldb, key.ldc, alpha, beta, 1, 0};
      kernels[f]->launch(geometries[f], args, st);
    }));
  }
  p.stage = "confirm";
  if (progress) progress(p);
  checker.fill_random(timing_seed);
  const Interleaved rounds = s.timer.interleave(launches, s.options.seed);
  result.cublas_us = rounds.kernels[0].median_us;
  result.rounds = rounds.rounds;
  result.discarded_rounds = rounds.discarded_rounds;
  result.sm_clock_mhz = rounds.kernels[0].sm_clock_mhz;
  result.clock_policy = s.timer.clock_policy();

  std::vector<Finalist> finalists;
  for (std::size_t f = 0; f < n_final; ++f) {
    const Work& w = work[scored[f].index];
    const Measurement& m = rounds.kernels[f + 1];
    finalists.push_back({m.median_us, rounds.ratio_summary[f + 1].median, rounds.ratio_summary[f + 1].spread,
                         w.candidate.family->complexity(w.candidate.knobs)});
    CandidateRecord rec;
    rec.run_id = s.run_id;
    rec.problem = key;
    rec.family = w.candidate.family->name();
    rec.config = w.config;
    rec.template_hash = hashes[scored[f].index];
    rec.compile_options = w.options;
    for (const CandidateRecord& old : s.store.candidates(key, s.gpu, s.software))
      if (old.family == rec.family && old.config == rec.config && old.template_hash == rec.template_hash)
        rec = old;
    rec.final = timing_record(m);
    rec.cublas_us = result.cublas_us;
    rec.cublas_conditions = measure_conditions(rounds.kernels[0]);
    s.store.record_candidate(s.run_id, s.gpu, s.software, rec);
    if (result.best_candidate_us == 0 || m.median_us < result.best_candidate_us)
      result.best_candidate_us = m.median_us;
  }

  const Verdict verdict = choose_winner(finalists);
  WinnerRecord winner;
  winner.problem = key;
  winner.gpu = s.gpu;
  winner.software = s.software;
  winner.cublas_us = result.cublas_us;
  winner.tie_band = verdict.tie_band;
  if (verdict.winner >= 0) {
    const std::size_t i = scored[verdict.winner].index;
    const Work& w = work[i];
    winner.family = w.candidate.family->name();
    winner.config = w.config;
    winner.template_hash = hashes[i];
    winner.compile_options = w.options;
    winner.time_us = finalists[verdict.winner].median_us;
    winner.cubin.assign(cubins[i].begin(), cubins[i].end());
    winner.cubin_arch = s.device.arch();
  } else {
    winner.family = "cublas";
    winner.time_us = result.cublas_us;
  }
  s.store.set_winner(winner);
  result.family = winner.family;
  result.config = winner.config;
  result.winner_us = winner.time_us;
  result.tie_band = verdict.tie_band;
  result.reason = verdict.reason;
  p.stage = "done";
  if (progress) progress(p);
  return result;
}

}  // namespace sgt
