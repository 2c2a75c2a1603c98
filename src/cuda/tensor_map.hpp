// 2-D tensor maps of SGEMM operands for TMA-fed kernels (family F2), encoded on the host per
// launch: a map holds the operand's base address, so it cannot be built ahead of a call.
#pragma once

#include <cuda.h>

#include "space/family.hpp"

namespace sgt {

// The map of one column-major operand with `rows` x `cols` stored elements and leading dimension
// `ld` (floats), boxed as the kernel's tile says. `rows` is the contiguous dimension. Throws
// sgt::Error(invalid_value) for what TMA cannot address (base not 16-byte aligned, ld not a
// multiple of 4, an empty dimension) and sgt::Error(cuda) when the driver refuses the encoding.
CUtensorMap encode_operand_map(const float* base, int rows, int cols, int ld, const TmaTile& tile);

}  // namespace sgt
