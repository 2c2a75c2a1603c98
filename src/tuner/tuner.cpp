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
#include <optional>
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
#include "measure/winner_selection.hpp"
#include "tuner/candidate_list.hpp"
#include "tuner/compile_pool.hpp"
#include "tuner/compile_prefetcher.hpp"
#include "tuner/lt_contender.hpp"
#include "tuner/measurement_record.hpp"
#include "tuner/search_strategy.hpp"
#include "tuner/static_pruning.hpp"
#include "verify/gemm_checker.hpp"

namespace sgt {

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

// One problem's tuning, step by step: Tuner::tune calls the steps in order. The per-problem state
// the steps share lives here; the per-run state (GPU, store, caches) in Tuner::State.
class Tuner::Search {
 public:
  Search(State& s, const Problem& problem, int index, int count, const ProgressFn& progress)
      : s_(s),
        problem_(problem),
        key_(problem.key),
        progress_(progress),
        flushes_at_start_(s.timer.flushes()),
        list_(plan(s, problem.key)),
        order_(s.options.strategy, s.space, work_, s.options.max_candidates, s.options.seed,
               warm_start_candidates(key_, known_winners(s.store, s.gpu, key_), work_)),
        p_{index, count, key_.to_string(), 0, 0, 0, 0, "screen"} {
    result_.problem = key_;
    result_.pruned = list_.pruned;
    result_.candidates = order_.budget();
    p_.total = order_.budget();
  }

  bool resume_or_done();     // what an earlier run finished; true when nothing is left to do
  void prepare_data();       // the timing data, its operand sets, and cuBLAS screened on them
  void screen_candidates();  // batches of candidates compiled, verified and screened
  void confirm_finalists();  // the finalists, cuBLASLt and cuBLAS in interleaved rounds
  void store_winner();       // the statistical gate's verdict, stored
  ProblemResult finish();

 private:
  using FinishedKey = std::pair<std::string, std::string>;
  struct Scored {
    std::size_t index;
    double screen_us;
  };

  static CandidateList plan(State& s, const ProblemKey& key) {
    if (const std::string why = validate(key); !why.empty())
      throw Error(ErrorKind::invalid_value, fmt::format("{}: {}", key.to_string(), why));
    return plan_candidates(s.enumeration, s.limits, key, s.device.arch());
  }
  static FinishedKey finished_key(const std::string& family, const std::string& config,
                                  const std::string& hash) {
    return std::make_pair(family, config + "|" + hash);
  }
  FinishedKey finished_key(const PlannedCandidate& w) const {
    return finished_key(w.candidate.family->name(), w.config, w.template_hash);
  }
  std::string out_of_time() const;
  void screen_batch(const std::vector<std::size_t>& batch);
  void resume_candidate(std::size_t i, const CandidateRecord& rec);
  void measure_candidate(std::size_t i, CompileResult compiled, CandidateRecord& rec);
  void verify_and_screen(std::size_t i, const SgemmKernel& kernel, const LaunchGeometry& geometry,
                         CompileResult& compiled, CandidateRecord& rec);
  void compile_ahead(CompilePool& pool);
  void record_lt_screening();
  void report_progress();

