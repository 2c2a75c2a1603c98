// Ratios are candidate / cuBLAS, so below 1 is faster than cuBLAS.
#include "measure/winner_selection.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace sgt {

Verdict choose_winner(const std::vector<Finalist>& finalists) {
  Verdict v;
  if (finalists.empty()) {
    v.reason = "no correct candidate: cuBLAS";
    return v;
  }
  int best = 0;
  for (int i = 1; i < static_cast<int>(finalists.size()); ++i)
    if (finalists[i].ratio_to_cublas < finalists[best].ratio_to_cublas) best = i;

  // Among those indistinguishable from the fastest, the simplest wins.
  const Finalist& fastest = finalists[best];
  int chosen = best;
  for (int i = 0; i < static_cast<int>(finalists.size()); ++i) {
    const Finalist& f = finalists[i];
    const double band = std::max(f.ratio_spread, fastest.ratio_spread);
    const bool tied = f.ratio_to_cublas <= fastest.ratio_to_cublas * (1 + band);
    if (tied && f.complexity < finalists[chosen].complexity) chosen = i;
  }
  const Finalist& c = finalists[chosen];
  v.tie_band = c.ratio_spread;
  if (c.ratio_to_cublas < 1.0 - c.ratio_spread) {
    v.winner = chosen;
    v.reason = fmt::format("{:.3f}x cuBLAS time (spread {:.2f}%)", c.ratio_to_cublas,
                           100 * c.ratio_spread);
  } else {
    // Slower than cuBLAS, or faster by no more than the measurement spread.
    v.reason = fmt::format(
        "best candidate at {:.3f}x cuBLAS time is not faster by more than the {:.2f}% spread: "
        "cuBLAS",
        c.ratio_to_cublas, 100 * c.ratio_spread);
  }
  return v;
}

}  // namespace sgt
