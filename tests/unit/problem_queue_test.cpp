// The problem queue shared by the workers of a run: across forked processes every problem is
// taken exactly once, and a restarted worker gets its unfinished problem back.
#include "tuner/problem_queue.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "common/error.hpp"

namespace sgt {
namespace {

TEST(ProblemQueue, ForkedWorkersTakeEveryProblemExactlyOnce) {
  constexpr int kProblems = 500, kWorkers = 4;
  ProblemQueue queue(kProblems, kWorkers);
  int fds[kWorkers][2];
  std::vector<pid_t> children;
  for (int w = 0; w < kWorkers; ++w) {
    ASSERT_EQ(pipe(fds[w]), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[w][0]);
      for (int i = queue.take(w); i >= 0; i = queue.take(w)) {
        if (write(fds[w][1], &i, sizeof i) != sizeof i) _exit(2);
        queue.done(w);
      }
      _exit(0);
    }
    close(fds[w][1]);
    children.push_back(pid);
  }
  std::vector<int> seen;
  for (int w = 0; w < kWorkers; ++w) {
    int i;
    while (read(fds[w][0], &i, sizeof i) == sizeof i) seen.push_back(i);
    close(fds[w][0]);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(kProblems));
  for (int i = 0; i < kProblems; ++i) EXPECT_EQ(seen[i], i);
}

TEST(ProblemQueue, ARestartedWorkerResumesItsProblem) {
  ProblemQueue queue(3, 2);
  EXPECT_EQ(queue.take(0), 0);
  EXPECT_EQ(queue.take(1), 1);
  EXPECT_EQ(queue.take(0), 0);  // worker 0 restarted before finishing problem 0
  queue.done(0);
  EXPECT_EQ(queue.take(0), 2);
  queue.done(0);
  EXPECT_EQ(queue.take(0), -1);
  queue.done(1);
  EXPECT_EQ(queue.take(1), -1);
}

TEST(ProblemQueue, WorkerCountIsChecked) {
  EXPECT_THROW(ProblemQueue(1, 0), Error);
  EXPECT_THROW(ProblemQueue(1, ProblemQueue::kMaxWorkers + 1), Error);
}

}  // namespace
}  // namespace sgt
