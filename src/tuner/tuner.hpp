// The tuning pipeline for one GPU: enumerate -> compile on worker threads -> load -> verify
// against cuBLAS -> screen -> confirm finalists interleaved with cuBLAS -> store everything.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/error.hpp"
#include "config/tuning_settings.hpp"
#include "cuda/device_info.hpp"
#include "db/device_records.hpp"
#include "db/records.hpp"
#include "space/family.hpp"
#include "space/problem.hpp"
#include "tuner/search_strategy.hpp"

namespace sgt {

class TuningStore;

// A candidate left the CUDA context unusable (its outcome is already recorded): the process must
// be restarted to go on.
class ContextLost : public Error {
 public:
  ContextLost(ErrorKind kind, const std::string& message) : Error(kind, message) {}
};

struct TuneOptions {
  std::string space_path = "configs/spaces";
  TuningSettings settings;
  int compile_threads = 0;  // 0: one per core
  Strategy strategy = Strategy::model;
  int max_candidates = 0;       // per problem; 0: all
  int lt_algos = 8;             // cuBLASLt's top K contend for the winner; 0: none
  int lt_split_variants = 0;    // and its first algorithm at up to this many split-K counts
  int lt_config_variants = 64;  // and up to this many other tiles, stages and splits of its ids
  double problem_seconds = 0;   // wall-time budget per problem; 0: none
  // Wall-time budget of the whole run (across worker restarts); the epoch means none.
  std::chrono::system_clock::time_point run_deadline{};
  std::uint64_t seed = 20261201;      // data seed, recorded with the run
  bool retune = false;                // measure again what the database already has...
  std::int64_t retune_after_run = 0;  // ... except what runs after this one recorded (resume)
  std::string command_line;           // provenance
  std::string host;                   // provenance; "" = this host's name
  std::string cache_dir;              // persistent compile cache ("" = memory only)
  // Called with started = true just before a candidate's kernel first runs, and with false once
  // its outcome is committed (crash and hang supervision).
  std::function<void(const CandidateRecord&, bool started)> on_candidate;
};

struct Progress {
  int problem_index = 0, problem_count = 0;
  std::string problem;      // ProblemKey::to_string()
  int done = 0, total = 0;  // candidates of this problem; total is the search's budget
  double best_us = 0;       // best screened candidate so far (0: none yet)
  double cublas_us = 0;     // cuBLAS screened on the same data
  std::string stage;        // "screen", "confirm", "done"
  // Seconds since the problem started, of which the GPU thread waited for compiles and measured.
  double elapsed_s = 0, compile_wait_s = 0, measure_s = 0;
};
using ProgressFn = std::function<void(const Progress&)>;

// Where a problem's wall time went. The flush time is the count of L2 flushes times the GPU time
// of one (timed once per run): it is part of screening's and confirmation's time, not extra.
struct TimeSpent {
  double compile_wait_s = 0;  // the GPU thread waiting for NVRTC
  double verify_s = 0;        // checking candidates against the reference
  double screen_s = 0;        // screening candidates and cuBLAS
  double lt_s = 0;            // cuBLASLt's algorithms: checked and screened
  double confirm_s = 0;       // interleaved rounds of the finalists, cuBLASLt and cuBLAS
  double flush_s = 0;         // of screen_s and confirm_s: GPU time flushing L2
  int screen_samples = 0;     // cold samples of every screening
  int flushes = 0;
};

struct ProblemResult {
  ProblemKey problem;
  int candidates = 0;  // implementable configurations of the space
  int pruned = 0;      // rejected by constraints before compiling
  int ok = 0, failed = 0, resumed = 0;
  int measured = 0;         // candidates the search took (budget-limited), resumed ones included
  std::string budget_note;  // set when a wall-time budget cut the search short
  double seconds = 0;
  TimeSpent spent;
  std::string family = "cublas", config;  // the winner
  double winner_us = 0;
  double best_candidate_us = 0;  // the project's own best kernel, guard aside
  double cublas_us = 0;
  double tie_band = 0;
  std::string reason;
  bool already_tuned = false;
  // Provenance of the confirmation rounds.
  int rounds = 0, discarded_rounds = 0;
  double sm_clock_mhz = 0;
  std::string clock_policy;
};

class Tuner {
 public:
  // Uses the current CUDA device; throws sgt::Error(cuda) when there is none.
  Tuner(TuningStore& store, TuneOptions options);
  ~Tuner();
  Tuner(const Tuner&) = delete;
  Tuner& operator=(const Tuner&) = delete;

  ProblemResult tune(const Problem& problem, int index, int count, const ProgressFn& progress);
  // The problems likely to be tuned after the current one: once a problem's own compiles are
  // under way, their first batches are compiled in the background, so that the CPU works ahead
  // while the GPU measures and the next problem waits less on NVRTC.
  void expect(std::vector<Problem> upcoming);
  // Marks the run finished (status "finished" or "interrupted").
  void finish(const std::string& status);

  const DeviceInfo& device() const;
  std::int64_t run_id() const;

 private:
  struct State;
  class Search;  // one problem's steps
  std::unique_ptr<State> state_;
};

}  // namespace sgt
