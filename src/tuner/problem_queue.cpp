#include "tuner/problem_queue.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>

#include "common/error.hpp"

namespace sgt {

// Lock-free atomics are address-free, so they work across processes sharing the mapping.
struct ProblemQueue::Shared {
  std::atomic<int> next{0};
  std::atomic<int> current[kMaxWorkers];
};
static_assert(std::atomic<int>::is_always_lock_free);

ProblemQueue::ProblemQueue(int problems, int workers) : problems_(problems), workers_(workers) {
  if (workers < 1 || workers > kMaxWorkers)
    throw Error(ErrorKind::invalid_value, "between 1 and 64 workers per host");
  void* p =
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw Error(ErrorKind::internal, std::string("mmap: ") + std::strerror(errno));
  shared_ = new (p) Shared;
  for (std::atomic<int>& c : shared_->current) c.store(-1);
}

ProblemQueue::~ProblemQueue() {
  shared_->~Shared();
  munmap(shared_, sizeof(Shared));
}

int ProblemQueue::take(int worker) {
  std::atomic<int>& current = shared_->current[worker];
  if (const int mine = current.load(); mine >= 0) return mine;
  const int next = shared_->next.fetch_add(1);
  if (next >= problems_) return -1;
  current.store(next);
  return next;
}

void ProblemQueue::done(int worker) { shared_->current[worker].store(-1); }

}  // namespace sgt
