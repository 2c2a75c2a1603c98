// How the split-K families (F1, F2) cut K into slices and size their partial tiles: at most SPLITK
// slices, each a multiple of the kernel's BK so that no K tile straddles two slices, the last one
// possibly shorter.
#pragma once

#include <cstdint>

#include "space/family.hpp"
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

// The SPLITK define of a split-K template: the kernels take the split count at launch
// (SgemmArgs::k_splits) and test the define only for > 1, so every split count shares one compile.
constexpr int split_k_define(int splitk) { return splitk > 1 ? 2 : 1; }

// Output tiles of bm x bn covering the problem's m x n.
std::int64_t tile_count(const ProblemKey& p, int bm, int bn);

// Partial sums of a split that the kernel sums itself (kernel_templates/split_k_serial.cuh): one
// bm x bn tile per split and output tile.
std::int64_t tile_partial_floats(const ProblemKey& p, const KSplit& split, int bm, int bn);

// The workspace of a split launch: the tile counters every split-K workspace starts with
// (sgemm_args.h), then `partial_floats` floats of partial sums.
std::size_t split_workspace_floats(std::int64_t partial_floats);

// Sets a launch's slices of K and, when K is split, one grid layer a split and the workspace.
// False when K is not split.
bool set_k_split(LaunchGeometry& g, const KSplit& split, std::int64_t partial_floats);

}  // namespace sgt
