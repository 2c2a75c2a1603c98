// Problem helpers: sizes, alignment class, validation, roofline floor.
#include "space/problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "common/error.hpp"

namespace sgt {

char op_char(Op op) { return op == Op::N ? 'N' : 'T'; }

Op parse_op(char c) {
  switch (c) {
    case 'N':
    case 'n':
      return Op::N;
    case 'T':
    case 't':
    case 'C':
    case 'c':
      return Op::T;
    default:
      throw Error(ErrorKind::invalid_value, fmt::format("transpose '{}' is not N or T", c));
  }
}

std::string ProblemKey::to_string() const {
  return fmt::format("{}{} {}x{}x{} lda={} ldb={} ldc={} align={}", op_char(transa),
                     op_char(transb), m, n, k, lda, ldb, ldc, align);
}

int rows_a(const ProblemKey& p) { return p.transa == Op::N ? p.m : p.k; }
int cols_a(const ProblemKey& p) { return p.transa == Op::N ? p.k : p.m; }
int rows_b(const ProblemKey& p) { return p.transb == Op::N ? p.k : p.n; }
int cols_b(const ProblemKey& p) { return p.transb == Op::N ? p.n : p.k; }

ProblemKey with_minimal_leading_dimensions(ProblemKey p) {
  if (p.lda == 0) p.lda = std::max(1, rows_a(p));
  if (p.ldb == 0) p.ldb = std::max(1, rows_b(p));
  if (p.ldc == 0) p.ldc = std::max(1, p.m);
  return p;
}

int alignment_class(int lda, int ldb, int ldc, std::uintptr_t a, std::uintptr_t b,
                    std::uintptr_t c) {
  for (int v : {4, 2}) {
    const std::uintptr_t bytes = 4u * static_cast<unsigned>(v);
    if (lda % v == 0 && ldb % v == 0 && ldc % v == 0 && a % bytes == 0 && b % bytes == 0 &&
        c % bytes == 0)
      return v;
  }
  return 1;
}

static std::int64_t span(int rows, int cols, int ld) {
  if (rows == 0 || cols == 0) return 0;
  return static_cast<std::int64_t>(ld) * (cols - 1) + rows;
}

std::int64_t elements_a(const ProblemKey& p) { return span(rows_a(p), cols_a(p), p.lda); }
std::int64_t elements_b(const ProblemKey& p) { return span(rows_b(p), cols_b(p), p.ldb); }
std::int64_t elements_c(const ProblemKey& p) { return span(p.m, p.n, p.ldc); }

std::string validate(const ProblemKey& p) {
  if (p.m < 0 || p.n < 0 || p.k < 0)
    return fmt::format("sizes must not be negative (m={}, n={}, k={})", p.m, p.n, p.k);
  if (p.lda < std::max(1, rows_a(p)))
    return fmt::format("lda={} is smaller than the {} rows of A", p.lda, rows_a(p));
  if (p.ldb < std::max(1, rows_b(p)))
    return fmt::format("ldb={} is smaller than the {} rows of B", p.ldb, rows_b(p));
  if (p.ldc < std::max(1, p.m)) return fmt::format("ldc={} is smaller than m={}", p.ldc, p.m);
  if (p.align != 1 && p.align != 2 && p.align != 4)
    return fmt::format("alignment class {} is not 1, 2 or 4", p.align);
  constexpr std::int64_t limit = std::numeric_limits<int>::max();
  if (elements_a(p) > limit || elements_b(p) > limit || elements_c(p) > limit)
    return "an operand spans more than 2^31 - 1 elements (beyond 32-bit index math)";
  return {};
}

double flops(const ProblemKey& p) { return 2.0 * p.m * p.n * static_cast<double>(p.k); }

double roofline_floor_us(const ProblemKey& p, double peak_tflops, double bandwidth_tbps) {
  const double compute_us = flops(p) / (peak_tflops * 1e6);
  const double bytes = 4.0 * (static_cast<double>(p.m) * p.k + static_cast<double>(p.k) * p.n +
                              static_cast<double>(p.m) * p.n);
  const double memory_us = bytes / (bandwidth_tbps * 1e6);
  return std::max(compute_us, memory_us);
}

}  // namespace sgt
