// `sgemm-tune tune`: the problems of a shape list tuned on one or several GPUs of this host (one
// supervised worker per GPU, problems handed out as workers free up, one database), or shared
// among the ranks of an MPI job; then a tuned-vs-cuBLAS table. Ctrl-C keeps what finished; the
// same command resumes.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cli/cli_common.hpp"
#include "cli/mpi_world.hpp"
#include "cli/tune_args.hpp"
#include "cli/tune_supervisor.hpp"
#include "common/error.hpp"
#include "config/shape_list.hpp"
#include "db/tuning_store.hpp"
#include "report/merge.hpp"
#include "tuner/problem_queue.hpp"

namespace sgt::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::atomic<bool> interrupted{false};

extern "C" void on_interrupt(int) { interrupted.store(true); }

// GPUs this process can see, counted in a short-lived child: CUDA must not be initialised in
// the process that forks the workers.
int visible_gpu_count() {
  const pid_t pid = fork();
  if (pid < 0) throw Error(ErrorKind::internal, "fork failed");
  if (pid == 0) {
    int n = 0;
    _exit(cudaGetDeviceCount(&n) == cudaSuccess ? std::min(n, 100) : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
}

// "--devices 0,1", "--devices all" (empty when no GPU is visible); a GPU may be named twice (two
// workers on one GPU).
std::vector<int> parse_devices(const std::string& text, int fallback) {
  if (text.empty()) return {fallback};
  std::vector<int> out;
  if (text == "all") {
    for (int i = 0, n = visible_gpu_count(); i < n; ++i) out.push_back(i);
    return out;  // empty: no GPU
  }
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    std::size_t used = 0;
    int d = -1;
    try {
      d = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || d < 0)
      throw Error(
          ErrorKind::invalid_value,
          fmt::format("--devices: '{}' is not a device ordinal (expected all or 0,1,...)", item));
    out.push_back(d);
  }
  if (static_cast<int>(out.size()) > ProblemQueue::kMaxWorkers)
    throw Error(ErrorKind::invalid_value, "--devices: at most 64 workers per host");
  return out;
}

struct LocalRun {
  int exit_code = kExitOk;
  std::vector<json> results;  // one per finished problem, in shape-list order
};

int worst(int a, int b) {
  if (a == kExitInterrupted || b == kExitInterrupted) return kExitInterrupted;
  return std::max(a, b);
}

// Tunes shapes on this host: one supervised worker per device, in processes of their own.
LocalRun run_local(const TuneArgs& a, const std::vector<Shape>& shapes, const std::string& cmd) {
  const std::vector<int> devices = parse_devices(a.devices, a.device);
  if (devices.size() > 1 || a.devices == "all") {
    // Checked once here, not by every worker.
    const int visible = visible_gpu_count();
    if (visible == 0 || devices.empty()) {
      spdlog::error("sgemm-tune tune needs a GPU: --devices {}: none is visible", a.devices);
      return {kExitNoGpu, {}};
    }
    for (int d : devices)
      if (d >= visible)
        throw Error(
            ErrorKind::invalid_value,
            fmt::format("--devices {}: GPU {} is not visible ({} GPUs)", a.devices, d, visible));
  }
  std::string pattern = (fs::temp_directory_path() / "sgemm-tune-run-XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    throw Error(ErrorKind::internal, "cannot create a temporary folder");
  const fs::path results_dir = pattern;
  ProblemQueue queue(static_cast<int>(shapes.size()), static_cast<int>(devices.size()));

  const auto run_slot = [&](int w) {
    const WorkerSlot slot{w, devices[w], (results_dir / fmt::format("worker{}.jsonl", w)).string()};
    const auto worker = [&](const WorkerChannel& channel) {
      return tune_worker(a, shapes, queue, slot, cmd, channel);
    };
    if (a.no_isolation) return worker(WorkerChannel(-1));
    SupervisorSettings settings;
    settings.db_path = a.db;
    settings.candidate_timeout_s = a.candidate_timeout_s;
    return supervise(worker, settings);
  };

  LocalRun run;
  if (devices.size() == 1) {
    run.exit_code = run_slot(0);
  } else {
    spdlog::info("{} workers on GPUs {}", devices.size(), a.devices);
    std::vector<pid_t> children;
    for (int w = 0; w < static_cast<int>(devices.size()); ++w) {
      const pid_t pid = fork();
      if (pid < 0) throw Error(ErrorKind::internal, "fork failed");
      if (pid == 0) {
        int code = kExitError;
        try {
          code = run_slot(w);
        } catch (const std::exception& e) {
          spdlog::error("worker {}: {}", w, e.what());
        }
        std::fflush(nullptr);
        _exit(code);
      }
      children.push_back(pid);
    }
    signal(SIGINT, SIG_IGN);  // the workers (same process group) stop cleanly on Ctrl-C
    for (pid_t pid : children) {
      int status = 0;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      run.exit_code = worst(run.exit_code, WIFEXITED(status) ? WEXITSTATUS(status) : kExitError);
    }
  }
  for (const auto& entry : fs::directory_iterator(results_dir)) {
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) run.results.push_back(json::parse(line));
  }
  std::error_code ec;
  fs::remove_all(results_dir, ec);
  std::sort(run.results.begin(), run.results.end(),
            [](const json& x, const json& y) { return x.at("index") < y.at("index"); });
  return run;
}

// "GPU 0", or under MPI "host/rank 1 of 2 GPU 0".
std::string where(const json& r) {
  const std::string host = r.value("host_rank", std::string());
  return fmt::format("{}{}GPU {}", host, host.empty() ? "" : " ", r.at("device").get<int>());
}

void print_results(const std::vector<json>& results, std::size_t problems, bool as_json) {
  if (as_json) {
    json out = json::array();
    for (json r : results) {
      r.erase("index");
      out.push_back(std::move(r));
    }
    std::printf("%s\n", out.dump(2).c_str());
    return;
  }
  std::printf("\n%-52s %-10s %-8s %12s %12s %8s\n", "problem", "winner", "where", "tuned us",
              "cuBLAS us", "speedup");
  for (const json& r : results) {
    const double tuned = r.at("tuned_us"), cublas = r.at("cublas_us");
    std::printf("%-52s %-10s %-8s %12.2f %12.2f %7.2fx\n",
                r.at("problem").get<std::string>().c_str(),
                r.at("family").get<std::string>().c_str(), where(r).c_str(), tuned, cublas,
                tuned > 0 ? cublas / tuned : 0.0);
  }
  if (results.size() < problems)
    std::printf(
        "%zu of %zu problems not finished (interrupted or out of time budget; the same "
        "command goes on)\n",
        problems - results.size(), problems);
}

std::vector<Shape> sorted_shapes(const std::string& path) {
  std::vector<Shape> shapes = load_shape_list(path);
  // A dispatcher miss log: what the application spent most time on comes first.
  std::stable_sort(shapes.begin(), shapes.end(), [](const Shape& x, const Shape& y) {
    return static_cast<double>(x.calls) * flops(x.problem.key) >
           static_cast<double>(y.calls) * flops(y.problem.key);
  });
  return shapes;
}

// This rank's database beside the shared one (resumable: the same job started again goes on).
std::string rank_database(const std::string& db, int rank, int size) {
  return fmt::format("{}.rank{}-of-{}", db, rank, size);
}

// Rank 0 merges every rank's dump into the database: per-rank provenance (host, rank, GPU) is
// kept in the runs, and winners of one GPU model found by several ranks go to the faster.
void merge_rank_dumps(const std::string& db, const std::vector<std::string>& dumps) {
  std::vector<std::string> inputs;
  for (std::size_t r = 0; r < dumps.size(); ++r) {
    const std::string path = db + fmt::format(".gathered{}", r);
    fs::remove(path);
    Database d = Database::open(path, OpenMode::create);
    TuningStore(d).import_json(dumps[r]);
    inputs.push_back(path);
  }
  const report::MergeSummary summary = report::merge_databases(db, inputs);
  spdlog::info("merged {} ranks into {}: {} winners, {} conflicts resolved", dumps.size(), db,
               summary.winners, summary.conflicts.size());
  for (const std::string& path : inputs) fs::remove(path);
}

int run_tune(TuneArgs a, const std::string& cmd) {
  const std::vector<Shape> all_shapes = sorted_shapes(a.shapes);  // bad input: before any worker
  if (a.time_budget_s > 0)
    a.deadline = std::chrono::system_clock::now() +
                 std::chrono::duration_cast<std::chrono::system_clock::duration>(
                     std::chrono::duration<double>(a.time_budget_s));
  MpiWorld world;
  const std::string target_db = a.db;
  std::vector<Shape> shapes;
  if (world.size() == 1) {
    shapes = all_shapes;
  } else {
    // Round-robin over the sorted list, so every rank gets a share of the heavy problems.
    for (std::size_t i = world.rank(); i < all_shapes.size(); i += world.size())
      shapes.push_back(all_shapes[i]);
    a.host = fmt::format("{}/rank {} of {}", world.host(), world.rank(), world.size());
    a.db = rank_database(a.db, world.rank(), world.size());
    if (a.devices.empty() && !a.compile_only)
      a.device = world.local_rank() % std::max(1, visible_gpu_count());
    spdlog::info("rank {} of {} on {}: {} of {} problems", world.rank(), world.size(), world.host(),
                 shapes.size(), all_shapes.size());
  }

  json report;  // compile-only under MPI: what rank 0 prints for every rank
  int code = kExitOk;
  std::vector<json> results;
  if (a.compile_only) {
    code = compile_only(a, shapes, cmd, world.size() == 1 ? nullptr : &report);
  } else {
    if (a.retune) {
      Database d = open_tuning_database(a.db);
      const std::vector<RunRecord> runs = TuningStore(d).runs();
      a.retune_after_run = runs.empty() ? 0 : runs.back().id;
    }
    LocalRun local = run_local(a, shapes, cmd);
    code = local.exit_code;
    for (json& r : local.results) r["host_rank"] = world.size() == 1 ? "" : a.host;
    results = std::move(local.results);
  }
  if (world.size() == 1) {
    // No GPU (or a worker that could not start): its one error line says it all.
    if (!a.compile_only && !(code == kExitNoGpu && results.empty()))
      print_results(results, shapes.size(), a.json);
    return code;
  }

  // Every rank sends its database and what it printed; rank 0 merges and prints for the job.
  std::string dump;
  {
    Database d = Database::open(a.db, OpenMode::read_only);
    ExportOptions options;
    options.include_cubins = true;
    dump = TuningStore(d).export_json(options);
  }
  const json mine = {{"rank", world.rank()},
                     {"code", code},
                     {"dump", dump},
                     {"results", results},
                     {"compile", report}};
  const std::vector<std::string> gathered = world.gather(mine.dump());
  code = world.max_over_ranks(code == kExitInterrupted ? 128 : code);
  if (code == 128) code = kExitInterrupted;

  int merge_failed = 0;
  if (world.rank() == 0) {
    std::vector<std::string> dumps;
    std::vector<json> all_results;
    json compile_problems = json::array();
    for (const std::string& text : gathered) {
      json j = json::parse(text);
      dumps.push_back(j.at("dump").get<std::string>());
      for (json& r : j.at("results")) all_results.push_back(std::move(r));
      if (j.at("compile").contains("problems"))
        for (json& p : j.at("compile").at("problems")) compile_problems.push_back(std::move(p));
    }
    try {
      merge_rank_dumps(target_db, dumps);
      if (a.compile_only)
        print_compile_report(compile_problems, a.json);
      else
        print_results(all_results, all_shapes.size(), a.json);
    } catch (const std::exception& e) {
      spdlog::error("merging the ranks' results into {}: {} (each rank's database is kept)",
                    target_db, e.what());
      merge_failed = 1;
    }
  }
  // A rank's own database goes once everything it held is in the shared one.
  if (world.max_over_ranks(merge_failed) == 0 && code == kExitOk)
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(a.db + suffix);
  return merge_failed ? kExitError : code;
}

}  // namespace

