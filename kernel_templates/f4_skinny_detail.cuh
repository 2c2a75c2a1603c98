// Helpers of family F4 (skinny SGEMM): cp.async wrappers, small vector loads from shared memory and
// a predicated tile copy that zero-fills whatever lies outside the matrix (the compute loop of
// f4_skinny.cu never tests bounds). Device code only; NVRTC-compilable without host headers.
#pragma once

namespace f4 {

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// An L2 policy that gives the lines it touches evict-first priority: for data read exactly once,
// so that streaming it replaces its own lines rather than the rest of L2 (dirty lines, whose
// eviction costs a write-back to HBM, and the small operand every block re-reads). The value is
// what createpolicy.fractional.L2::evict_first (fraction 1.0) yields. Only global loads take it
// (DIRECT = 1): ptxas 13.0 miscompiles cp.async with a cache hint, leaving LDGSTS with an
// uninitialized policy register that faults as an illegal instruction at run time, in builds no
// rule predicts (IST-DASLab/marlin#44; Triton stopped hinting cp.async until ptxas 13.4.59).
__device__ __forceinline__ unsigned long long evict_first_policy() { return 0x12F0000000000000ull; }

// Copies BYTES (4, 8 or 16) from global to shared memory. Only src_bytes (0..BYTES) are read,
// the rest of the destination is zero-filled; with src_bytes == 0 nothing is read at all.
// 16-byte copies bypass L1 (.cg): the streamed operand is read exactly once.
template <int BYTES>
__device__ __forceinline__ void cp_async(unsigned dst, const float* src, int src_bytes) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
  if constexpr (BYTES == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(BYTES),
                 "r"(src_bytes)
                 : "memory");
  }
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most N committed groups of this thread are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Loads N (1, 2 or 4) consecutive floats from global memory, N-aligned, through the read-only
// path. STREAM: not kept in L1 (the element is read by this warp only). HINT: a 16-byte load (N =
// 4) under the L2 policy `policy` (evict_first_policy()); narrower loads take the default policy.
template <int N, bool STREAM, bool HINT>
__device__ __forceinline__ void load_global(const float* p, float* out, unsigned long long policy) {
  static_assert(N == 1 || N == 2 || N == 4, "vector of 1, 2 or 4 floats");
  if constexpr (N == 4 && HINT && STREAM) {
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;\n"
        : "=f"(out[0]), "=f"(out[1]), "=f"(out[2]), "=f"(out[3])
        : "l"(p), "l"(policy));
  } else if constexpr (N == 4 && HINT) {
    asm("ld.global.nc.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;\n"
        : "=f"(out[0]), "=f"(out[1]), "=f"(out[2]), "=f"(out[3])
        : "l"(p), "l"(policy));
  } else if constexpr (N == 4 && STREAM) {
    asm("ld.global.nc.L1::no_allocate.v4.f32 {%0, %1, %2, %3}, [%4];\n"
        : "=f"(out[0]), "=f"(out[1]), "=f"(out[2]), "=f"(out[3])
        : "l"(p));
  } else if constexpr (N == 4) {
    const float4 v = __ldg(reinterpret_cast<const float4*>(p));
    out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
  } else if constexpr (N == 2) {
    const float2 v = __ldg(reinterpret_cast<const float2*>(p));
    out[0] = v.x, out[1] = v.y;
  } else {
    out[0] = __ldg(p);
  }
}

// Asks L2 to fetch the line holding p (no register, no completion to wait for).
__device__ __forceinline__ void prefetch_l2(const float* p) {
  asm volatile("prefetch.global.L2 [%0];\n" ::"l"(p));
}

// Loads N (1, 2 or 4) consecutive floats from shared memory, N-aligned, as one instruction.
template <int N>
__device__ __forceinline__ void load_shared(const float* p, float* out) {
  if constexpr (N == 4) {
    const float4 v = *reinterpret_cast<const float4*>(p);
    out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
  } else if constexpr (N == 2) {
    const float2 v = *reinterpret_cast<const float2*>(p);
    out[0] = v.x, out[1] = v.y;
  } else {
    static_assert(N == 1, "vector of 1, 2 or 4 floats");
    out[0] = *p;
  }
}

