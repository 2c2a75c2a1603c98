// 2-D tensor maps of SGEMM operands for TMA-fed kernels (family F2), encoded on the host per
// launch: a map holds the operand's base address, so it cannot be built ahead of a call.
#pragma once

#include <cuda.h>

#include "space/family.hpp"

namespace sgt {

// The map of one column-major operand whose op() has extent `x` (M for A, N for B) and `k`,
// stored with leading dimension `ld` (floats), boxed as the kernel's tile says; the tile's
// k_inner says which of the two is contiguous. Throws sgt::Error(invalid_value) for what TMA
// cannot address (base not 16-byte aligned, ld not a multiple of 4 or shorter than a column, an
// empty dimension) and sgt::Error(cuda) when the driver refuses the encoding.
CUtensorMap encode_operand_map(const float* base, int x, int k, int ld, const TmaTile& tile);

}  // namespace sgt
