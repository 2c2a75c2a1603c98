// One problem at a time: the GPU thread verifies and times candidates in the order the compile
// pool finishes them; every outcome is committed as it is known, so an interrupted run resumes.
#include "tuner/tuner.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/error.hpp"
#include "common/provenance.hpp"
#include "config/search_space.hpp"
#include "cuda/cublas_handle.hpp"
#include "cuda/stream.hpp"
#include "db/tuning_store.hpp"
#include "jit/compile_cache.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/sgemm_kernel.hpp"
#include "jit/templates.hpp"
#include "measure/operand_rotation.hpp"
#include "measure/timer.hpp"
#include "tuner/candidate_list.hpp"
#include "tuner/compile_pool.hpp"
#include "tuner/compile_prefetcher.hpp"
#include "tuner/lt_contender.hpp"
#include "tuner/measurement_record.hpp"
#include "tuner/search_strategy.hpp"
#include "tuner/static_pruning.hpp"
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

// Candidates compiled ahead of the search: about two local-search batches.
constexpr std::size_t kPrefetchCount = 16;

int compile_threads(const TuneOptions& options) {
  return options.compile_threads > 0
             ? options.compile_threads
             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Whether the CUDA context survived: after an illegal address every later call fails.
bool context_is_broken() {
  const cudaError_t err = cudaDeviceSynchronize();
  return err != cudaSuccess && err != cudaErrorNotReady;
}

}  // namespace

struct Tuner::State {
  TuningStore& store;
  TuneOptions options;
  DeviceInfo device;
  DeviceLimits limits;
  GpuRecord gpu;
  SoftwareRecord software;
  SearchSpace space;
  Enumeration enumeration;  // of the space against this GPU's limits, for every problem
  Stream stream;
  CublasHandle cublas{true};
  UtilityKernels utility;
  Timer timer;
  DeviceBuffer<float> workspace;
  CompileCache cache;
  CompilePrefetcher prefetch;        // after cache: stops before it
  std::unique_ptr<CublasLtGemm> lt;  // when cuBLASLt's algorithms contend
  std::vector<Problem> upcoming;     // tuned after the current problem, probably
  std::int64_t run_id = 0;

  State(TuningStore& s, TuneOptions o, DeviceInfo d)
      : store(s),
        options(std::move(o)),
        device(std::move(d)),
        limits(device_limits(device)),
        gpu(gpu_record(device)),
        software(software_record()),
        space(load_search_space(options.space_path)),
        enumeration(enumerate(space, limits)),
        utility(device.arch()),
        timer(device, options.settings.measure, stream.get()),
        cache(options.cache_dir),
        prefetch(cache, device.arch(), compile_threads(options)),
        lt(options.lt_algos > 0 ? std::make_unique<CublasLtGemm>() : nullptr) {}

  // Grows the workspace; a new one starts zeroed (its tile counters must be).
  float* workspace_for(std::size_t floats) {
    if (floats > workspace.size()) {
      workspace = DeviceBuffer<float>(floats);
      workspace.zero();
    }
    return workspace.get();
  }
};

Tuner::Tuner(TuningStore& store, TuneOptions options) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty())
    throw Error(ErrorKind::cuda, why);
  int ordinal = 0;
  SGT_CUDA_CHECK(cudaGetDevice(&ordinal));
  state_ = std::make_unique<State>(store, std::move(options), query_device(ordinal));
  RunRecord run;
  run.started_at = utc_timestamp();
  run.host = state_->options.host.empty() ? host_name() : state_->options.host;
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

void Tuner::expect(std::vector<Problem> upcoming) { state_->upcoming = std::move(upcoming); }

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The winners of this GPU model with the problem's transposes and alignment class, for the
// model strategy's warm start (cuBLAS winners have no configuration to start from).
std::vector<KnownWinner> known_winners(TuningStore& store, const GpuRecord& gpu,
                                       const ProblemKey& key) {
  std::vector<KnownWinner> out;
  for (const WinnerRecord& w :
       store.winners_for(key.transa, key.transb, key.align, gpu.name, gpu.arch, false))
    if (w.family != kCublasFamily && w.family != kCublasLtFamily)
      out.push_back({w.problem, w.family, w.config});
  return out;
}

