// The nearest-neighbour step of the lookup chain as pure functions: distances between problems,
// which tuned neighbours may serve a problem, and which one is chosen (unit-tested without a GPU).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "space/family.hpp"
#include "space/knobs.hpp"
#include "space/problem.hpp"

namespace sgt {

struct NearestRules {
  bool enabled = true;
  double max_ratio = 2.0;     // each of m, n, k within this factor of the neighbour's
  double min_speedup = 1.05;  // the neighbour's measured cublas_us / time_us, at least
  // Whether a kernel tuned at a narrower alignment class (ALIGN 1 or 2) may serve a wider one.
  // It runs correctly, but cuBLAS's time at the narrower class says nothing about cuBLAS at the
  // wider class, so by default only the same class is used.
  bool cross_alignment = false;
};

// Rules from the defaults overridden by the environment: SGEMM_DISPATCH_NEAREST (0: off),
// SGEMM_DISPATCH_NEAREST_MAX_RATIO, SGEMM_DISPATCH_NEAREST_MIN_SPEEDUP,
// SGEMM_DISPATCH_NEAREST_CROSS_ALIGN (1: on). Malformed values keep the default.
NearestRules nearest_rules_from_env();

// Euclidean distance of (log2 m, log2 n, log2 k) between two problems (sizes >= 1).
double log_distance(const ProblemKey& a, const ProblemKey& b);
// True when each of m, n, k of a is within a factor max_ratio of b's.
bool within_ratio(const ProblemKey& a, const ProblemKey& b, double max_ratio);
// A kernel compiled for ALIGN = tuned_align runs correctly on a problem whose alignment class
// (the widest vector every operand allows) is at least that wide.
bool alignment_serves(int tuned_align, int problem_align);
// The widest vector width (4, 2 or 1 floats) a leading dimension allows.
int leading_dimension_width(int ld);
// cublas_us / time_us, or 0 when either time is missing.
double measured_speedup(double time_us, double cublas_us);

// One tuned problem of the pool the nearest step searches (one GPU model).
struct Neighbour {
  ProblemKey problem;
  bool kernel = false;  // false: cuBLAS won there
  double time_us = 0, cublas_us = 0;
};

struct NearestChoice {
  int index = -1;       // into the pool; -1: none, cuBLAS serves the problem
  double distance = 0;  // log_distance to the chosen (or vetoing) neighbour
  std::string why;      // why none, or which neighbour and at what distance
};

// Whether the neighbour's kernel can run this problem: empty when it can, else why not (the
// family's cannot_implement, a different kernel variant, workspace).
using NeighbourCheck = std::function<std::string(std::size_t index)>;

// The part of that check that needs no GPU: why the kernel of `family` with `knobs`, compiled for
// the tuned problem `tuned`, cannot run `problem` as compiled (at the tuned alignment class):
// the family's cannot_implement, or a different kernel variant (other NVRTC defines). Empty when
// it can. Throws what the family throws.
std::string kernel_cannot_serve(const Family& family, const Knobs& knobs, const ProblemKey& tuned,
                                const ProblemKey& problem);

// Walks the eligible neighbours (same transposes, alignment the kernel allows, below class 4 a
// ldc of the same width, within max_ratio in each dimension) closest first, same alignment class
// before narrower ones. The first one where cuBLAS won or the measured speedup is under min_speedup
// ends the walk with cuBLAS: the closest evidence says a tuned kernel does not pay there. One that
// `check` rejects is skipped.
NearestChoice choose_nearest(const ProblemKey& problem, const std::vector<Neighbour>& pool,
                             const NearestRules& rules, const NeighbourCheck& check);

}  // namespace sgt
