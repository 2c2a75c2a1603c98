// `sgemm-tune tune`: every problem of a shape list on the local GPU, into the database, then a
// tuned-vs-cuBLAS table. Ctrl-C keeps what finished; the same command resumes.
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>

#include "cli/cli_common.hpp"
#include "common/error.hpp"
#include "config/shape_list.hpp"
#include "cuda/device_info.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "jit/compile_cache.hpp"
#include "tuner/tuner.hpp"
#include "cli/tune_supervisor.hpp"

#include <cuda_runtime_api.h>

namespace sgt::cli {
namespace {

std::atomic<bool> interrupted{false};

struct Interrupted {};

extern "C" void on_interrupt(int) { interrupted.store(true); }

struct TuneArgs {
  std::string shapes, db, space, settings, clocks = "observe", lock_clocks;
  int max_candidates = 0, compile_threads = 0, device = 0;
  std::uint64_t seed = 20261201;
  bool retune = false, no_cache = false, no_isolation = false, json = false;
  double candidate_timeout_s = 60;
};

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

void print_progress(const Progress& p, bool tty) {
  if (!tty) return;
  const std::string best = p.best_us > 0 ? fmt::format("best {:.1f} us", p.best_us) : "best -";
  const std::string vs = p.best_us > 0 && p.cublas_us > 0
                             ? fmt::format(" ({:.2f}x cuBLAS {:.1f} us)", p.cublas_us / p.best_us, p.cublas_us)
                             : fmt::format(" (cuBLAS {:.1f} us)", p.cublas_us);
  std::fprintf(stderr, "\r\033[K[%d/%d] %s  %s %d/%d  %s%s", p.problem_index + 1, p.problem_count,
               p.problem.c_str(), p.stage.c_str(), p.done, p.total, best.c_str(), vs.c_str());
  std::fflush(stderr);
}

int tune_worker(const TuneArgs& a, const std::string& cmd, const WorkerChannel& channel);

int run_tune(const TuneArgs& a, const std::string& cmd) {
  load_shape_list(a.shapes);  // bad input: reported before any worker starts
  if (a.no_isolation) return tune_worker(a, cmd, WorkerChannel(-1));
  SupervisorSettings settings;
  settings.db_path = a.db;
  settings.candidate_timeout_s = a.candidate_timeout_s;
  return supervise([&](const WorkerChannel& channel) { return tune_worker(a, cmd, channel); }, settings);
}

int tune_worker(const TuneArgs& a, const std::string& cmd, const WorkerChannel& channel) {
  std::vector<Shape> shapes = load_shape_list(a.shapes);
  // A dispatcher miss log: what the application spent most time on comes first.
  std::stable_sort(shapes.begin(), shapes.end(), [](const Shape& x, const Shape& y) {
    return static_cast<double>(x.calls) * flops(x.problem.key) > static_cast<double>(y.calls) * flops(y.problem.key);
  });
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) {
    spdlog::error("sgemm-tune tune needs a GPU: {}", why);
    return kExitNoGpu;
  }
  SGT_CUDA_CHECK(cudaSetDevice(a.device));

  TuneOptions options;
  options.space_path = a.space.empty() ? default_config_path("spaces") : a.space;
  const std::string settings_path = a.settings.empty() ? default_config_path("measure.yaml") : a.settings;
  options.settings = load_tuning_settings(settings_path);
  options.settings.measure.clock_policy = a.clocks;
  options.settings.measure.lock_clocks = a.lock_clocks;
  options.compile_threads = a.compile_threads;
  options.max_candidates = a.max_candidates;
  options.seed = a.seed;
  options.retune = a.retune;
  options.command_line = cmd;
  options.cache_dir = a.no_cache ? "" : default_compile_cache_dir();
  if (channel.active())
    options.on_candidate = [&channel](const CandidateRecord& r, bool started) { channel.candidate(r, started); };

