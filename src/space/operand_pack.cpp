// Where the packed copies of A and B lie in the workspace (space/operand_pack.hpp).
#include "space/operand_pack.hpp"

#include <algorithm>

#include "sgemm_args.h"

namespace sgt {
namespace {

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

// A is stored m x k (k x m transposed), B k x n (n x k transposed): column-major, as cuBLAS.
PackedOperand packed(int rows, int cols, std::size_t offset) {
  PackedOperand o;
  o.used = true;
  o.rows = rows;
  o.cols = cols;
  o.ld = static_cast<int>(round_up(static_cast<std::size_t>(rows), 4));
  o.offset_floats = round_up(offset, kPackAlignFloats);
  o.floats = static_cast<std::size_t>(o.ld) * static_cast<std::size_t>(cols);
  return o;
}

// The transpose of a rows x cols operand: a cols x rows copy.
PackedOperand transposed(int rows, int cols, std::size_t offset) {
  PackedOperand o = packed(cols, rows, offset);
  o.transposed = true;
  o.rows = rows;
  o.cols = cols;
  return o;
}

}  // namespace

bool copy_needed(const PackedOperand& packed, const void* src) {
  if (!packed.used) return false;
  const bool aligned = reinterpret_cast<std::uintptr_t>(src) % 16 == 0;
  return !(packed.in_place_when_aligned && aligned);
}

std::size_t copied_floats_when_aligned(const PackedOperand& packed) {
  return packed.used && !packed.in_place_when_aligned ? packed.floats : 0;
}

PackedOperands pack_layout(const ProblemKey& p, std::size_t base_floats) {
  PackedOperands out;
  base_floats = std::max<std::size_t>(base_floats, SGEMM_TILE_COUNTERS);
  const bool a_n = p.transa == Op::N, b_n = p.transb == Op::N;
  out.a = packed(a_n ? p.m : p.k, a_n ? p.k : p.m, base_floats);
  out.b = packed(b_n ? p.k : p.n, b_n ? p.n : p.k, out.a.offset_floats + out.a.floats);
  out.a.in_place_when_aligned = p.lda % 4 == 0;
  out.b.in_place_when_aligned = p.ldb % 4 == 0;
  out.end_floats = out.b.offset_floats + out.b.floats;
  return out;
}

std::int64_t packed_floats(const ProblemKey& p) {
  const PackedOperands l = pack_layout(p, 0);
  return static_cast<std::int64_t>(l.a.floats + l.b.floats);
}

PackedOperands transposed_pack_layout(const ProblemKey& p, std::size_t base_floats) {
  PackedOperands out;
  std::size_t next = std::max<std::size_t>(base_floats, SGEMM_TILE_COUNTERS);
  if (p.transa == Op::T) {
    out.a = transposed(p.k, p.m, next);
    next = out.a.offset_floats + out.a.floats;
  }
  if (p.transb == Op::N) {
    out.b = transposed(p.k, p.n, next);
    next = out.b.offset_floats + out.b.floats;
  }
  out.end_floats = next;
  return out;
}

std::int64_t transposed_packed_floats(const ProblemKey& p) {
  const PackedOperands l = transposed_pack_layout(p, 0);
  return static_cast<std::int64_t>(l.a.floats + l.b.floats);
}

}  // namespace sgt
