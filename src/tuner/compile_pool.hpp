// Compiles a list of candidates on worker threads, running ahead of the consumer (the GPU), which
// takes results in order and waits only for a compile it does not yet have.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "jit/nvrtc_compiler.hpp"

namespace sgt {

class CompilePool {
 public:
  using Job = std::function<CompileResult()>;

  CompilePool(std::vector<Job> jobs, int threads);
  ~CompilePool();  // stops workers after their current job
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // Blocks until job i is compiled; each result can be taken once.
  CompileResult take(std::size_t i);
  std::size_t size() const { return jobs_.size(); }
  // Whether every job has been claimed by a worker (the pool's threads are winding down).
  bool all_started();

 private:
  void work();

  std::vector<Job> jobs_;
  std::vector<std::optional<CompileResult>> results_;
  std::size_t next_ = 0;
  bool stopping_ = false;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<std::thread> workers_;
};

}  // namespace sgt
