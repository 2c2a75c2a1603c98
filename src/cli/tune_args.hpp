// What `sgemm-tune tune` was asked to do, shared by its parts: the run over the workers
// (tune_command.cpp), one worker on one GPU (tune_worker.cpp) and compile-only runs
// (compile_only_command.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/shape_list.hpp"
#include "db/database.hpp"

namespace sgt {
class ProblemQueue;
}

namespace sgt::cli {

class WorkerChannel;

// Candidates measured per problem by the model and random strategies unless --max-candidates.
constexpr int kDefaultCandidateBudget = 128;

struct TuneArgs {
  std::string shapes, db, space, settings, clocks = "observe", lock_clocks;
  std::string strategy = "model", arch, devices;
  int max_candidates = -1, compile_threads = 0, device = 0;
  int lt_algos = 8;     // cuBLASLt's top K contend for each winner (0: cuBLAS only)
  int lt_splits = 0;    // and its first algorithm at up to this many other split-K counts
  int lt_configs = 64;  // and up to this many other tiles, stages and splits of the listed ids
  std::uint64_t seed = 20261201;
  bool retune = false, no_cache = false, no_isolation = false, json = false, compile_only = false;
  // With --retune: the database's last run before this command; later runs are this command's
  // (a worker restarted after a crash resumes from them instead of measuring everything again).
  std::int64_t retune_after_run = 0;
  double candidate_timeout_s = 60;
  double problem_time_budget_s = 0, time_budget_s = 0;
  std::chrono::system_clock::time_point deadline{};  // from --time-budget, set once per command
  std::string host;  // provenance of the runs ("" = this host; under MPI "host/rank r of n")
};

// One worker of a run: a slot of the problem queue, on one GPU.
struct WorkerSlot {
  int slot = 0;
  int device = 0;
  std::string results_path;  // one JSON line per finished problem is appended here
};

// Creates the database (and its folder) when missing.
Database open_tuning_database(const std::string& path);

// Set by SIGINT/SIGTERM once the handlers are installed.
bool interrupt_requested();
void install_interrupt_handlers();

bool past(std::chrono::system_clock::time_point deadline);

int tune_worker(const TuneArgs& a, const std::vector<Shape>& shapes, ProblemQueue& queue,
                const WorkerSlot& slot, const std::string& cmd, const WorkerChannel& channel);
// Compiles every candidate of shapes; prints a table (or JSON), or with report set fills it
// instead ({"arch", "threads", "problems": [...]}) for the caller to print.
int compile_only(const TuneArgs& a, const std::vector<Shape>& shapes, const std::string& cmd,
                 nlohmann::json* report = nullptr);
// Prints compile-only problem rows with their total.
void print_compile_report(const nlohmann::json& problems, bool as_json);

}  // namespace sgt::cli
