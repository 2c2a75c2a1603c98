// The parent never initialises CUDA (a forked child could not use it); it only watches the pipe,
// keeps the watchdog and writes the outcome of a candidate its worker could not report.
#include "cli/tune_supervisor.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/cli_common.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "space/problem_json.hpp"

namespace sgt::cli {
namespace {

using json = nlohmann::json;

json problem_fields(const ProblemKey& p) {
  json j = json::object();
  put_problem_fields(j, p);
  return j;
}

volatile sig_atomic_t child_pid = 0;

extern "C" void forward_signal(int sig) {
  if (child_pid > 0) kill(child_pid, sig);
}

struct RunContext {
  std::int64_t run_id = 0;
  GpuRecord gpu;
  SoftwareRecord software;
};

void record_failure(const std::string& db_path, const RunContext& run, CandidateRecord rec) {
  try {
    Database db = Database::open(db_path, OpenMode::read_write);
    TuningStore store(db);
    store.record_candidate(run.run_id, run.gpu, run.software, rec);
  } catch (const Error& e) {
    spdlog::error("could not record the failed candidate {} {}: {}", rec.family, rec.config,
                  e.what());
  }
}

}  // namespace

void WorkerChannel::send(const std::string& line) const {
  if (fd_ < 0) return;
  const std::string text = line + "\n";
  // One write per line: atomic on a pipe below PIPE_BUF, so lines never interleave.
  [[maybe_unused]] const ssize_t n = ::write(fd_, text.data(), text.size());
}

void WorkerChannel::run_started(std::int64_t run_id, const GpuRecord& g,
                                const SoftwareRecord& s) const {
  send("R " + json{{"run", run_id},
                   {"gpu", {g.name, g.uuid, g.arch, g.sm_count, g.l2_bytes, g.default_clock_mhz}},
                   {"software", {s.driver, s.runtime, s.nvrtc, s.cublas}}}
                  .dump());
}

void WorkerChannel::candidate(const CandidateRecord& r, bool started) const {
  if (!started) {
    send("D");
    return;
  }
  send("C " + json{{"problem", problem_fields(r.problem)},
                   {"family", r.family},
                   {"config", r.config},
                   {"hash", r.template_hash},
                   {"registers", r.registers},
                   {"smem", r.smem_bytes}}
                  .dump());
}

int supervise(const std::function<int(const WorkerChannel&)>& worker,
              const SupervisorSettings& settings) {
  signal(SIGINT, SIG_IGN);  // Ctrl-C reaches the worker (same process group), which stops cleanly
  signal(SIGTERM, forward_signal);
  for (int restarts = 0;; ++restarts) {
    int fds[2];
    if (pipe(fds) != 0)
      throw Error(ErrorKind::internal, fmt::format("pipe: {}", std::strerror(errno)));
    const pid_t pid = fork();
    if (pid < 0) throw Error(ErrorKind::internal, fmt::format("fork: {}", std::strerror(errno)));
    if (pid == 0) {
      close(fds[0]);
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      int code = kExitError;
      try {
        code = worker(WorkerChannel(fds[1]));
      } catch (...) {
      }
      std::fflush(nullptr);
      _exit(code);
    }
    child_pid = pid;
    close(fds[1]);

    RunContext run;
    std::optional<CandidateRecord> in_flight;
    auto deadline = std::chrono::steady_clock::time_point::max();
    bool killed_by_watchdog = false;
    std::string pending;
    char buf[8192];
    for (;;) {
      pollfd pfd{fds[0], POLLIN, 0};
      const int ready = poll(&pfd, 1, 200);
      if (ready > 0) {
        const ssize_t n = read(fds[0], buf, sizeof buf);
        if (n <= 0) break;  // the worker closed its end: it has exited
        pending.append(buf, static_cast<std::size_t>(n));
        std::size_t eol;
        while ((eol = pending.find('\n')) != std::string::npos) {
          const std::string line = pending.substr(0, eol);
          pending.erase(0, eol + 1);
          try {
            if (line == "D") {
              in_flight.reset();
              deadline = std::chrono::steady_clock::time_point::max();
            } else if (line.starts_with("R ")) {
              const json j = json::parse(line.substr(2));
              run.run_id = j.at("run");
              const json& g = j.at("gpu");
              run.gpu = {g[0], g[1], g[2], g[3], g[4], g[5]};
              const json& s = j.at("software");
              run.software = {s[0], s[1], s[2], s[3]};
            } else if (line.starts_with("C ")) {
              const json j = json::parse(line.substr(2));
              CandidateRecord rec;
              rec.run_id = run.run_id;
              rec.problem = problem_from_fields(j.at("problem"));
              rec.family = j.at("family");
              rec.config = j.at("config");
              rec.template_hash = j.at("hash");
              rec.registers = j.at("registers");
              rec.smem_bytes = j.at("smem");
              in_flight = rec;
              deadline =
                  std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<long>(settings.candidate_timeout_s * 1000));
            }
          } catch (const std::exception& e) {
            spdlog::warn("worker sent an unreadable line: {}", e.what());
          }
        }
      }
      if (in_flight && std::chrono::steady_clock::now() > deadline) {
        spdlog::warn("candidate {} {} ran past {:.0f} s: stopping the worker", in_flight->family,
                     in_flight->config, settings.candidate_timeout_s);
        killed_by_watchdog = true;
        kill(pid, SIGKILL);
        deadline = std::chrono::steady_clock::time_point::max();
      }
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    child_pid = 0;

    const bool clean_exit = WIFEXITED(status);
    const int code = clean_exit ? WEXITSTATUS(status) : -1;
    if (in_flight) {
      CandidateRecord rec = *in_flight;
      rec.outcome = killed_by_watchdog ? Outcome::timed_out : Outcome::launch_failed;
      rec.message = killed_by_watchdog
                        ? fmt::format("no result within {:.0f} s; the worker process was killed",
                                      settings.candidate_timeout_s)
                    : clean_exit
                        ? fmt::format("the worker process exited with status {}", code)
                        : fmt::format("the worker process died: {}", strsignal(WTERMSIG(status)));
      record_failure(settings.db_path, run, rec);
      spdlog::warn("{} {}: {} (recorded as {})", rec.family, rec.config, rec.message,
                   outcome_name(rec.outcome));
    } else if (clean_exit && code != kExitRestartWorker) {
      return code;  // finished, or failed in a way a restart would not mend
    } else if (!clean_exit) {
      spdlog::error("the worker process died outside any candidate: {}",
                    strsignal(WTERMSIG(status)));
      return kExitError;
    }
    if (restarts + 1 > settings.max_restarts) {
      spdlog::error("giving up after {} worker restarts", restarts);
      return kExitError;
    }
    spdlog::info("starting the worker again; it resumes from the database");
  }
}

}  // namespace sgt::cli