bool interrupt_requested() { return interrupted.load(); }

void install_interrupt_handlers() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

bool past(std::chrono::system_clock::time_point deadline) {
  return deadline != std::chrono::system_clock::time_point{} &&
         std::chrono::system_clock::now() >= deadline;
}

Database open_tuning_database(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  fs::create_directories(parent.empty() ? "." : parent);
  return Database::open(path, OpenMode::create);
}

void add_tune_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<TuneArgs>();
  CLI::App* cmd = app.add_subcommand(
      "tune",
      "Tune every problem of a shape list on this host's GPUs (or the ranks of an MPI job)");
  CLI::Option* shapes =
      cmd->add_option("--shapes", args->shapes, "Shape list (CSV with header m,n,k,... or YAML)");
  CLI::Option* misses =
      cmd->add_option("--from-misses", args->shapes,
                      "A dispatcher miss log (SGEMM_DISPATCH_MISS_LOG): heaviest first");
  shapes->excludes(misses);
  misses->excludes(shapes);
  cmd->add_option("--db", args->db,
                  "Tuning database (default: $SGEMM_TUNER_DB or the per-user one)");
  cmd->add_option("--space", args->space, "Search space file or folder (default: configs/spaces)");
  cmd->add_option("--settings", args->settings,
                  "Measurement settings (default: configs/measure.yaml)");
  cmd->add_option("--strategy", args->strategy,
                  "Search: model (cost model, warm start, local search), exhaustive or random")
      ->check(CLI::IsMember({"model", "exhaustive", "random"}));
  cmd->add_option("--max-candidates", args->max_candidates,
                  fmt::format("At most this many candidates per problem (default {}; not with "
                              "--strategy exhaustive)",
                              kDefaultCandidateBudget))
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--lt-algos", args->lt_algos,
                  "cuBLASLt's top K heuristic algorithms contend for each winner beside cuBLAS "
                  "(default 8; 0: cuBLAS only)")
      ->check(CLI::Range(0, 64));
  cmd->add_option("--lt-splits", args->lt_splits,
                  "Also cuBLASLt's first algorithm at up to N other split-K counts, where its own "
                  "grid leaves the last wave under 85% full (default 0: off)")
      ->check(CLI::Range(0, 16));
  cmd->add_option("--lt-configs", args->lt_configs,
                  "Also up to N other tiles, stages and split-K counts of the heuristic's "
                  "algorithms, unsplit ones first (default 64; 0: the heuristic's list only)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--problem-time-budget", args->problem_time_budget_s,
                  "Seconds of searching per problem; then the best so far are confirmed")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--time-budget", args->time_budget_s,
                  "Seconds for the whole run; problems not started are left for the next run")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--compile-only", args->compile_only,
                "Compile (and cache) every candidate with no GPU (with --max-candidates N: the "
                "model search's first batch); report counts and throughput");
  cmd->add_option("--arch", args->arch,
                  "With --compile-only: target architecture (default: the GPU's)");
  cmd->add_option("--compile-threads", args->compile_threads,
                  "NVRTC worker threads (default: one per core)");
  cmd->add_option("--device", args->device, "CUDA device ordinal");
  cmd->add_option(
      "--devices", args->devices,
      "Tune on several GPUs of this host: all, or ordinals such as 0,1 (one worker each)");
  cmd->add_option("--seed", args->seed, "Seed of the timing data");
  cmd->add_option("--clocks", args->clocks, "Clock policy")
      ->check(CLI::IsMember({"observe", "lock"}));
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
    if (args->strategy == "exhaustive" && args->max_candidates >= 0)
      throw CLI::ValidationError("--max-candidates", "an exhaustive search takes every candidate");
    static const std::regex device_list("all|[0-9]+(,[0-9]+)*");
    if (!args->devices.empty() && !std::regex_match(args->devices, device_list))
      throw CLI::ValidationError("--devices",
                                 "'" + args->devices + "': expected all or ordinals like 0,1");
    if (!args->arch.empty() && !args->compile_only)
      throw CLI::ValidationError("--arch", "only with --compile-only (tuning uses the GPU's)");
    (void)app;
    exit_code = run_tune(*args, fmt::format("sgemm-tune tune --shapes {}", args->shapes));
  });
}

}  // namespace sgt::cli
