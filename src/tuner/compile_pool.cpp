// Workers claim jobs in order, so the first results the GPU needs are compiled first.
#include "tuner/compile_pool.hpp"

#include <algorithm>
#include <exception>

namespace sgt {

CompilePool::CompilePool(std::vector<Job> jobs, int threads)
    : jobs_(std::move(jobs)), results_(jobs_.size()) {
  const int n = std::max(1, std::min<int>(threads, static_cast<int>(jobs_.size())));
  for (int i = 0; i < n; ++i) workers_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  for (std::thread& t : workers_) t.join();
}

void CompilePool::work() {
  for (;;) {
    std::size_t i;
    {
      std::lock_guard lock(mutex_);
      if (stopping_ || next_ >= jobs_.size()) return;
      i = next_++;
    }
    CompileResult result;
    try {
      result = jobs_[i]();
    } catch (const std::exception& e) {
      result.ok = false;
      result.log = e.what();
    }
    {
      std::lock_guard lock(mutex_);
      results_[i] = std::move(result);
    }
    ready_.notify_all();
  }
}

bool CompilePool::all_started() {
  std::lock_guard lock(mutex_);
  return next_ >= jobs_.size();
}

CompileResult CompilePool::take(std::size_t i) {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [&] { return results_[i].has_value(); });
  CompileResult r = std::move(*results_[i]);
  results_[i].reset();
  return r;
}

}  // namespace sgt
