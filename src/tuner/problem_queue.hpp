// Problems of a shape list handed out one at a time to the workers of a tuning run (one per GPU),
// through memory shared across fork: whichever worker is free takes the next problem. A worker
// restarted after a crash gets the problem it was on back first, so nothing is skipped or done
// twice.
#pragma once

#include <cstddef>

namespace sgt {

class ProblemQueue {
 public:
  static constexpr int kMaxWorkers = 64;

  // Created before the workers are forked; the mapping is shared with every child.
  ProblemQueue(int problems, int workers);
  ~ProblemQueue();
  ProblemQueue(const ProblemQueue&) = delete;
  ProblemQueue& operator=(const ProblemQueue&) = delete;

  // The next problem for this worker, or -1 when none is left.
  int take(int worker);
  // The worker's current problem is finished (stored).
  void done(int worker);

  int problems() const { return problems_; }
  int workers() const { return workers_; }

 private:
  struct Shared;
  Shared* shared_ = nullptr;
  int problems_, workers_;
};

}  // namespace sgt
