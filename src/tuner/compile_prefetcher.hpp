// Compiles, in the background, the candidates the search is likely to ask for next, so that the
// GPU does not wait on NVRTC when the next batch is proposed. Results land in the CompileCache;
// a guess that turns out wrong costs CPU time only.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "jit/compile_cache.hpp"

namespace sgt {

struct CompileRequest {
  std::string template_file;
  std::vector<std::string> defines;
};

class CompilePrefetcher {
 public:
  CompilePrefetcher(CompileCache& cache, std::string arch, int threads);
  ~CompilePrefetcher();  // drops the queue; compiles in flight finish first
  CompilePrefetcher(const CompilePrefetcher&) = delete;
  CompilePrefetcher& operator=(const CompilePrefetcher&) = delete;

  // Replaces what is queued with `requests`, in order (the newest guess is the best one);
  // compiles already running go on, and configurations the cache has are skipped.
  void want(std::vector<CompileRequest> requests);
  int started() const;  // compiles begun so far

 private:
  void work();

  CompileCache& cache_;
  std::string arch_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<CompileRequest> queue_;
  bool stopping_ = false;
  int started_ = 0;
  std::vector<std::thread> workers_;
};

}  // namespace sgt