// What the search of each upcoming problem compiles first, for the prefetcher to work ahead on.
std::vector<CompileRequest> first_batches(const std::vector<Problem>& upcoming,
                                          const Enumeration& enumeration,
                                          const DeviceLimits& limits, const std::string& arch,
                                          const TuneOptions& options, const SearchSpace& space,
                                          TuningStore& store, const GpuRecord& gpu) {
  std::vector<CompileRequest> out;
  for (const Problem& next : upcoming) {
    if (!validate(next.key).empty()) continue;
    const CandidateList list = plan_candidates(enumeration, limits, next.key, arch);
    SearchOrder order(
        options.strategy, space, list.candidates, options.max_candidates, options.seed,
        warm_start_candidates(next.key, known_winners(store, gpu, next.key), list.candidates));
    for (std::size_t i : order.next_batch({}))
      out.push_back({list.candidates[i].template_file, list.candidates[i].defines});
  }
  return out;
}

}  // namespace

ProblemResult Tuner::tune(const Problem& problem, int index, int count,
                          const ProgressFn& progress) {
  State& s = *state_;
  const ProblemKey& key = problem.key;
  const Clock::time_point started = Clock::now();
  const int flushes_at_start = s.timer.flushes();
  ProblemResult result;
  TimeSpent& spent = result.spent;
  result.problem = key;
  if (const std::string why = validate(key); !why.empty())
    throw Error(ErrorKind::invalid_value, fmt::format("{}: {}", key.to_string(), why));

  const CandidateList list = plan_candidates(s.enumeration, s.limits, key, s.device.arch());
  const std::vector<PlannedCandidate>& work = list.candidates;
  result.pruned = list.pruned;
  SearchOrder order(s.options.strategy, s.space, work, s.options.max_candidates, s.options.seed,
                    warm_start_candidates(key, known_winners(s.store, s.gpu, key), work));
  result.candidates = order.budget();
  std::vector<std::size_t> batch = order.next_batch({});

  // What an earlier (interrupted) run already finished for this problem on this GPU and software.
  std::map<std::pair<std::string, std::string>, CandidateRecord> finished;
  const auto finished_key = [](const std::string& family, const std::string& config,
                               const std::string& hash) {
    return std::make_pair(family, config + "|" + hash);
  };
  // With retune, only what this command recorded (a worker restarted after a crash resumes).
  for (CandidateRecord& r : s.store.candidates(key, s.gpu, s.software))
    if (r.outcome != Outcome::compiled &&
        (!s.options.retune || r.run_id > s.options.retune_after_run))
      finished.emplace(finished_key(r.family, r.config, r.template_hash), std::move(r));
  if (!s.options.retune) {
    // Tuned already: a winner is stored and the search's budget was spent on candidates of the
    // current space and templates (a space or template change, or a larger budget, goes on).
    if (auto winner = s.store.find_winner(key, s.gpu.name, s.gpu.arch);
        winner && !finished.empty()) {
      int known = 0;
      for (const PlannedCandidate& w : work)
        known +=
            finished.contains(finished_key(w.candidate.family->name(), w.config, w.template_hash));
      const bool all_known = known >= order.budget();
      if (all_known) {
        result.already_tuned = true;
        result.family = winner->family;
        result.config = winner->config;
        result.winner_us = winner->time_us;
        result.cublas_us = winner->cublas_us;
        result.reason = "already tuned (use --retune to measure again)";
        result.seconds = seconds_since(started);
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
  {
    const Clock::time_point t = Clock::now();
    const Measurement m = s.timer.screen(cublas_launch);
    result.cublas_us = m.median_us;
    spent.screen_samples += static_cast<int>(m.samples_us.size());
    spent.screen_s += seconds_since(t);
  }

  // The wall-time budget that ends first: this problem's or the run's.
  const bool has_run_deadline = s.options.run_deadline != std::chrono::system_clock::time_point{};
  const auto out_of_time = [&]() -> std::string {
    if (s.options.problem_seconds > 0 && seconds_since(started) >= s.options.problem_seconds)
      return fmt::format("per-problem time budget of {:g} s reached", s.options.problem_seconds);
    if (has_run_deadline && std::chrono::system_clock::now() >= s.options.run_deadline)
      return "run time budget reached";
    return {};
  };
  const int threads = compile_threads(s.options);
  std::vector<std::size_t> prefetched;  // the last guess handed to the prefetcher
  const std::vector<CompileRequest> ahead = first_batches(
      s.upcoming, s.enumeration, s.limits, s.device.arch(), s.options, s.space, s.store, s.gpu);
  bool ahead_wanted = false;

  std::map<std::size_t, double> screened;     // correct candidates: screening median
  std::map<std::size_t, std::string> cubins;  // kept for the finalists
  Progress p{index, count, key.to_string(), 0, order.budget(), 0, result.cublas_us, "screen"};
  double measure_s = 0;

  for (; !batch.empty() && result.budget_note.empty(); batch = order.next_batch(screened)) {
    // Compile the batch's unfinished candidates on worker threads, in measuring order.
    std::vector<CompilePool::Job> jobs;
    std::vector<std::size_t> job_of(batch.size(), SIZE_MAX);
    for (std::size_t b = 0; b < batch.size(); ++b) {
      const PlannedCandidate& w = work[batch[b]];
      if (finished.contains(finished_key(w.candidate.family->name(), w.config, w.template_hash)))
        continue;
      job_of[b] = jobs.size();
      jobs.push_back([&cache = s.cache, file = w.template_file, defines = w.defines,
                      arch = s.device.arch()] { return cache.compile(file, defines, arch); });
    }
    CompilePool pool(std::move(jobs), threads);

    for (std::size_t b = 0; b < batch.size(); ++b) {
      if (result.budget_note = out_of_time(); !result.budget_note.empty()) break;
      const std::size_t i = batch[b];
      const PlannedCandidate& w = work[i];
      const Family& family = *w.candidate.family;
      CandidateRecord rec = candidate_record(w, key, s.run_id);
      ++result.measured;

      if (job_of[b] == SIZE_MAX) {
        const CandidateRecord& old =
            finished.at(finished_key(rec.family, rec.config, rec.template_hash));
        ++result.resumed;
        if (old.outcome == Outcome::ok && old.screen) {
          screened[i] = old.screen->median_us;
          ++result.ok;
        } else {
          ++result.failed;
        }
      } else {
        const Clock::time_point wait_start = Clock::now();
        CompileResult compiled = pool.take(job_of[b]);
        spent.compile_wait_s += seconds_since(wait_start);
        const Clock::time_point measure_start = Clock::now();
        const LaunchGeometry geometry = family.geometry(w.candidate.knobs, key);
        const ResourceVerdict resources = check_resources(compiled, geometry, s.limits);
        rec.registers = resources.registers;
        rec.spill_bytes = resources.spill_bytes;
        rec.smem_bytes = resources.smem_bytes;
        if (!compiled.ok) {
          rec.outcome = Outcome::compile_failed;
          rec.message = compiled.log;
        } else if (!resources.violation.empty()) {
          rec.outcome = Outcome::resources_exceeded;
          rec.message = resources.violation;
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
              throw Error(
                  ErrorKind::internal,
                  fmt::format("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: {} bytes of local memory "
                              "per thread (spills or stack)",
                              local_bytes));
            }
            float* ws = s.workspace_for(geometry.workspace_floats);
            const GemmFn gemm = [&](cudaStream_t st, float al, const float* a, const float* b,
                                    float be, float* c) {
              SgemmArgs args{a,       b,       c,       ws, key.m, key.n, key.k,
                             key.lda, key.ldb, key.ldc, al, be,    1,     0};
              kernel.launch(geometry, args, st);
            };
            const Clock::time_point verify_start = Clock::now();
            const CheckResult check = checker.check(gemm, check_seed(timing_seed));
            spent.verify_s += seconds_since(verify_start);
            rec.error = std::max(check.error_beta_zero, check.error_beta);
            rec.message = check.message;
            if (!check.passed) {
              rec.outcome = Outcome::incorrect;
              s.workspace.zero();  // a wrong kernel may have left tile counters behind
            } else {
              const Clock::time_point screen_start = Clock::now();
              checker.fill_random(timing_seed);
              // The verification has just run the kernel on this problem: it is primed and warm.
              // A first sample far above the fastest so far cannot make it a finalist.
              double fastest_us = result.cublas_us;
              for (const auto& [c, us] : screened) fastest_us = std::min(fastest_us, us);
              const double reject_factor = s.options.settings.measure.screen_reject_factor;
              const Measurement m =
                  s.timer.screen(operands.launch([&](cudaStream_t st, const OperandSet& o) {
                    gemm(st, alpha, o.a, o.b, beta, o.c);
                  }),
                                 true, reject_factor > 0 ? reject_factor * fastest_us : 0);
              spent.screen_s += seconds_since(screen_start);
              spent.screen_samples += static_cast<int>(m.samples_us.size());
              rec.screen = timing_record(m);
              rec.outcome = Outcome::ok;
              screened[i] = m.median_us;
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
                                fmt::format("candidate {} {} broke the CUDA context: {}",
                                            rec.family, rec.config, what));
            }
          }
        }
        rec.outcome == Outcome::ok ? ++result.ok : ++result.failed;
        s.store.record_candidate(s.run_id, s.gpu, s.software, rec);
        if (s.options.on_candidate) s.options.on_candidate(rec, false);
        measure_s += seconds_since(measure_start);
      }
      // Once this batch's compiles are all under way, compile what the search will likely ask
      // for next, so that the GPU does not wait for it.
      // Then the upcoming problems' first batches, behind this problem's own guesses.
      if (pool.all_started()) {
        if (std::vector<std::size_t> guess = order.likely_next(screened, kPrefetchCount);
            guess != prefetched || !ahead_wanted) {
          std::vector<CompileRequest> requests;
          for (std::size_t g : guess) requests.push_back({work[g].template_file, work[g].defines});
          requests.insert(requests.end(), ahead.begin(), ahead.end());
          s.prefetch.want(std::move(requests));
          prefetched = std::move(guess);
          ahead_wanted = true;
        }
      }
      p.done = result.measured;
      for (const auto& [c, us] : screened)
        if (p.best_us == 0 || us < p.best_us) p.best_us = us;
      p.elapsed_s = seconds_since(started);
      p.compile_wait_s = spent.compile_wait_s;
      p.measure_s = measure_s;
      if (progress) progress(p);
    }
  }

  struct Scored {
    std::size_t index;
    double screen_us;
  };
  std::vector<Scored> scored;
  for (const auto& [i, us] : screened) scored.push_back({i, us});

  // Confirmation: the finalists and cuBLAS in interleaved rounds, one cold sample each per round.
  std::sort(scored.begin(), scored.end(),
            [](const Scored& a, const Scored& b) { return a.screen_us < b.screen_us; });
  const std::size_t n_final =
      std::min<std::size_t>(scored.size(), std::max(1, s.options.settings.measure.finalists));
  LtContender lt;
  if (s.lt) {
    const Clock::time_point t = Clock::now();
    lt = screen_lt_algorithms(*s.lt, key, s.options.lt_algos, checker, s.timer, operands,
                              s.stream.get(), alpha, beta, timing_seed);
    spent.lt_s += seconds_since(t);
  }
  std::vector<std::unique_ptr<SgemmKernel>> kernels;
  std::vector<LaunchGeometry> geometries;
  std::vector<RotatingLaunch> launches = {cublas_launch};
  for (std::size_t f = 0; f < n_final; ++f) {
    const std::size_t i = scored[f].index;
    const PlannedCandidate& w = work[i];
    if (!cubins.contains(i)) {  // resumed: compile again (the cubin was not kept)
      const Clock::time_point t = Clock::now();
      CompileResult r = s.cache.compile(w.template_file, w.defines, s.device.arch());
      spent.compile_wait_s += seconds_since(t);
      if (!r.ok)
        throw Error(ErrorKind::compile, fmt::format("{} no longer compiles:\n{}", w.config, r.log));
      cubins[i] = std::move(r.cubin);
    }
    kernels.push_back(std::make_unique<SgemmKernel>(cubins[i]));
    geometries.push_back(w.candidate.family->geometry(w.candidate.knobs, key));
  }
  std::size_t workspace_floats = 0;
  for (const LaunchGeometry& g : geometries)
    workspace_floats = std::max(workspace_floats, g.workspace_floats);
  float* ws = s.workspace_for(workspace_floats);
  for (std::size_t f = 0; f < n_final; ++f) {
    launches.push_back(operands.launch([&, f](cudaStream_t st, const OperandSet& o) {
      SgemmArgs args{o.a,     o.b,     o.c,     ws,    key.m, key.n, key.k,
                     key.lda, key.ldb, key.ldc, alpha, beta,  1,     0};
      kernels[f]->launch(geometries[f], args, st);
    }));
  }
  if (lt.index >= 0)  // the last of the rounds' kernels
    launches.push_back(operands.launch([&](cudaStream_t st, const OperandSet& o) {
      s.lt->run(*lt.plan, lt.index, st, alpha, o.a, o.b, beta, o.c);
    }));
  p.stage = "confirm";
  if (progress) progress(p);
  const Clock::time_point confirm_start = Clock::now();
  checker.fill_random(timing_seed);
  const Interleaved rounds = s.timer.interleave(launches, s.options.seed);
  spent.confirm_s += seconds_since(confirm_start);
  result.cublas_us = rounds.kernels[0].median_us;
  result.rounds = rounds.rounds;
  result.discarded_rounds = rounds.discarded_rounds;
  result.sm_clock_mhz = rounds.kernels[0].sm_clock_mhz;
  result.clock_policy = s.timer.clock_policy();

  std::vector<Finalist> finalists;
  for (std::size_t f = 0; f < n_final; ++f) {
    const PlannedCandidate& w = work[scored[f].index];
    const Measurement& m = rounds.kernels[f + 1];
    finalists.push_back({m.median_us, rounds.ratio_summary[f + 1].median,
                         rounds.ratio_summary[f + 1].spread,
                         w.candidate.family->complexity(w.candidate.knobs)});
    CandidateRecord rec = candidate_record(w, key, s.run_id);
    for (const CandidateRecord& old : s.store.candidates(key, s.gpu, s.software))
      if (old.family == rec.family && old.config == rec.config &&
          old.template_hash == rec.template_hash)
        rec = old;
    rec.final = timing_record(m);
    rec.cublas_us = result.cublas_us;
    rec.cublas_conditions = measure_conditions(rounds.kernels[0]);
    s.store.record_candidate(s.run_id, s.gpu, s.software, rec);
    if (result.best_candidate_us == 0 || m.median_us < result.best_candidate_us)
      result.best_candidate_us = m.median_us;
  }

  if (lt.index >= 0) {
    // Ties go to the own kernels: cuBLASLt's algorithm has to win outright.
    const std::size_t r = n_final + 1;
    finalists.push_back({rounds.kernels[r].median_us, rounds.ratio_summary[r].median,
                         rounds.ratio_summary[r].spread, kLibraryComplexity});
  }
  const Verdict verdict = choose_winner(finalists);
  const bool lt_won = lt.index >= 0 && verdict.winner == static_cast<int>(n_final);
  WinnerRecord winner;
  winner.problem = key;
  winner.gpu = s.gpu;
  winner.software = s.software;
  winner.cublas_us = result.cublas_us;
  winner.tie_band = verdict.tie_band;
  if (lt_won) {
    winner.family = kCublasLtFamily;
    winner.config =
        lt_algorithm_config(lt.plan->algorithms()[static_cast<std::size_t>(lt.index)].algo);
    winner.time_us = finalists[verdict.winner].median_us;
  } else if (verdict.winner >= 0) {
    const std::size_t i = scored[verdict.winner].index;
    const PlannedCandidate& w = work[i];
    winner.family = w.candidate.family->name();
    winner.config = w.config;
    winner.template_hash = w.template_hash;
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
  result.seconds = seconds_since(started);
  spent.flushes = s.timer.flushes() - flushes_at_start;
  spent.flush_s = spent.flushes * s.timer.flush_us() * 1e-6;
  p.stage = "done";
  p.elapsed_s = result.seconds;
  if (progress) progress(p);
  return result;
}

}  // namespace sgt
