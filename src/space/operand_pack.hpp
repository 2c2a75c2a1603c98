// Operand packing: a TMA-fed kernel (F2) needs 16-byte aligned operands with leading dimensions
// that are multiples of 4 floats. With PACK = 1 the launch first copies into the workspace, with
// its leading dimension rounded up, each of A and B that TMA cannot address in place, and
// sgemm_main reads the copies. An operand whose own leading dimension is a multiple of 4 is read in
// place whenever its pointer is 16-byte aligned: the problem's alignment class may come from the
// other operand or from C alone. C is written in place (F2's epilogue takes the problem's
// alignment class), so only the operands are ever copied.
// With PACK = 2 the launch instead copies each K-contiguous operand of an aligned problem
// transposed, so that sgemm_main reads both operands M- or N-contiguous (dense shared stages,
// its fastest layout); the other operand is read in place.
#pragma once

#include <cstddef>
#include <cstdint>

#include "space/problem.hpp"

namespace sgt {

// One operand's copy in the workspace: the operand as stored (rows x cols, column-major), or
// with `transposed` its transpose (cols x rows).
struct PackedOperand {
  bool used = false;
  bool transposed = false;
  std::size_t offset_floats = 0;  // from the start of the workspace; a multiple of kPackAlignFloats
  std::size_t floats = 0;         // ld * cols (transposed: ld * rows)
  int rows = 0, cols = 0;         // of the operand as stored
  int ld = 0;  // of the copy: rows (transposed: cols) rounded up to a multiple of 4
  // Not transposed, and the operand's own leading dimension is a multiple of 4: the copy is made
  // only for a pointer that is not 16-byte aligned (the workspace keeps room for it either way).
  bool in_place_when_aligned = false;
};

// Whether the launch copies the operand at `src` (TMA reads it in place otherwise).
bool copy_needed(const PackedOperand& packed, const void* src);
// Floats the launch copies where every pointer is 16-byte aligned (as when tuning).
std::size_t copied_floats_when_aligned(const PackedOperand& packed);

// Copies start on 256-byte boundaries (TMA needs 16 bytes; 256 matches cudaMalloc's own).
constexpr std::size_t kPackAlignFloats = 64;
// Packed copies of both operands beyond this many floats are refused (1 GiB): the dispatcher
// holds one workspace as large as its largest winner needs.
constexpr std::int64_t kMaxPackFloats = std::int64_t{1} << 28;

struct PackedOperands {
  PackedOperand a, b;
  std::size_t end_floats = 0;  // the workspace the copies need, counted from its start
};

// The copies of A and B placed after the first `base_floats` of the workspace, and never over its
// first SGEMM_TILE_COUNTERS floats: a workspace is shared by every kernel of a tuning run or of a
// dispatcher handle, and the split-K kernels expect the tile counters there to be zero.
PackedOperands pack_layout(const ProblemKey& p, std::size_t base_floats);

// Floats both copies take, for the size limit (without the alignment gaps).
std::int64_t packed_floats(const ProblemKey& p);

// PACK = 2: transposed copies of the K-contiguous operands (A stored k x m, B stored k x n) after
// the first `base_floats` (and the tile counters); an operand already M- or N-contiguous is not
// copied (used = false).
PackedOperands transposed_pack_layout(const ProblemKey& p, std::size_t base_floats);
std::int64_t transposed_packed_floats(const ProblemKey& p);

}  // namespace sgt
