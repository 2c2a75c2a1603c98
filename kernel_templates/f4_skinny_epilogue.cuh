// The end of family F4's sgemm_main (both paths): sum the block's K slices in slice order, then
// write C, or write the split's partial tile to the workspace and, with REDUCE = 1, let the block
// that finishes its output tile last sum every split into C. Included by f4_skinny.cu after its
// knobs.
#pragma once

#include "split_k_serial.cuh"

namespace f4 {

static_assert(REDUCE == 0 || REDUCE == 1, "REDUCE is 0 or 1");

// C = alpha * v + beta * C for one element; beta == 0 never reads C, alpha == 0 ignores v.
__device__ __forceinline__ void store_c(float* c, float v, float alpha, float beta) {
  float out = alpha == 0.0f ? 0.0f : alpha * v;
  if (beta != 0.0f) out = fmaf(beta, *c, out);
  *c = out;
}

// red: the KSL partial tiles of the block, [slice][s][g] with a row pitch of RP floats. The
// block's tile is BG x BS at (g0, s0) of the G x S problem; g_valid and s_valid bound it. Threads
// walk the tile along C's contiguous dimension.
template <int BG, int RP, int THREADS>
__device__ __forceinline__ void finish_tile(const SgemmArgs& args, const float* red, int g0,
                                            int s0, int g_valid, int s_valid) {
  const bool split = args.k_splits > 1;
  const float alpha = args.alpha, beta = args.beta;
  const long long mn = static_cast<long long>(args.m) * args.n;
  for (int e = threadIdx.x; e < BG * BS; e += THREADS) {
    const int row = SMALL_M ? e / BS : e % BG;
    const int col = SMALL_M ? e % BS : e / BG;
    if (row >= g_valid || col >= s_valid) continue;
    float v = red[col * RP + row];
#pragma unroll
    for (int q = 1; q < KSL; ++q) v += red[(q * BS + col) * RP + row];
    const int i = SMALL_M ? s0 + col : g0 + row;
    const int j = SMALL_M ? g0 + row : s0 + col;
    if (split)
      args.workspace[blockIdx.z * mn + static_cast<long long>(j) * args.m + i] = v;
    else
      store_c(args.c + i + static_cast<long long>(j) * args.ldc, v, alpha, beta);
  }
  if (!REDUCE || !split) return;
  // Serial split-K: the last block of this output tile sums split 0, 1, ..., k_splits - 1.
  unsigned* counter = args.tile_counters + blockIdx.x + blockIdx.y * gridDim.x;
  if (!split_k_last_to_arrive(counter, args.k_splits)) return;
  // kU elements per thread at a time, so that kU loads per split are in flight (L2 latency);
  // fewer where OCC caps the registers.
  constexpr int kU = OCC > WARPS ? 4 : 8;
  for (int e0 = threadIdx.x; e0 < BG * BS; e0 += kU * THREADS) {
    const float* w[kU];
    float v[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const int e = e0 + u * THREADS;
      const int row = SMALL_M ? e / BS : e % BG;
      const int col = SMALL_M ? e % BS : e / BG;
      const bool in = e < BG * BS && row < g_valid && col < s_valid;
      const int i = SMALL_M ? s0 + col : g0 + row;
      const int j = SMALL_M ? g0 + row : s0 + col;
      w[u] = in ? args.workspace + static_cast<long long>(j) * args.m + i : nullptr;
      v[u] = in ? __ldcg(w[u]) : 0.0f;
    }
#pragma unroll 4
    for (int z = 1; z < args.k_splits; ++z) {
      const long long offset = z * mn;
#pragma unroll
      for (int u = 0; u < kU; ++u)
        if (w[u]) v[u] += __ldcg(w[u] + offset);
    }
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      if (!w[u]) continue;
      const int e = e0 + u * THREADS;
      const int row = SMALL_M ? e / BS : e % BG;
      const int col = SMALL_M ? e % BS : e / BG;
      const int i = SMALL_M ? s0 + col : g0 + row;
      const int j = SMALL_M ? g0 + row : s0 + col;
      store_c(args.c + i + static_cast<long long>(j) * args.ldc, v[u], alpha, beta);
    }
  }
}

}  // namespace f4
