// A GEMM problem as the tuner and the dispatcher see it: column-major, cuBLAS conventions.
#pragma once

#include <cstdint>
#include <string>

namespace sgt {

enum class Op { N = 0, T = 1 };

char op_char(Op op);
Op parse_op(char c);  // 'N'/'n' or 'T'/'t' (and 'C'/'c', which is T for real data)

// Problem identity in the database: shape, transposes, leading dimensions and alignment class.
struct ProblemKey {
  Op transa = Op::N, transb = Op::N;
  int m = 0, n = 0, k = 0;
  int lda = 0, ldb = 0, ldc = 0;
  // Widest vector width in floats (4, 2 or 1) that every operand allows: each leading dimension
  // a multiple of it and each base pointer aligned to 4 * align bytes.
  int align = 4;

  std::string to_string() const;  // "NN 4096x4096x4096 lda=4096 ldb=4096 ldc=4096 align=4"
  friend bool operator==(const ProblemKey&, const ProblemKey&) = default;
};

struct Problem {
  ProblemKey key;
  float alpha = 1.0f, beta = 0.0f;
};

// Rows and columns of op(X) as stored: A is m x k if N, k x m if T.
int rows_a(const ProblemKey& p);
int cols_a(const ProblemKey& p);
int rows_b(const ProblemKey& p);
int cols_b(const ProblemKey& p);
// Minimal leading dimensions for a problem (0 fields in a shape list mean "minimal").
ProblemKey with_minimal_leading_dimensions(ProblemKey p);
// Alignment class from leading dimensions and the byte addresses of the three operands.
int alignment_class(int lda, int ldb, int ldc, std::uintptr_t a, std::uintptr_t b,
                    std::uintptr_t c);
// Element counts the stored operands span (with leading dimensions), in floats.
std::int64_t elements_a(const ProblemKey& p);
std::int64_t elements_b(const ProblemKey& p);
std::int64_t elements_c(const ProblemKey& p);

// Empty when the problem is well formed; otherwise the reason (negative sizes, leading
// dimensions too small, operands past 32-bit index range).
std::string validate(const ProblemKey& p);

double flops(const ProblemKey& p);  // 2 m n k
// Lower bound on time: max(FLOPs / peak, minimal bytes / bandwidth), in microseconds.
double roofline_floor_us(const ProblemKey& p, double peak_tflops, double bandwidth_tbps);

}  // namespace sgt
