// The argument block every SGEMM kernel template takes by value, shared by host and device code.
// Column-major, cuBLAS semantics: C(m x n) = alpha * op(A)(m x k) * op(B)(k x n) + beta * C.
#pragma once

// A split-K workspace starts with this many arrival counters (one per output tile, for kernels
// that reduce the splits themselves) and the partial sums follow. The counters are zero whenever
// no kernel runs: zeroed once when the workspace is allocated, and reset by the kernel that used
// them. Keeping them apart from the partials means no configuration's partial sums can land on
// another's counters when both share one workspace.
#define SGEMM_TILE_COUNTERS 16384

struct SgemmArgs {
  const float* a;
  const float* b;
  float* c;
  float* workspace;  // split-K partial sums, k_splits * m * n floats; null when k_splits == 1
  int m, n, k;
  int lda, ldb, ldc;
  float alpha, beta;  // beta == 0: C is never read
  int k_splits;       // number of K slices (1: no split)
  int k_slice;        // K elements per slice (a multiple of the kernel's BK)
  // SGEMM_TILE_COUNTERS arrival counters, zero on entry and on exit; null when k_splits == 1.
  // Last so that kernels compiled before it existed still read the fields above.
  unsigned* tile_counters;
};
