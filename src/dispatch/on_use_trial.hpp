// Tuning on use (SGEMM_DISPATCH_TUNE=1, off by default): the first calls of a problem nobody tuned
// each run one contender on the caller's stream between two events, in rounds: cuBLAS, cuBLASLt's
// top algorithms and the kernels of the nearest tuned problems whose cubins are at hand. Once every
// round is timed, the paired ratios against cuBLAS choose the route with the tuner's gate
// (choose_winner), and the dispatcher stores the winner in a per-user database that later
// processes read (docs/dispatcher.md).
//
// Every call runs exactly one contender on the caller's operands, so each result is the call's
// own (beta != 0 included); nothing is timed inside a stream capture, and nothing synchronizes:
// finished events are polled on later calls.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/on_use_schedule.hpp"

namespace sgt {

struct Route;
struct TunedEntry;

struct OnUseSettings {
  bool enabled = false;
  std::string database;  // the per-user database the winners go to and are read from
  int timed_rounds = 3;  // after one untimed warm-up round (module loads, first launches)
  int lt_algorithms = 2;
  int kernels = 2;
  double min_spread = 0.03;  // the gate's spread is at least this (three samples each)

  // A trial is decided on the call after the one that issued its last sample. So that a
  // problem's first 20 calls include that one, a trial issues at most 19 samples: with 3 timed
  // rounds and a warm-up, 4 contenders (decided by the 17th call).
  static constexpr int kDecidedWithinCalls = 20;
  std::size_t max_contenders() const {
    return static_cast<std::size_t>((kDecidedWithinCalls - 1) / (timed_rounds + 1));
  }
};

// SGEMM_DISPATCH_TUNE (1: on) and SGEMM_DISPATCH_TUNE_DB (default: default_on_use_database()).
OnUseSettings on_use_settings_from_env();
// $XDG_CACHE_HOME/sgemm-tune/tuned-on-use.db, else ~/.cache/sgemm-tune/tuned-on-use.db; empty when
// neither variable is set.
std::string default_on_use_database();

// One contender of a trial. Contender 0 is always cuBLAS.
struct Contender {
  std::string family;  // kCublasFamily, kCublasLtFamily or an own family's name
  std::string config;
  const Route* route = nullptr;       // what a call runs; null: cuBLAS through the stream's lane
  const TunedEntry* entry = nullptr;  // an own kernel: the tuned neighbour whose kernel it is
  int complexity = 0;                 // ties go to the lower (cuBLASLt: kLibraryComplexity)
};

// The contenders a trial times, at most `max` (at least cuBLAS): cuBLAS, cuBLASLt's first
// algorithm, the own kernels (what a tuned database would add), then cuBLASLt's other algorithms.
std::vector<Contender> trial_contenders(Contender cublas, std::vector<Contender> lt,
                                        std::vector<Contender> own, std::size_t max);

class OnUseTrial {
 public:
  // contenders[0] is cuBLAS; decided_cublas is the route that serves it once decided.
  OnUseTrial(std::vector<Contender> contenders, const Route* decided_cublas,
             const OnUseSettings& settings);
  ~OnUseTrial();
  OnUseTrial(const OnUseTrial&) = delete;
  OnUseTrial& operator=(const OnUseTrial&) = delete;

  // The route every call takes once decided (null before): lock-free.
  const Route* decided() const noexcept { return decided_.load(std::memory_order_acquire); }

  // One call's turn: which contender runs, and the events to record around it (null when the
  // call is not timed: a warm-up, or every sample is taken and some are still on the GPU).
  struct Turn {
    int contender = 0;
    int slot = -1;  // the sample's slot, handed back to finish()
    cudaEvent_t start = nullptr, end = nullptr;
    std::optional<OnUseDecision> decision;  // set for the one call that decided
  };
  // Polls the finished samples, decides when every one is in, and hands out the next turn.
  Turn begin();
  // After the call's work was enqueued (ok) or failed (the sample is taken again; a contender
  // that failed is dropped).
  void finish(const Turn& turn, bool ok);

  const std::vector<Contender>& contenders() const noexcept { return contenders_; }
  // Progress or outcome, for sgemmDescribe; the note (where the winner was stored) follows it.
  std::string describe() const;
  void set_note(std::string note);
  std::optional<OnUseDecision> decision() const;

 private:
  struct Slot {  // the events of one timed sample
    OnUseSchedule::Sample sample;
    cudaEvent_t start = nullptr, end = nullptr;
    enum class State { free, issued, recorded } state = State::free;
  };

  // Under mutex_:
  void poll();             // takes the samples whose events finished
  bool in_flight() const;  // a slot is issued or recorded
  void decide();           // once every sample is in
  int free_slot() const;   // -1 when none

  std::vector<Contender> contenders_;
  const Route* decided_cublas_;
  std::atomic<const Route*> decided_{nullptr};

  mutable std::mutex mutex_;
  OnUseSchedule schedule_;
  std::vector<Slot> slots_;
  std::optional<OnUseDecision> decision_;  // once decided
  std::string note_;
};

}  // namespace sgt
