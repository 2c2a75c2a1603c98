// In-kernel ("serial") split-K reduction: every block of an output tile writes its partial sums to
// the workspace and arrives on the tile's counter; the block that arrives last sums all splits in
// split order (so the result does not depend on which block that is) and writes C. Device code
// only; NVRTC-compilable without host headers.
#pragma once

#include "sgemm_args.h"

// Called by every thread of the block once its partial tile is stored. Returns true, in every
// thread, in the block that arrived last on `counter` out of `splits`; that block then sees every
// split's partial sums (read them through L2: __ldcg) and the counter is already back at zero for
// the next launch.
__device__ __forceinline__ bool split_k_last_to_arrive(unsigned* counter, int splits) {
  __threadfence();  // this thread's partial sums are visible device-wide before the arrival
  __syncthreads();
  bool last = false;
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    last = atomicAdd(counter, 1u) == static_cast<unsigned>(splits - 1);
    // Every other block of this tile has arrived: nobody reads the counter again in this launch.
    if (last) *counter = 0u;
    __threadfence();  // the other blocks' partial sums are read after their arrivals
  }
  // The barrier hands thread 0's answer to the block (no shared memory of its own).
  return __syncthreads_or(last) != 0;
}

// Partial tiles of blocks whose Threads threads each hold Rows x Cols accumulators (Rows a
// multiple of 4), kept in the threads' own layout: [group][thread] float4s, group (i / 4) * Cols +
// j holding accumulator rows i..i+3 of column j. Every store and load is then a coalesced 128-bit
// access of the thread's own accumulators and needs no bounds check. Pointers passed in are
// this thread's first float4 of a partial tile.
template <int Rows, int Cols, int Threads>
struct PartialTile {
  static constexpr size_t kFloat4s = static_cast<size_t>(Rows / 4) * Cols * Threads;

  static __device__ __forceinline__ size_t group(int i, int j) {
    return static_cast<size_t>((i / 4) * Cols + j) * Threads;
  }

  static __device__ __forceinline__ void store(float4* dst, const float (&acc)[Rows][Cols]) {
#pragma unroll
    for (int j = 0; j < Cols; ++j) {
#pragma unroll
      for (int i = 0; i < Rows; i += 4)
        __stcg(dst + group(i, j), make_float4(acc[i][j], acc[i + 1][j], acc[i + 2][j], acc[i + 3][j]));
    }
  }

  // acc = the sum of the partial tiles at slot(0), slot(1), ..., slot(n - 1), in that order. All
  // the loads of one partial tile are in flight together: summed group by group instead, each of
  // the thread's groups would wait out one L2 round trip per partial tile.
  template <class Slot>
  static __device__ __forceinline__ void sum(int n, Slot slot, float (&acc)[Rows][Cols]) {
    const float4* const p0 = slot(0);
#pragma unroll
    for (int j = 0; j < Cols; ++j) {
#pragma unroll
      for (int i = 0; i < Rows; i += 4) {
        const float4 v = __ldcg(p0 + group(i, j));
        acc[i][j] = v.x, acc[i + 1][j] = v.y, acc[i + 2][j] = v.z, acc[i + 3][j] = v.w;
      }
    }
    for (int z = 1; z < n; ++z) {
      const float4* const p = slot(z);
#pragma unroll
      for (int j = 0; j < Cols; ++j) {
#pragma unroll
        for (int i = 0; i < Rows; i += 4) {
          const float4 v = __ldcg(p + group(i, j));
          acc[i][j] += v.x, acc[i + 1][j] += v.y, acc[i + 2][j] += v.z, acc[i + 3][j] += v.w;
        }
      }
    }
  }

  // Split-K over blockIdx.z, one output tile per blockIdx.x (its counter): stores this split's
  // partial tile at workspace[split][tile]. Returns true in the last split of the tile to arrive,
  // acc then holding the sum of every split in split order (the same sums whichever split that
  // is); that block writes C, the others are done.
  static __device__ __forceinline__ bool reduce_splits(const SgemmArgs& args,
                                                       float (&acc)[Rows][Cols]) {
    const size_t split_float4s = static_cast<size_t>(gridDim.x) * kFloat4s;
    float4* const tile = reinterpret_cast<float4*>(args.workspace) + blockIdx.x * kFloat4s + threadIdx.x;
    store(tile + blockIdx.z * split_float4s, acc);
    if (!split_k_last_to_arrive(args.tile_counters + blockIdx.x, args.k_splits)) return false;
    sum(args.k_splits, [&](int z) { return tile + z * split_float4s; }, acc);
    return true;
  }
};
