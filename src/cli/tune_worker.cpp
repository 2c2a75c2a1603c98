// One worker of `sgemm-tune tune`: takes problems from the run's queue and tunes them on one GPU
// into the database, appending each finished problem's result for the run's final table.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.hpp"
#include "cli/tune_args.hpp"
#include "cli/tune_supervisor.hpp"
#include "cuda/device_info.hpp"
#include "db/tuning_store.hpp"
#include "jit/compile_cache.hpp"
#include "report/progress_bar.hpp"
#include "tuner/problem_queue.hpp"
#include "tuner/tuner.hpp"

namespace sgt {
// A result line's "time_spent": each field under its own name.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TimeSpent, compile_wait_s, verify_s, screen_s, lt_s, confirm_s,
                                   flush_s, screen_samples, flushes)
}  // namespace sgt

namespace sgt::cli {
namespace {

struct Interrupted {};

// Problems after the current one whose first compiles start while it is measured.
constexpr int kCompileAhead = 2;

nlohmann::json result_line(int index, int device, const std::string& gpu,
                           const std::string& strategy, const ProblemResult& r) {
  return {{"index", index},
          {"device", device},
          {"gpu", gpu},
          {"problem", r.problem.to_string()},
          {"family", r.family},
          {"config", r.config},
          {"tuned_us", r.winner_us},
          {"cublas_us", r.cublas_us},
          {"best_own_us", r.best_candidate_us},
          {"tie_band", r.tie_band},
          {"candidates", r.candidates},
          {"measured", r.measured},
          {"ok", r.ok},
          {"failed", r.failed},
          {"resumed", r.resumed},
          {"seconds", r.seconds},
          {"compile_wait_s", r.spent.compile_wait_s},
          {"time_spent", r.spent},
          {"budget_note", r.budget_note},
          {"strategy", strategy},
          {"already_tuned", r.already_tuned},
          {"clock_policy", r.clock_policy},
          {"sm_clock_mhz", r.sm_clock_mhz},
          {"rounds", r.rounds},
          {"discarded_rounds", r.discarded_rounds},
          {"reason", r.reason}};
}

// Where the problem's time went, in one line.
std::string describe_time(const ProblemResult& r) {
  const TimeSpent& t = r.spent;
  const double other =
      std::max(0.0, r.seconds - t.compile_wait_s - t.verify_s - t.screen_s - t.lt_s - t.confirm_s);
  return fmt::format(
      "{:.1f} s: compile wait {:.1f} s, verify {:.1f} s, screening {:.1f} s ({} samples), "
      "cuBLASLt {:.1f} s, rounds {:.1f} s ({}), other {:.1f} s; of these, {} L2 flushes {:.1f} s",
      r.seconds, t.compile_wait_s, t.verify_s, t.screen_s, t.screen_samples, t.lt_s, t.confirm_s,
      r.rounds, other, t.flushes, t.flush_s);
}

}  // namespace

int tune_worker(const TuneArgs& a, const std::vector<Shape>& shapes, ProblemQueue& queue,
                const WorkerSlot& slot, const std::string& cmd, const WorkerChannel& channel) {
  if (const std::string why = gpu_unavailable_reason(); !why.empty()) {
    spdlog::error("sgemm-tune tune needs a GPU: {}", why);
    return kExitNoGpu;
  }
  SGT_CUDA_CHECK(cudaSetDevice(slot.device));

  TuneOptions options;
  options.space_path = a.space.empty() ? default_config_path("spaces") : a.space;
  const std::string settings_path =
      a.settings.empty() ? default_config_path("measure.yaml") : a.settings;
  options.settings = load_tuning_settings(settings_path);
  // --clocks is checked by the option's IsMember: observe or lock.
  options.settings.measure.clock_policy =
      from_string<ClockPolicy>(a.clocks).value_or(ClockPolicy::observe);
  options.settings.measure.lock_clocks = a.lock_clocks;
  // The host's cores are shared by its workers' compile pools.
  options.compile_threads =
      a.compile_threads > 0
          ? a.compile_threads
          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / queue.workers());
  options.strategy = parse_strategy(a.strategy);
  options.max_candidates = a.max_candidates >= 0 ? a.max_candidates : kDefaultCandidateBudget;
  options.lt_algos = a.lt_algos;
  options.lt_split_variants = a.lt_splits;
  options.lt_config_variants = a.lt_configs;
  options.problem_seconds = a.problem_time_budget_s;
  options.run_deadline = a.deadline;
  options.seed = a.seed;
  options.retune = a.retune;
  options.retune_after_run = a.retune_after_run;
  options.command_line = cmd;
  options.host = a.host;
  options.cache_dir = a.no_cache ? "" : default_compile_cache_dir();
  if (channel.active())
    options.on_candidate = [&channel](const CandidateRecord& r, bool started) {
      channel.candidate(r, started);
    };