// Stores N (1, 2 or 4) consecutive floats to shared memory, N-aligned, as one instruction.
template <int N>
__device__ __forceinline__ void store_shared(float* p, const float* v) {
  if constexpr (N == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else if constexpr (N == 2) {
    *reinterpret_cast<float2*>(p) = make_float2(v[0], v[1]);
  } else {
    static_assert(N == 1, "vector of 1, 2 or 4 floats");
    *p = v[0];
  }
}

// Copies a ROWS x COLS tile whose rows are contiguous in global memory (row r starts at
// src + r * ld) into shared rows of PITCH floats starting at byte address dst, in vectors of VW
// floats spread over THREADS threads. Rows at or past rows_valid and columns at or past cols_valid
// are zero-filled and never read. FULL: the caller knows the whole tile is inside the matrix.
// src is the tile origin, always inside the matrix, so even predicated-off copies name a valid
// address.
template <int ROWS, int COLS, int VW, int PITCH, int THREADS, bool FULL>
__device__ __forceinline__ void copy_tile(unsigned dst, const float* src, long long ld,
                                          int rows_valid, int cols_valid, int tid) {
  static_assert(COLS % VW == 0 && PITCH % VW == 0, "vectors must tile the rows");
  constexpr int kVecsPerRow = COLS / VW;
  constexpr int kBytes = 4 * VW;
  if constexpr (kVecsPerRow >= THREADS) {
    // Wide rows: every thread takes kVecsPerRow / THREADS vectors of each row (rows unrolled
    // as far as 8 copies, as below).
    static_assert(kVecsPerRow % THREADS == 0, "powers of two");
    const float* row_src = src;
#pragma unroll(kVecsPerRow / THREADS * ROWS <= 8 ? ROWS : 4)
    for (int r = 0; r < ROWS; ++r) {
#pragma unroll
      for (int j = 0; j < kVecsPerRow / THREADS; ++j) {
        const int col = (tid + j * THREADS) * VW;
        int bytes = kBytes;
        if constexpr (!FULL) {
          const int left = cols_valid - col;
          bytes = r < rows_valid ? (left >= VW ? kBytes : (left > 0 ? 4 * left : 0)) : 0;
        }
        cp_async<kBytes>(dst + 4u * (r * PITCH + col), bytes ? row_src + col : src, bytes);
      }
      row_src += ld;
    }
  } else {
    // Narrow rows: one vector per thread and pass, THREADS / kVecsPerRow rows per pass.
    static_assert(THREADS % kVecsPerRow == 0, "powers of two");
    constexpr int kRowsPerPass = THREADS / kVecsPerRow;
    constexpr int kPasses = (ROWS + kRowsPerPass - 1) / kRowsPerPass;
    const int col = (tid % kVecsPerRow) * VW;
    const int row0 = tid / kVecsPerRow;
    int col_bytes = kBytes;
    if constexpr (!FULL) {
      const int left = cols_valid - col;
      col_bytes = left >= VW ? kBytes : (left > 0 ? 4 * left : 0);
    }
    const float* p = src + row0 * ld + col;
    // Up to 8 copies unrolled: more would keep that many 64-bit addresses live (spills).
#pragma unroll(kPasses <= 8 ? kPasses : 4)
    for (int i = 0; i < kPasses; ++i) {
      const int row = row0 + i * kRowsPerPass;
      if (ROWS % kRowsPerPass == 0 || row < ROWS) {
        const int bytes = FULL ? kBytes : (row < rows_valid ? col_bytes : 0);
        cp_async<kBytes>(dst + 4u * (row * PITCH + col), bytes ? p : src, bytes);
      }
      p += kRowsPerPass * ld;
    }
  }
}

}  // namespace f4
