// The bookkeeping of a trial of tuning on use, without CUDA: which sample a call takes next
// (every contender's untimed warm-up first, then the timed rounds, round robin), the samples that
// came in, the contenders that failed, and the verdict once every sample is in.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace sgt {

// What a trial decided, for the store and for sgemmDescribe.
struct OnUseDecision {
  int winner = 0;  // index of the contender; 0: cuBLAS
  double time_us = 0, cublas_us = 0, tie_band = 0;
  std::string reason;
};

class OnUseSchedule {
 public:
  struct Sample {
    int contender = 0;
    int round = 0;  // 0: the warm-up, untimed
  };

  // complexities[c] of each contender (ties go to the lower); contender 0 is cuBLAS.
  OnUseSchedule(std::vector<int> complexities, int timed_rounds, double min_spread);

  // The next sample to take, or none: every sample is issued (those of failed contenders are
  // dropped).
  std::optional<Sample> next();
  void put_back(const Sample& s);  // issued but not taken (no event slot free): taken later
  void taken(const Sample& s, double time_us);
  void failed(int contender);  // its samples are dropped, and it cannot win

  // Whether every timed sample of every contender that did not fail is in.
  bool all_in() const;
  int samples_in() const { return taken_; }
  int samples() const;  // timed samples in all
  int timed_rounds() const { return rounds_; }
  // The verdict (call once all_in()): the tuner's gate over the paired ratios to cuBLAS, the
  // spread taken as at least min_spread. cuBLAS when it failed itself.
  OnUseDecision decide() const;

 private:
  std::vector<int> complexities_;
  int rounds_;
  double min_spread_;
  std::deque<Sample> to_issue_;
  std::vector<std::vector<double>> times_us_;  // [contender][round - 1]; negative: not yet in
  std::vector<bool> failed_;
  int taken_ = 0;
};

}  // namespace sgt
