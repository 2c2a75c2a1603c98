#include "space/k_split.hpp"

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

}  // namespace sgt
