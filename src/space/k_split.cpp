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

}  // namespace sgt
