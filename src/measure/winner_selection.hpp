// Choosing a problem's winner from the interleaved confirmation round: a candidate must beat
// cuBLAS (and the runner-up) by more than the spread of the paired ratios, else the tie goes to
// the simpler candidate, or to cuBLAS.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace sgt {

struct Finalist {
  double median_us = 0;
  double ratio_to_cublas = 0;  // median over rounds of (candidate time / cuBLAS time)
  double ratio_spread = 0;     // relative spread of those paired ratios
  int complexity = 0;
};

// The complexity of a contender that is not a kernel of ours (one of cuBLASLt's algorithms): it
// loses every tie to an own finalist, so it wins only outright.
inline constexpr int kLibraryComplexity = std::numeric_limits<int>::max();

struct Verdict {
  int winner = -1;      // index into finalists, or -1 for cuBLAS
  double tie_band = 0;  // the spread the decision used
  std::string reason;
};

Verdict choose_winner(const std::vector<Finalist>& finalists);

}  // namespace sgt
