// Normwise backward-error style bound: scales with K and the data, unlike a fixed tolerance.
#include "verify/tolerance.hpp"

#include <cmath>

namespace sgt {

double normwise_error(double diff_sq, int k, float alpha, double a_sq, double b_sq, float beta,
                      double c0_sq) {
  const double scale = std::sqrt(k + 2.0) * std::fabs(alpha) * std::sqrt(a_sq) * std::sqrt(b_sq) +
                       2.0 * std::fabs(beta) * std::sqrt(c0_sq);
  const double diff = std::sqrt(diff_sq);
  if (scale == 0) return diff == 0 ? 0.0 : INFINITY;
  return diff / scale;
}

double normwise_tolerance(double factor) { return factor * std::ldexp(1.0, -24); }

bool integer_check_is_exact(int k, int range) {
  return static_cast<double>(range) * range * k <= std::ldexp(1.0, 24);
}

}  // namespace sgt
