// Crash isolation for `sgemm-tune tune`: the tuning runs in a worker process; a candidate that
// kills the worker (a sticky CUDA error, a crash) is recorded as launch_failed, one that runs past
// the watchdog limit as timed_out, and the worker is started again. It resumes from the database.
#pragma once

#include <functional>
#include <string>

#include "db/records.hpp"

namespace sgt::cli {

// Exit code of a worker whose CUDA context is lost: start it again.
constexpr int kExitRestartWorker = 75;

// What a worker reports on its control pipe, one line per message.
class WorkerChannel {
 public:
  explicit WorkerChannel(int fd) : fd_(fd) {}
  void run_started(std::int64_t run_id, const GpuRecord& gpu, const SoftwareRecord& software) const;
  void candidate(const CandidateRecord& rec, bool started) const;
  bool active() const { return fd_ >= 0; }

 private:
  void send(const std::string& line) const;
  int fd_;
};

struct SupervisorSettings {
  std::string db_path;
  double candidate_timeout_s = 60;  // a candidate's kernels may take this long, wall time
  int max_restarts = 100;
};

// Runs worker(fd) in a child process (fd: its control pipe) until it finishes, restarting it
// after each candidate that crashed or hung. Returns the worker's final exit code.
int supervise(const std::function<int(const WorkerChannel&)>& worker,
              const SupervisorSettings& settings);

}  // namespace sgt::cli
