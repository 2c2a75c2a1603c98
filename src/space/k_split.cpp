#include "space/k_split.hpp"

#include "sgemm_args.h"

namespace sgt {

KSplit split_k(const ProblemKey& p, int splits_wanted, int bk) {
  KSplit s;
  if (splits_wanted <= 1 || p.k <= 0 || bk <= 0) return s;
  const std::int64_t per_split = (std::int64_t{p.k} + splits_wanted - 1) / splits_wanted;
  const std::int64_t slice = (per_split + bk - 1) / bk * bk;
  const int splits = static_cast<int>((p.k + slice - 1) / slice);
  if (splits > 1) {
    s.k_splits = splits;
    s.k_slice = static_cast<int>(slice);
  }
  return s;
}

std::int64_t tile_count(const ProblemKey& p, int bm, int bn) {
  return (std::int64_t{p.m} + bm - 1) / bm * ((std::int64_t{p.n} + bn - 1) / bn);
}

std::int64_t tile_partial_floats(const ProblemKey& p, const KSplit& split, int bm, int bn) {
  return std::int64_t{split.k_splits} * tile_count(p, bm, bn) * bm * bn;
}

std::size_t split_workspace_floats(std::int64_t partial_floats) {
  return SGEMM_TILE_COUNTERS + static_cast<std::size_t>(partial_floats);
}

bool set_k_split(LaunchGeometry& g, const KSplit& split, std::int64_t partial_floats) {
  g.k_splits = split.k_splits;
  g.k_slice = split.k_slice;
  if (split.k_splits <= 1) return false;
  g.grid.z = static_cast<unsigned>(split.k_splits);
  g.workspace_floats = split_workspace_floats(partial_floats);
  return true;
}

}  // namespace sgt
