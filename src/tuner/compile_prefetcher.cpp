#include "tuner/compile_prefetcher.hpp"

#include <algorithm>
#include <exception>

namespace sgt {

CompilePrefetcher::CompilePrefetcher(CompileCache& cache, std::string arch, int threads)
    : cache_(cache), arch_(std::move(arch)) {
  for (int i = 0; i < std::max(1, threads); ++i) workers_.emplace_back([this] { work(); });
}

CompilePrefetcher::~CompilePrefetcher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void CompilePrefetcher::want(std::vector<CompileRequest> requests) {
  {
    std::lock_guard lock(mutex_);
    queue_.clear();
    for (CompileRequest& r : requests)
      if (!cache_.has(r.template_file, r.defines, arch_)) queue_.push_back(std::move(r));
  }
  wake_.notify_all();
}

int CompilePrefetcher::started() const {
  std::lock_guard lock(mutex_);
  return started_;
}

void CompilePrefetcher::work() {
  for (;;) {
    CompileRequest r;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      r = std::move(queue_.front());
      queue_.pop_front();
      if (cache_.has(r.template_file, r.defines, arch_)) continue;
      ++started_;
    }
    try {
      cache_.compile(r.template_file, r.defines, arch_);  // the cache keeps the result
    } catch (const std::exception&) {
      // The search's own compile of this configuration reports the error, if it is ever asked.
    }
  }
}

}  // namespace sgt
