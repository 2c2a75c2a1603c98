// Device helpers of family F1 (f1_simt.cu): cp.async wrappers, the global -> shared tile loaders
// and the vector/scalar C accessors. Knob-free: everything arrives as template arguments.
#pragma once

namespace f1 {

// ---- cp.async (sm_80+). src_bytes < copy size zero-fills the rest, so tails never read OOB;
// L2::128B fetches whole 128-byte lines: the next k tiles of a K-contiguous column come along. --
__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async_16(unsigned dst, const float* src) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(dst), "l"(src)
               : "memory");
}
__device__ __forceinline__ void cp_async_16(unsigned dst, const float* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_8(unsigned dst, const float* src) {
  asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 8;\n" ::"r"(dst), "l"(src)
               : "memory");
}
__device__ __forceinline__ void cp_async_8(unsigned dst, const float* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_4(unsigned dst, const float* src) {
  asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 4;\n" ::"r"(dst), "l"(src)
               : "memory");
}
__device__ __forceinline__ void cp_async_4(unsigned dst, const float* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes)
               : "memory");
}
// 128-bit shared load from a 32-bit shared-window address: fragment addressing stays in 32-bit
// registers with immediate offsets (NVRTC otherwise widens it to 64-bit, which spills at 128
// registers). volatile keeps it ordered with the barriers and cp.async waits; ptxas still
// schedules it freely among the FFMAs.
__device__ __forceinline__ float4 lds128(unsigned addr) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(addr));
  return v;
}
template <int V>
__device__ __forceinline__ void cp_async_vec(unsigned dst, const float* src) {
  if constexpr (V == 4)
    cp_async_16(dst, src);
  else if constexpr (V == 2)
    cp_async_8(dst, src);
  else
    cp_async_4(dst, src);
}
template <int V>
__device__ __forceinline__ void cp_async_vec(unsigned dst, const float* src, int src_bytes) {
  if constexpr (V == 4)
    cp_async_16(dst, src, src_bytes);
  else if constexpr (V == 2)
    cp_async_8(dst, src, src_bytes);
  else
    cp_async_4(dst, src, src_bytes);
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// ---- Tile loaders. Operand X has a tile extent BX (BM for A, BN for B) and K; the shared tile is
// K-major: element (x, p) at row p, column x, row stride BX + PAD floats. Offsets from the tile
// origin g are 32-bit unsigned: an in-range element lies inside an operand of < 2^31 elements
// (sgt::validate); an out-of-range one (whose offset may wrap) copies zero bytes from g itself,
// which is in range (a tile is loaded only while K is left). 32-bit offsets halve the registers the
// loop-invariant addressing of each copy keeps. Whether a tile is whole is decided once per tile,
// not per copy: per copy, the branch and the selects cost as much as the copy itself. ----------

// X-contiguous operand (A with TRANS_A=0, B with TRANS_B=1): element (x, p) at g[x + p*ld].
// Chunks of V floats copy straight in; consecutive threads take consecutive chunks of a k row, so
// global reads coalesce and shared writes are conflict-free. A tile extent of 3 x 2^j (BX 48, 96,
// 192) may leave the last pass part-filled: the threads past the tile's chunks skip it.
template <int BX, int KT, int V, int THREADS, int STRIDE, bool RECOMPUTE>
__device__ __forceinline__ void load_direct(unsigned s, const float* g, int ld, int x_rem,
                                            int k_rem, bool full) {
  constexpr int D = BX / V;  // chunks per k row
  constexpr int kChunks = KT * D;
  constexpr int N = (kChunks + THREADS - 1) / THREADS;
  // Chunk t + i*THREADS splits into (row p, column x) without dividing a runtime sum where the
  // pass and the row nest (powers of two); otherwise it is divided once per copy.
  constexpr bool kNested = THREADS % D == 0 || D % THREADS == 0;
  if constexpr (RECOMPUTE) asm volatile("mov.b32 %0, %0;\n" : "+r"(ld));  // see load_transposed
  const int t = threadIdx.x;
  auto row = [&](int i) { return kNested ? t / D + (i * THREADS) / D : (t + i * THREADS) / D; };
  auto col = [&](int i) {
    return (kNested ? t % D + (i * THREADS) % D : (t + i * THREADS) % D) * V;
  };
  // Whether copy i lies past the tile (only in a part-filled last pass).
  auto past_tile = [&](int i) { return t + i * THREADS >= kChunks; };
  auto dst = [&](int i) { return s + 4u * static_cast<unsigned>(row(i) * STRIDE + col(i)); };
  auto off = [&](int i) {
    return static_cast<unsigned>(col(i)) + static_cast<unsigned>(row(i)) * ld;
  };
  if (full) {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      if constexpr (kChunks % THREADS != 0)
        if (past_tile(i)) continue;
      cp_async_vec<V>(dst(i), g + off(i));
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      if constexpr (kChunks % THREADS != 0)
        if (past_tile(i)) continue;
      const int valid = row(i) < k_rem ? min(max(x_rem - col(i), 0), V) : 0;
      cp_async_vec<V>(dst(i), g + (valid > 0 ? off(i) : 0u), 4 * valid);
    }
  }
}

