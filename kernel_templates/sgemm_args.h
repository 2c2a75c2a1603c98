// The argument block every SGEMM kernel template takes by value, shared by host and device code.
// Column-major, cuBLAS semantics: C(m x n) = alpha * op(A)(m x k) * op(B)(k x n) + beta * C.
#pragma once

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
};
