// How the split-K families (F1, F2) cut K into slices: at most SPLITK slices, each a multiple of
// the kernel's BK so that no K tile straddles two slices, the last one possibly shorter.
#pragma once

#include <cstdint>

#include "space/knobs.hpp"
#include "space/problem.hpp"

namespace sgt {

// A split workspace beyond this many floats of partial sums is refused (256 MiB): such a split
// cannot pay for its traffic.
constexpr std::int64_t kMaxSplitWorkspaceFloats = std::int64_t{1} << 26;

struct KSplit {
  int k_splits = 1;
  int k_slice = 0;  // K elements per slice; 0 when K is not split
};

// The slices of K for at most `splits_wanted` splits of BK-multiples (one slice: no split).
KSplit split_k(const ProblemKey& p, int splits_wanted, int bk);

}  // namespace sgt
