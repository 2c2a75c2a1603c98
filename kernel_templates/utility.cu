// Helper kernels for verification and test data: counter-based random fills and error norms.
// Accumulation is in double so that the norms themselves add no FP32 rounding to the check.
#include "sgemm_args.h"

typedef unsigned long long u64;

__device__ __forceinline__ u64 splitmix64(u64 x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// x[i] uniform in [-1, 1), a pure function of (seed, i).
extern "C" __global__ void fill_uniform(float* x, u64 count, u64 seed) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < count;
       i += (u64)gridDim.x * blockDim.x) {
    const u64 r = splitmix64(seed ^ splitmix64(i));
    x[i] = (float)((double)(r >> 11) * (2.0 / 9007199254740992.0) - 1.0);
  }
}

// x[i] an integer in [lo, hi]: products and sums stay exact in FP32 (the exactness test).
extern "C" __global__ void fill_integers(float* x, u64 count, u64 seed, int lo, int hi) {
  const u64 span = (u64)(hi - lo + 1);
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < count;
       i += (u64)gridDim.x * blockDim.x) {
    x[i] = (float)(lo + (int)(splitmix64(seed ^ splitmix64(i)) % span));
  }
}

__device__ __forceinline__ double block_sum(double v, double* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = 0;
  if (warp == 0) {
    v = lane < (int)(blockDim.x / 32) ? scratch[lane] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  __syncthreads();
  return v;
}

// out[0] += sum (c - ref)^2, out[1] += sum ref^2, out[2] += count of non-finite c, out[3] +=
// count of bitwise differences, over the rows x cols matrix with leading dimensions ldc/ldr.
extern "C" __global__ void diff_norms(const float* c, int ldc, const float* ref, int ldr, int rows,
                                      int cols, double* out) {
  __shared__ double scratch[32];
  double diff2 = 0, ref2 = 0, bad = 0, unequal = 0;
  const u64 total = (u64)rows * cols;
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < total;
       i += (u64)gridDim.x * blockDim.x) {
    const u64 col = i / rows, row = i % rows;
    const float cv = c[row + col * ldc], rv = ref[row + col * ldr];
    if (!isfinite(cv)) {
      bad += 1;
    } else {
      const double d = (double)cv - (double)rv;
      diff2 += d * d;
    }
    ref2 += (double)rv * rv;
    unequal += (__float_as_uint(cv) != __float_as_uint(rv)) ? 1.0 : 0.0;
  }
  diff2 = block_sum(diff2, scratch);
  ref2 = block_sum(ref2, scratch);
  bad = block_sum(bad, scratch);
  unequal = block_sum(unequal, scratch);
  if (threadIdx.x == 0) {
    atomicAdd(out + 0, diff2);
    atomicAdd(out + 1, ref2);
    atomicAdd(out + 2, bad);
    atomicAdd(out + 3, unequal);
  }
}

// out[0] += sum x^2 over a rows x cols matrix with leading dimension ld.
extern "C" __global__ void sum_squares(const float* x, int ld, int rows, int cols, double* out) {
  __shared__ double scratch[32];
  double s = 0;
  const u64 total = (u64)rows * cols;
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < total;
       i += (u64)gridDim.x * blockDim.x) {
    const float v = x[i % rows + (i / rows) * ld];
    s += (double)v * v;
  }
  s = block_sum(s, scratch);
  if (threadIdx.x == 0) atomicAdd(out, s);
}