  Database db = open_tuning_database(a.db);
  TuningStore store(db);
  Tuner tuner(store, options);
  channel.run_started(tuner.run_id(), gpu_record(tuner.device()), software_record());
  spdlog::info("worker {}: tuning on GPU {} {} ({}, {} SMs) into {}", slot.slot, slot.device,
               tuner.device().name, tuner.device().arch(), tuner.device().sm_count, a.db);

  install_interrupt_handlers();
  // Several workers share the terminal: only a single one draws a progress line (not with -q).
  const bool tty =
      isatty(STDERR_FILENO) && queue.workers() == 1 && spdlog::should_log(spdlog::level::info);
  const auto run_started = std::chrono::steady_clock::now();
  RunClock clock;
  std::ofstream results(slot.results_path, std::ios::app);
  try {
    for (;;) {
      if (past(a.deadline)) {
        spdlog::warn(
            "run time budget of {:g} s reached: problems left are not started (the same "
            "command with a new budget goes on)",
            a.time_budget_s);
        break;
      }
      const int i = queue.take(slot.slot);
      if (i < 0) break;
      // The queue hands problems out in list order: the next ones are likely this worker's.
      std::vector<Problem> upcoming;
      for (int j = i + 1; j < static_cast<int>(shapes.size()) && j <= i + kCompileAhead; ++j)
        upcoming.push_back(shapes[j].problem);
      tuner.expect(std::move(upcoming));
      ProblemResult r =
          tuner.tune(shapes[i].problem, i, static_cast<int>(shapes.size()), [&](const Progress& p) {
            clock.elapsed_s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - run_started)
                    .count();
            if (tty) {
              std::fprintf(stderr, "\r\033[K%s", format_progress(p, clock).c_str());
              std::fflush(stderr);
            }
            if (interrupt_requested()) throw Interrupted{};
          });
      if (tty) std::fprintf(stderr, "\r\033[K");
      if (!r.already_tuned) {
        clock.finished_problems_s += r.seconds;
        ++clock.finished_problems;
      }
      spdlog::info(
          "{}: {} {} {:.2f} us, cuBLAS {:.2f} us ({}; {} measured, {} ok, {} failed, "
          "{} resumed{}; clocks {}, SM {:.0f} MHz observed, {} rounds, {} discarded)",
          r.problem.to_string(), r.family, r.config, r.winner_us, r.cublas_us, r.reason, r.measured,
          r.ok, r.failed, r.resumed, r.budget_note.empty() ? "" : "; " + r.budget_note,
          r.clock_policy, r.sm_clock_mhz, r.rounds, r.discarded_rounds);
      if (!r.already_tuned) spdlog::info("{}: {}", r.problem.to_string(), describe_time(r));
      results << result_line(i, slot.device, tuner.device().name, a.strategy, r).dump() << "\n"
              << std::flush;
      queue.done(slot.slot);
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
  return kExitOk;
}

}  // namespace sgt::cli