  std::filesystem::create_directories(std::filesystem::path(a.db).parent_path().empty()
                                          ? "."
                                          : std::filesystem::path(a.db).parent_path());
  Database db = Database::open(a.db, OpenMode::create);
  TuningStore store(db);
  Tuner tuner(store, options);
  channel.run_started(tuner.run_id(), gpu_record(tuner.device()), software_record());
  spdlog::info("tuning {} problems on {} ({}, {} SMs) into {}", shapes.size(), tuner.device().name,
               tuner.device().arch(), tuner.device().sm_count, a.db);

  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  const bool tty = isatty(STDERR_FILENO);
  std::vector<ProblemResult> results;
  try {
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      ProblemResult r = tuner.tune(shapes[i].problem, static_cast<int>(i), static_cast<int>(shapes.size()),
                                   [&](const Progress& p) {
                                     print_progress(p, tty);
                                     if (interrupted.load()) throw Interrupted{};
                                   });
      if (tty) std::fprintf(stderr, "\r\033[K");
      spdlog::info("{}: {} {} {:.2f} us, cuBLAS {:.2f} us ({}; {} ok, {} failed, {} resumed; "
                   "clocks {}, SM {:.0f} MHz observed, {} rounds, {} discarded)",
                   r.problem.to_string(), r.family, r.config, r.winner_us, r.cublas_us, r.reason, r.ok,
                   r.failed, r.resumed, r.clock_policy, r.sm_clock_mhz, r.rounds, r.discarded_rounds);
      results.push_back(std::move(r));
    }
  } catch (const ContextLost& e) {
    if (tty) std::fprintf(stderr, "\n");
    tuner.finish("restarting");
    spdlog::warn("{}", e.what());
    return channel.active() ? kExitRestartWorker : kExitError;
  } catch (const Interrupted&) {
    if (tty) std::fprintf(stderr, "\n");
    tuner.finish("interrupted");
    spdlog::warn("interrupted: finished candidates are stored; run the same command to resume");
    return kExitInterrupted;
  }
  tuner.finish("finished");

  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const ProblemResult& r : results)
      out.push_back({{"problem", r.problem.to_string()}, {"family", r.family}, {"config", r.config},
                     {"tuned_us", r.winner_us}, {"cublas_us", r.cublas_us},
                     {"best_own_us", r.best_candidate_us}, {"tie_band", r.tie_band},
                     {"candidates", r.candidates}, {"ok", r.ok}, {"failed", r.failed},
                     {"resumed", r.resumed}, {"clock_policy", r.clock_policy},
                     {"sm_clock_mhz", r.sm_clock_mhz}, {"reason", r.reason}});
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  std::printf("\n%-44s %-10s %12s %12s %8s\n", "problem", "winner", "tuned us", "cuBLAS us", "speedup");
  for (const ProblemResult& r : results) {
    std::printf("%-44s %-10s %12.2f %12.2f %7.2fx\n", r.problem.to_string().c_str(), r.family.c_str(),
                r.winner_us, r.cublas_us, r.winner_us > 0 ? r.cublas_us / r.winner_us : 0.0);
  }
  return kExitOk;
}

}  // namespace

void add_tune_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* cmd = app.add_subcommand("tune", "Tune every problem of a shape list on the local GPU");
  CLI::Option* shapes = cmd->add_option("--shapes", args->shapes, "Shape list (CSV with header m,n,k,... or YAML)");
  CLI::Option* misses = cmd->add_option("--from-misses", args->shapes,
                                        "A dispatcher miss log (SGEMM_DISPATCH_MISS_LOG): heaviest first");
  shapes->excludes(misses);
  misses->excludes(shapes);
  cmd->add_option("--db", args->db, "Tuning database (default: $SGEMM_TUNER_DB or the per-user one)");
  cmd->add_option("--space", args->space, "Search space file or folder (default: configs/spaces)");
  cmd->add_option("--settings", args->settings, "Measurement settings (default: configs/measure.yaml)");
  cmd->add_option("--max-candidates", args->max_candidates, "At most this many candidates per problem");
  cmd->add_option("--compile-threads", args->compile_threads, "NVRTC worker threads (default: one per core)");
  cmd->add_option("--device", args->device, "CUDA device ordinal");
  cmd->add_option("--seed", args->seed, "Seed of the timing data");
  cmd->add_option("--clocks", args->clocks, "Clock policy")->check(CLI::IsMember({"observe", "lock"}));
  cmd->add_option("--lock-clocks", args->lock_clocks, "With --clocks lock: base, max or MHz");
  cmd->add_flag("--retune", args->retune, "Measure again what the database already holds");
  cmd->add_flag("--no-cache", args->no_cache, "Do not use the on-disk compile cache");
  cmd->add_flag("--json", args->json, "Print the results as JSON instead of a table");
  cmd->add_option("--candidate-timeout", args->candidate_timeout_s,
                  "Seconds a candidate's kernels may run before the worker is stopped (timed_out)");
  cmd->add_flag("--no-isolation", args->no_isolation,
                "Run candidates in this process (a crashing candidate then ends the run)");
  cmd->callback([args, &exit_code, &app] {
    if (args->shapes.empty()) throw CLI::RequiredError("--shapes or --from-misses");
    if (args->db.empty()) args->db = default_database_path();
    (void)app;
    exit_code = run_tune(*args, fmt::format("sgemm-tune tune --shapes {}", args->shapes));
  });
}

}  // namespace sgt::cli
