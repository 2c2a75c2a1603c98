#include "cli/mpi_world.hpp"

#include <cstdlib>

#include "common/error.hpp"
#include "common/provenance.hpp"

#ifdef SGEMM_HAVE_MPI
#include <mpi.h>
#endif

namespace sgt::cli {
bool MpiWorld::launched_by_mpi() {
  // Open MPI, PMIx-based launchers (srun, prterun) and MPICH's Hydra.
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_SIZE");
}

bool MpiWorld::built_with_mpi() {
#ifdef SGEMM_HAVE_MPI
  return true;
#else
  return false;
#endif
}

MpiWorld::MpiWorld() : host_(host_name()) {
  if (!launched_by_mpi()) return;
#ifdef SGEMM_HAVE_MPI
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  initialised_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &local_rank_);
  MPI_Comm_free(&local);
#else
  throw Error(ErrorKind::invalid_value,
              "started by an MPI launcher, but this sgemm-tune was built without MPI (install "
              "libopenmpi-dev and configure again)");
#endif
}

MpiWorld::~MpiWorld() {
#ifdef SGEMM_HAVE_MPI
  if (initialised_) MPI_Finalize();
#endif
}

std::vector<std::string> MpiWorld::gather(const std::string& mine) const {
  if (size_ == 1) return {mine};
  std::vector<std::string> all;
#ifdef SGEMM_HAVE_MPI
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(rank_ == 0 ? size_ : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size());
  long long total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = static_cast<int>(total);
    total += lengths[r];
  }
  if (total > 0x7fffffff) throw Error(ErrorKind::internal, "the ranks' results exceed 2 GiB");
  std::string buffer(static_cast<std::size_t>(total), '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, buffer.data(), lengths.data(), offsets.data(),
              MPI_CHAR, 0, MPI_COMM_WORLD);
  for (std::size_t r = 0; r < lengths.size(); ++r)
    all.push_back(buffer.substr(offsets[r], lengths[r]));
#endif
  return all;
}

int MpiWorld::max_over_ranks(int value) const {
  int out = value;
#ifdef SGEMM_HAVE_MPI
  if (initialised_) MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#endif
  return out;
}

}  // namespace sgt::cli
