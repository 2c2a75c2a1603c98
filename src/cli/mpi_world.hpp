// The MPI job this process is part of when mpirun (or another MPI launcher) started it and the
// build has MPI; otherwise a world of one process. `sgemm-tune tune` shares a shape list among
// the ranks and gathers their results on rank 0.
#pragma once

#include <string>
#include <vector>

namespace sgt::cli {

class MpiWorld {
 public:
  // Whether an MPI launcher started this process (its environment says so).
  static bool launched_by_mpi();
  static bool built_with_mpi();

  // Initialises MPI when launched by it; throws sgt::Error(invalid_value) when launched by MPI
  // but built without it.
  MpiWorld();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // among the ranks of this host
  const std::string& host() const { return host_; }

  // On rank 0: every rank's text in rank order; elsewhere empty.
  std::vector<std::string> gather(const std::string& mine) const;
  int max_over_ranks(int value) const;

 private:
  bool initialised_ = false;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  std::string host_;
};

}  // namespace sgt::cli
