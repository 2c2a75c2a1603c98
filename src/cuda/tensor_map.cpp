// cuTensorMapEncodeTiled for FP32 operands: dimension 0 is the contiguous one; out-of-bounds
// elements of a box read as zero, which is what lets F2 skip predication on tail tiles.
#include "cuda/tensor_map.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "common/error.hpp"
#include "cuda/driver_api.hpp"

namespace sgt {
namespace {

CUtensorMapSwizzle swizzle_mode(unsigned bytes) {
  switch (bytes) {
    case 0:
      return CU_TENSOR_MAP_SWIZZLE_NONE;
    case 32:
      return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64:
      return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128:
      return CU_TENSOR_MAP_SWIZZLE_128B;
    default:
      throw Error(ErrorKind::internal, fmt::format("no TMA swizzle of {} bytes", bytes));
  }
}

}  // namespace

CUtensorMap encode_operand_map(const float* base, int x, int k, int ld, const TmaTile& tile) {
  const int rows = tile.k_inner ? k : x;  // the contiguous dimension
  const int cols = tile.k_inner ? x : k;
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0 || ld % 4 != 0 || rows < 1 || cols < 1 ||
      ld < rows)
    throw Error(ErrorKind::invalid_value,
                fmt::format("TMA cannot address a {}x{} operand with ld={} at {}", rows, cols, ld,
                            static_cast<const void*>(base)));
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(rows), static_cast<cuuint64_t>(cols)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * sizeof(float)};  // of dimension 1
  const cuuint32_t box[2] = {tile.box_inner, tile.box_outer};
  const cuuint32_t element_strides[2] = {1, 1};
  CUtensorMap map;
  SGT_CU_CHECK(driver().cuTensorMapEncodeTiled(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(base), dims, strides, box,
      element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_mode(tile.swizzle_bytes),
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

}  // namespace sgt
