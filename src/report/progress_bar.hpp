// The one-line progress display of `sgemm-tune tune` on a terminal: a bar for the problem's
// search, candidates per second, the problem's and the run's ETA, how much of the GPU thread's
// time went to waiting for compiles, and the best candidate so far against cuBLAS.
#pragma once

#include <string>

#include "tuner/tuner.hpp"

namespace sgt {

struct RunClock {
  double elapsed_s = 0;            // since the run started
  double finished_problems_s = 0;  // total of the problems measured so far (not the already tuned)
  int finished_problems = 0;
};

// What is left of the problem's search, from its own rate.
double problem_remaining_s(const Progress& p);
// What is left of the run: this problem, then later ones at the mean time per problem so far.
double run_remaining_s(const Progress& p, const RunClock& run);
std::string format_duration(double seconds);  // "45s", "3m12s", "1h04m"
std::string format_progress(const Progress& p, const RunClock& run, int bar_width = 20);

}  // namespace sgt
