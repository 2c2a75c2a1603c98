// The normwise error test of docs/measurement.md, as pure functions (unit-tested on the host).
#pragma once

#include <cstdint>
#include <string>

namespace sgt {

// Squared Frobenius norms gathered on the device.
struct DiffNorms {
  double diff_sq = 0;          // sum (C - C_ref)^2 over finite C
  double ref_sq = 0;           // sum C_ref^2
  std::int64_t nonfinite = 0;  // elements of C that are NaN or Inf (unwritten when C was poisoned)
  std::int64_t unequal = 0;    // elements whose bits differ from C_ref
};

// e = ||C - C_ref||_F / (sqrt(K + 2) |alpha| ||A||_F ||B||_F + 2 |beta| ||C0||_F).
double normwise_error(double diff_sq, int k, float alpha, double a_sq, double b_sq, float beta,
                      double c0_sq);

// Unit roundoff of FP32 (2^-24) times the configured factor.
double normwise_tolerance(double factor);

// Exact FP32 results for integer data in [-r, r] need r^2 k <= 2^24.
bool integer_check_is_exact(int k, int range);

}  // namespace sgt
