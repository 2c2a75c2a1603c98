// In-kernel ("serial") split-K reduction: every block of an output tile writes its partial sums to
// the workspace and arrives on the tile's counter; the block that arrives last sums all splits in
// split order (so the result does not depend on which block that is) and writes C. Device code
// only; NVRTC-compilable without host headers.
#pragma once

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