// K-contiguous operand (B with TRANS_B=0, A with TRANS_A=1): element (x, p) at g[p + x*ld]; it is
// transposed on the way in with 4-byte copies. Eight consecutive threads read 8 consecutive k of
// one column (a full 32-byte sector); a warp covers 8 k x 4 columns, which with PAD=4 (row stride
// = 4 mod 32 banks) lands in 32 distinct banks.
// RECOMPUTE: take ld through an opaque move so that ptxas recomputes the N loop-invariant offsets
// every tile (one IMAD each) instead of keeping N registers live across the k loop: next to 128
// accumulators, or under a 128-register cap, holding 16-32 of them spills.
template <int BX, int KT, int THREADS, int STRIDE, bool RECOMPUTE>
__device__ __forceinline__ void load_transposed(unsigned s, const float* g, int ld, int x_rem,
                                                int k_rem, bool full) {
  constexpr int R = THREADS / 8;  // columns covered by one pass of all threads
  constexpr int kElements = KT * BX;
  constexpr int N = (kElements + THREADS - 1) / THREADS;
  constexpr bool kNested = R % BX == 0 || BX % R == 0;  // as in load_direct
  static_assert(KT % 8 == 0, "loader: BK must be a multiple of 8");
  if constexpr (RECOMPUTE) asm volatile("mov.b32 %0, %0;\n" : "+r"(ld));
  const int t = threadIdx.x;
  const int k_lo = t % 8;
  // Element index e = t + i*THREADS: k_lo = e % 8, r = e / 8, x = r % BX, k_hi = r / BX.
  auto col = [&](int i) { return kNested ? (t / 8) % BX + (i * R) % BX : (t / 8 + i * R) % BX; };
  auto row = [&](int i) {
    return 8 * (kNested ? (t / 8) / BX + (i * R) / BX : (t / 8 + i * R) / BX) + k_lo;
  };
  auto past_tile = [&](int i) { return t + i * THREADS >= kElements; };
  auto dst = [&](int i) { return s + 4u * static_cast<unsigned>(row(i) * STRIDE + col(i)); };
  auto off = [&](int i) {
    return static_cast<unsigned>(row(i)) + static_cast<unsigned>(col(i)) * ld;
  };
  if (full) {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      if constexpr (kElements % THREADS != 0)
        if (past_tile(i)) continue;
      cp_async_4(dst(i), g + off(i));
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) {
      if constexpr (kElements % THREADS != 0)
        if (past_tile(i)) continue;
      const bool valid = row(i) < k_rem && col(i) < x_rem;
      cp_async_4(dst(i), g + (valid ? off(i) : 0u), valid ? 4 : 0);
    }
  }
}

// ---- C accessors: 4 consecutive rows of one column; vector width V where the alignment class
// allows it (row is a multiple of 4 and ld a multiple of V, so the address is aligned). ---------
template <int V>
__device__ __forceinline__ void load4(const float* p, int nvalid, float (&v)[4]) {
  if (nvalid >= 4) {
    if constexpr (V == 4) {
      const float4 t = *reinterpret_cast<const float4*>(p);
      v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
    } else if constexpr (V == 2) {
      const float2 t0 = *reinterpret_cast<const float2*>(p);
      const float2 t1 = *reinterpret_cast<const float2*>(p + 2);
      v[0] = t0.x, v[1] = t0.y, v[2] = t1.x, v[3] = t1.y;
    } else {
#pragma unroll
      for (int r = 0; r < 4; ++r) v[r] = p[r];
    }
  } else {
#pragma unroll
    for (int r = 0; r < 4; ++r) v[r] = r < nvalid ? p[r] : 0.0f;
  }
}
template <int V>
__device__ __forceinline__ void store4(float* p, int nvalid, const float (&v)[4]) {
  if (nvalid >= 4) {
    if constexpr (V == 4) {
      *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
    } else if constexpr (V == 2) {
      *reinterpret_cast<float2*>(p) = make_float2(v[0], v[1]);
      *reinterpret_cast<float2*>(p + 2) = make_float2(v[2], v[3]);
    } else {
#pragma unroll
      for (int r = 0; r < 4; ++r) p[r] = v[r];
    }
  } else {
#pragma unroll
    for (int r = 0; r < 4; ++r)
      if (r < nvalid) p[r] = v[r];
  }
}

// C = alpha * acc + beta * C for 4 rows; beta == 0 never reads C (it may hold NaN).
template <int V>
__device__ __forceinline__ void update4(float* p, int nvalid, float (&v)[4], float alpha,
                                        float beta) {
  if (beta == 0.0f) {
#pragma unroll
    for (int r = 0; r < 4; ++r) v[r] *= alpha;
  } else {
    float old[4];
    load4<V>(p, nvalid, old);
#pragma unroll
    for (int r = 0; r < 4; ++r) v[r] = fmaf(beta, old[r], alpha * v[r]);
  }
  store4<V>(p, nvalid, v);
}

// Block id -> (tile_m, tile_n). RASTER consecutive blocks share one M tile and walk RASTER N
// tiles, so a wave touches a compact patch of A and B (L2 reuse); the last, narrower group of
// N tiles is walked the same way, so no block is wasted.
template <int R>
__device__ __forceinline__ void raster_tile(int id, int tiles_m, int tiles_n, int& tm, int& tn) {
  if constexpr (R == 1) {
    tm = id % tiles_m;
    tn = id / tiles_m;
  } else {
    const int group = tiles_m * R;
    const int full_groups = tiles_n / R;
    const int g = id / group;
    if (g < full_groups) {
      const int w = id - g * group;
      tm = w / R;
      tn = g * R + w % R;
    } else {
      const int width = tiles_n - full_groups * R;
      const int w = id - full_groups * group;
      tm = w / width;
      tn = full_groups * R + w % width;
    }
  }
}

}  // namespace f1