  State& s_;
  const Problem& problem_;
  const ProblemKey& key_;
  const ProgressFn& progress_;
  const Clock::time_point started_ = Clock::now();
  const int flushes_at_start_;
  ProblemResult result_;
  TimeSpent& spent_ = result_.spent;
  const CandidateList list_;
  const std::vector<PlannedCandidate>& work_ = list_.candidates;
  SearchOrder order_;
  std::map<FinishedKey, CandidateRecord> finished_;  // by an earlier (interrupted) run
  std::optional<GemmChecker> checker_;
  std::optional<OperandRotation> operands_;  // the checker's buffers, or copies to rotate over
  RotatingLaunch cublas_launch_;
  const std::uint64_t timing_seed_ = s_.options.seed;
  std::vector<CompileRequest> ahead_;          // the upcoming problems' first batches
  bool ahead_wanted_ = false;                  // handed to the prefetcher
  std::vector<std::size_t> prefetched_;        // the last guess handed to the prefetcher
  std::map<std::size_t, double> screened_;     // correct candidates: screening median
  std::map<std::size_t, std::string> cubins_;  // kept for the finalists
  Progress p_;
  double measure_s_ = 0;
  // Confirmation
  std::vector<Scored> scored_;  // fastest screened first
  std::size_t finalist_count_ = 0;
  LtContender lt_;
  std::vector<Finalist> finalists_;
};

bool Tuner::Search::resume_or_done() {
  // With retune, only what this command recorded (a worker restarted after a crash resumes).
  for (CandidateRecord& r : s_.store.candidates(key_, s_.gpu, s_.software))
    if (r.outcome != Outcome::compiled &&
        (!s_.options.retune || r.run_id > s_.options.retune_after_run))
      finished_.emplace(finished_key(r.family, r.config, r.template_hash), std::move(r));
  if (s_.options.retune) return false;
  // Tuned already: a winner is stored and the search's budget was spent on candidates of the
  // current space and templates (a space or template change, or a larger budget, goes on).
  const auto winner = s_.store.find_winner(key_, s_.gpu.name, s_.gpu.arch);
  if (!winner || finished_.empty()) return false;
  int known = 0;
  for (const PlannedCandidate& w : work_) known += finished_.contains(finished_key(w));
  if (known < order_.budget()) return false;
  result_.already_tuned = true;
  result_.family = winner->family;
  result_.config = winner->config;
  result_.winner_us = winner->time_us;
  result_.cublas_us = winner->cublas_us;
  result_.reason = "already tuned (use --retune to measure again)";
  return true;
}

void Tuner::Search::prepare_data() {
  checker_.emplace(key_, s_.utility, s_.cublas, s_.stream.get(),
                   s_.options.settings.verify.tolerance_factor);
  checker_->fill_random(timing_seed_);
  operands_.emplace(key_, OperandSet{checker_->a(), checker_->b(), checker_->c()},
                    s_.options.settings.measure, s_.stream.get());
  cublas_launch_ = operands_->launch([this](cudaStream_t st, const OperandSet& o) {
    s_.cublas.sgemm(st, key_, problem_.alpha, o.a, o.b, problem_.beta, o.c);
  });
  const Clock::time_point t = Clock::now();
  const Measurement m = s_.timer.screen(cublas_launch_);
  result_.cublas_us = m.median_us;
  p_.cublas_us = m.median_us;
  spent_.screen_samples += static_cast<int>(m.samples_us.size());
  spent_.screen_s += seconds_since(t);
  ahead_ = first_batches(s_.upcoming, s_.enumeration, s_.limits, s_.device.arch(), s_.options,
                         s_.space, s_.store, s_.gpu);
}

// The wall-time budget that ends first: this problem's or the run's.
std::string Tuner::Search::out_of_time() const {
  if (s_.options.problem_seconds > 0 && seconds_since(started_) >= s_.options.problem_seconds)
    return fmt::format("per-problem time budget of {:g} s reached", s_.options.problem_seconds);
  const bool has_run_deadline = s_.options.run_deadline != std::chrono::system_clock::time_point{};
  if (has_run_deadline && std::chrono::system_clock::now() >= s_.options.run_deadline)
    return "run time budget reached";
  return {};
}

void Tuner::Search::screen_candidates() {
  for (std::vector<std::size_t> batch = order_.next_batch({});
       !batch.empty() && result_.budget_note.empty(); batch = order_.next_batch(screened_))
    screen_batch(batch);
}

void Tuner::Search::screen_batch(const std::vector<std::size_t>& batch) {
  // Compile the batch's unfinished candidates on worker threads, in measuring order.
  std::vector<CompilePool::Job> jobs;
  std::vector<std::size_t> job_of(batch.size(), SIZE_MAX);
  for (std::size_t b = 0; b < batch.size(); ++b) {
    const PlannedCandidate& w = work_[batch[b]];
    if (finished_.contains(finished_key(w))) continue;
    job_of[b] = jobs.size();
    jobs.push_back([&cache = s_.cache, file = w.template_file, defines = w.defines,
                    arch = s_.device.arch()] { return cache.compile(file, defines, arch); });
  }
  CompilePool pool(std::move(jobs), compile_threads(s_.options));

  for (std::size_t b = 0; b < batch.size(); ++b) {
    if (result_.budget_note = out_of_time(); !result_.budget_note.empty()) break;
    const std::size_t i = batch[b];
    CandidateRecord rec = candidate_record(work_[i], key_, s_.run_id);
    ++result_.measured;
    if (job_of[b] == SIZE_MAX) {
      resume_candidate(i, rec);
    } else {
      const Clock::time_point wait_start = Clock::now();
      CompileResult compiled = pool.take(job_of[b]);
      spent_.compile_wait_s += seconds_since(wait_start);
      const Clock::time_point measure_start = Clock::now();
      measure_candidate(i, std::move(compiled), rec);
      rec.outcome == Outcome::ok ? ++result_.ok : ++result_.failed;
      s_.store.record_candidate(s_.run_id, s_.gpu, s_.software, rec);
      if (s_.options.on_candidate) s_.options.on_candidate(rec, false);
      measure_s_ += seconds_since(measure_start);
    }
    compile_ahead(pool);
    report_progress();
  }
}

void Tuner::Search::resume_candidate(std::size_t i, const CandidateRecord& rec) {
  const CandidateRecord& old =
      finished_.at(finished_key(rec.family, rec.config, rec.template_hash));
  ++result_.resumed;
  if (old.outcome == Outcome::ok && old.screen) {
    screened_[i] = old.screen->median_us;
    ++result_.ok;
  } else {
    ++result_.failed;
  }
}

// A compiled candidate: its resources checked, loaded, verified and screened. A candidate that
// breaks the CUDA context is recorded, and the run must restart (ContextLost).
void Tuner::Search::measure_candidate(std::size_t i, CompileResult compiled, CandidateRecord& rec) {
  const PlannedCandidate& w = work_[i];
  const LaunchGeometry geometry = w.candidate.family->geometry(w.candidate.knobs, key_, s_.limits);
  if (record_compile(rec, compiled, check_resources(compiled, geometry, s_.limits)) !=
      Outcome::compiled)
    return;
  try {
    // From here a kernel of ours runs: a supervisor watching for crashes and hangs needs to know
    // which candidate is in flight.
    if (s_.options.on_candidate) s_.options.on_candidate(rec, true);
    SgemmKernel kernel(compiled.cubin);
    // The loaded function's attributes are authoritative where the ptxas report is silent.
    rec.registers = kernel.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
    const int local_bytes = kernel.attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    if (local_bytes > 0) {
      throw Error(ErrorKind::internal,
                  fmt::format("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: {} bytes of local memory "
                              "per thread (spills or stack)",
                              local_bytes));
    }
    verify_and_screen(i, kernel, geometry, compiled, rec);
  } catch (const Error& e) {
    const std::string what = e.what();
    rec.outcome = what.find("OUT_OF_RESOURCES") != std::string::npos ? Outcome::resources_exceeded
                                                                     : Outcome::launch_failed;
    rec.message = what;
    if (context_is_broken()) {
      s_.store.record_candidate(s_.run_id, s_.gpu, s_.software, rec);
      if (s_.options.on_candidate) s_.options.on_candidate(rec, false);
      throw ContextLost(ErrorKind::cuda, fmt::format("candidate {} {} broke the CUDA context: {}",
                                                     rec.family, rec.config, what));
    }
  }
}

void Tuner::Search::verify_and_screen(std::size_t i, const SgemmKernel& kernel,
                                      const LaunchGeometry& geometry, CompileResult& compiled,
                                      CandidateRecord& rec) {
  float* ws = s_.workspace_for(geometry.workspace_floats);
  const GemmFn gemm = [&](cudaStream_t st, float al, const float* a, const float* b, float be,
                          float* c) {
    kernel.launch(geometry, problem_args(key_, a, b, c, ws, al, be), st);
  };
  const Clock::time_point verify_start = Clock::now();
  const CheckResult check = checker_->check(gemm, check_seed(timing_seed_));
  spent_.verify_s += seconds_since(verify_start);
  rec.error = std::max(check.error_beta_zero, check.error_beta);
  rec.message = check.message;
  if (!check.passed) {
    rec.outcome = Outcome::incorrect;
    s_.workspace.zero();  // a wrong kernel may have left tile counters behind
    return;
  }
  const Clock::time_point screen_start = Clock::now();
  checker_->fill_random(timing_seed_);
  // The verification has just run the kernel on this problem: it is primed and warm. A first
  // sample far above the fastest so far cannot make it a finalist.
  double fastest_us = result_.cublas_us;
  for (const auto& [c, us] : screened_) fastest_us = std::min(fastest_us, us);
  const MeasureSettings& measure = s_.options.settings.measure;
  Timer::ScreenLimits limits;
  if (measure.screen_reject_factor > 0)
    limits.reject_above_us = measure.screen_reject_factor * fastest_us;
  if (measure.screen_drop_factor > 0)
    limits.drop_above_us = measure.screen_drop_factor * fastest_us;
  const Measurement m =
      s_.timer.screen(operands_->launch([&](cudaStream_t st, const OperandSet& o) {
        gemm(st, problem_.alpha, o.a, o.b, problem_.beta, o.c);
      }),
                      true, limits);
  spent_.screen_s += seconds_since(screen_start);
  spent_.screen_samples += static_cast<int>(m.samples_us.size());
  rec.screen = timing_record(m);
  rec.outcome = Outcome::ok;
  screened_[i] = m.median_us;
  cubins_[i] = std::move(compiled.cubin);
}

// Once a batch's compiles are all under way, compile what the search will likely ask for next,
// then the upcoming problems' first batches, so that the GPU does not wait for them.
void Tuner::Search::compile_ahead(CompilePool& pool) {
  if (!pool.all_started()) return;
  std::vector<std::size_t> guess = order_.likely_next(screened_, kPrefetchCount);
  if (guess == prefetched_ && ahead_wanted_) return;
  std::vector<CompileRequest> requests;
  for (std::size_t g : guess) requests.push_back({work_[g].template_file, work_[g].defines});
  requests.insert(requests.end(), ahead_.begin(), ahead_.end());
  s_.prefetch.want(std::move(requests));
  prefetched_ = std::move(guess);
  ahead_wanted_ = true;
}

void Tuner::Search::report_progress() {
  p_.done = result_.measured;
  for (const auto& [c, us] : screened_)
    if (p_.best_us == 0 || us < p_.best_us) p_.best_us = us;
  p_.elapsed_s = seconds_since(started_);
  p_.compile_wait_s = spent_.compile_wait_s;
  p_.measure_s = measure_s_;
  if (progress_) progress_(p_);
}

void Tuner::Search::confirm_finalists() {
  for (const auto& [i, us] : screened_) scored_.push_back({i, us});
  std::sort(scored_.begin(), scored_.end(),
            [](const Scored& a, const Scored& b) { return a.screen_us < b.screen_us; });
  finalist_count_ =
      std::min<std::size_t>(scored_.size(), std::max(1, s_.options.settings.measure.finalists));
  if (s_.lt) {
    const Clock::time_point t = Clock::now();
    lt_ = screen_lt_algorithms(
        *s_.lt, key_,
        {s_.options.lt_algos, s_.options.lt_split_variants, s_.options.lt_config_variants},
        *checker_, s_.timer, *operands_, s_.stream.get(), problem_.alpha, problem_.beta,
        timing_seed_);
    spent_.lt_s += seconds_since(t);
    record_lt_screening();
  }
  std::vector<std::unique_ptr<SgemmKernel>> kernels;
  std::vector<LaunchGeometry> geometries;
  for (std::size_t f = 0; f < finalist_count_; ++f) {
    const std::size_t i = scored_[f].index;
    const PlannedCandidate& w = work_[i];
    if (!cubins_.contains(i)) {  // resumed: compile again (the cubin was not kept)
      const Clock::time_point t = Clock::now();
      CompileResult r = s_.cache.compile(w.template_file, w.defines, s_.device.arch());
      spent_.compile_wait_s += seconds_since(t);
      if (!r.ok)
        throw Error(ErrorKind::compile, fmt::format("{} no longer compiles:\n{}", w.config, r.log));
      cubins_[i] = std::move(r.cubin);
    }
    kernels.push_back(std::make_unique<SgemmKernel>(cubins_[i]));
    geometries.push_back(w.candidate.family->geometry(w.candidate.knobs, key_, s_.limits));
  }
  std::size_t workspace_floats = 0;
  for (const LaunchGeometry& g : geometries)
    workspace_floats = std::max(workspace_floats, g.workspace_floats);
  float* ws = s_.workspace_for(workspace_floats);
  std::vector<RotatingLaunch> launches = {cublas_launch_};
  for (std::size_t f = 0; f < finalist_count_; ++f) {
    launches.push_back(operands_->launch([&, f](cudaStream_t st, const OperandSet& o) {
      kernels[f]->launch(geometries[f],
                         problem_args(key_, o.a, o.b, o.c, ws, problem_.alpha, problem_.beta), st);
    }));
  }
  if (lt_.index >= 0)  // the last of the rounds' kernels
    launches.push_back(operands_->launch([&](cudaStream_t st, const OperandSet& o) {
      s_.lt->run(*lt_.plan, lt_.index, st, problem_.alpha, o.a, o.b, problem_.beta, o.c);
    }));
  p_.stage = "confirm";
  if (progress_) progress_(p_);
  const Clock::time_point confirm_start = Clock::now();
  checker_->fill_random(timing_seed_);
  const Interleaved rounds = s_.timer.interleave(launches, s_.options.seed);
  spent_.confirm_s += seconds_since(confirm_start);
  result_.cublas_us = rounds.kernels[0].median_us;
  result_.rounds = rounds.rounds;
  result_.discarded_rounds = rounds.discarded_rounds;
  result_.sm_clock_mhz = rounds.kernels[0].sm_clock_mhz;
  result_.clock_policy = s_.timer.clock_policy();

  for (std::size_t f = 0; f < finalist_count_; ++f) {
    const PlannedCandidate& w = work_[scored_[f].index];
    const Measurement& m = rounds.kernels[f + 1];
    finalists_.push_back({m.median_us, rounds.ratio_summary[f + 1].median,
                          rounds.ratio_summary[f + 1].spread,
                          w.candidate.family->complexity(w.candidate.knobs)});
    CandidateRecord rec = candidate_record(w, key_, s_.run_id);
    for (const CandidateRecord& old : s_.store.candidates(key_, s_.gpu, s_.software))
      if (old.family == rec.family && old.config == rec.config &&
          old.template_hash == rec.template_hash)
        rec = old;
    rec.final = timing_record(m);
    rec.cublas_us = result_.cublas_us;
    rec.cublas_conditions = measure_conditions(rounds.kernels[0]);
    s_.store.record_candidate(s_.run_id, s_.gpu, s_.software, rec);
    if (result_.best_candidate_us == 0 || m.median_us < result_.best_candidate_us)
      result_.best_candidate_us = m.median_us;
  }
  if (lt_.index >= 0) {
    // Ties go to the own kernels: cuBLASLt's algorithm has to win outright.
    const std::size_t r = finalist_count_ + 1;
    finalists_.push_back({rounds.kernels[r].median_us, rounds.ratio_summary[r].median,
                          rounds.ratio_summary[r].spread, kLibraryComplexity});
  }
}

// Every correct cuBLASLt algorithm screened, as a candidate of family "cublaslt" with the config
// its winner would carry: a prediction for a neighbouring problem can then score the algorithm
// that won there on this problem's own screening (tools/bench/prediction_replay.py).
void Tuner::Search::record_lt_screening() {
  std::vector<CandidateRecord> records;
  for (const LtScreened& screened : lt_.screened) {
    CandidateRecord rec;
    rec.run_id = s_.run_id;
    rec.problem = key_;
    rec.family = kCublasLtFamily;
    rec.config =
        lt_algorithm_config(lt_.plan->algorithms()[static_cast<std::size_t>(screened.index)].algo);
    rec.screen = timing_record(screened.measurement);
    rec.cublas_us = result_.cublas_us;
    records.push_back(std::move(rec));
  }
  if (!records.empty()) s_.store.record_candidates(s_.run_id, s_.gpu, s_.software, records);
}

void Tuner::Search::store_winner() {
  const Verdict verdict = choose_winner(finalists_);
  const bool lt_won = lt_.index >= 0 && verdict.winner == static_cast<int>(finalist_count_);
  WinnerRecord winner;
  winner.problem = key_;
  winner.gpu = s_.gpu;
  winner.software = s_.software;
  winner.cublas_us = result_.cublas_us;
  winner.tie_band = verdict.tie_band;
  if (lt_won) {
    winner.family = kCublasLtFamily;
    winner.config =
        lt_algorithm_config(lt_.plan->algorithms()[static_cast<std::size_t>(lt_.index)].algo);
    winner.time_us = finalists_[verdict.winner].median_us;
  } else if (verdict.winner >= 0) {
    const std::size_t i = scored_[verdict.winner].index;
    const PlannedCandidate& w = work_[i];
    winner.family = w.candidate.family->name();
    winner.config = w.config;
    winner.template_hash = w.template_hash;
    winner.compile_options = w.options;
    winner.time_us = finalists_[verdict.winner].median_us;
    winner.cubin.assign(cubins_[i].begin(), cubins_[i].end());
    winner.cubin_arch = s_.device.arch();
  } else {
    winner.family = kCublasFamily;
    winner.time_us = result_.cublas_us;
  }
  s_.store.set_winner(winner);
  result_.family = winner.family;
  result_.config = winner.config;
  result_.winner_us = winner.time_us;
  result_.tie_band = verdict.tie_band;
  result_.reason = verdict.reason;
}

ProblemResult Tuner::Search::finish() {
  result_.seconds = seconds_since(started_);
  if (!result_.already_tuned) {
    spent_.flushes = s_.timer.flushes() - flushes_at_start_;
    spent_.flush_s = spent_.flushes * s_.timer.flush_us() * 1e-6;
    p_.stage = "done";
    p_.elapsed_s = result_.seconds;
    if (progress_) progress_(p_);
  }
  return std::move(result_);
}

// The steps of one problem, in the manner of nvbench's measure_cold: resume, the data and
// cuBLAS, the search (compile, verify, screen), confirmation against cuBLAS, the verdict.
ProblemResult Tuner::tune(const Problem& problem, int index, int count,
                          const ProgressFn& progress) {
  Search search(*state_, problem, index, count, progress);
  if (search.resume_or_done()) return search.finish();
  search.prepare_data();
  search.screen_candidates();
  search.confirm_finalists();
  search.store_winner();
  return search.finish();
}

}  // namespace sgt
