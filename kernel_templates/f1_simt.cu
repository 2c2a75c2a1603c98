// Family F1: SIMT multistage SGEMM (sm_80+, tuned for Hopper). cp.async pipelines fill K-major
// shared tiles, warps compute WM x WN tiles from 4x4 register sub-tiles (128-bit shared loads).
// Split-K writes partial tiles to a workspace that is summed in split order, either by a second
// kernel (sgemm_reduce) or, with REDUCE, by the last split of each tile to arrive.
#include "grid_dependency.cuh"
#include "sgemm_args.h"
#include "split_k_serial.cuh"

// ---- Knobs (host side: src/space/families/f1_simt.cpp). Defaults: a 128x128x8 tile. ----------
#ifndef BM
#define BM 128  // block tile rows (M)
#endif
#ifndef BN
#define BN 128  // block tile columns (N)
#endif
#ifndef BK
#define BK 8  // K depth of one shared-memory stage
#endif
#ifndef WM
#define WM 32  // warp tile rows
#endif
#ifndef WN
#define WN 64  // warp tile columns
#endif
#ifndef TM
#define TM 8  // thread tile rows: TM/4 sub-tiles of 4, LANES_M * 4 apart
#endif
#ifndef TN
#define TN 8  // thread tile columns: TN/4 sub-tiles of 4, LANES_N * 4 apart
#endif
#ifndef STAGES
#define STAGES 3  // shared-memory pipeline depth (cp.async groups in flight: STAGES - 1)
#endif
#ifndef PAD
#define PAD 4  // floats added to each shared k row (4: transposing stores hit 32 banks)
#endif
#ifndef REGDB
#define REGDB 1  // 1: double-buffer fragments in registers across k steps and stages
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1  // __launch_bounds__ minimum resident blocks per SM
#endif
#ifndef RASTER
#define RASTER 1  // N tiles per rasterization group (L2 locality)
#endif
#ifndef SPLITK
#define SPLITK 1  // K splits (>1: partial tiles to workspace, then sgemm_reduce)
#endif
#ifndef REDUCE
#define REDUCE 0  // 1: the last split of a tile sums the partial tiles in this kernel
#endif
// Problem class, from the ProblemKey.
#ifndef TRANS_A
#define TRANS_A 0
#endif
#ifndef TRANS_B
#define TRANS_B 0
#endif
#ifndef ALIGN
#define ALIGN 4  // widest vector (floats) every operand allows: 4, 2 or 1
#endif
#ifndef C_LD4
#define C_LD4 1  // ldc is a multiple of 4: below class 4, C may still take float4 accesses
#endif
#ifndef XCHG
#define XCHG 0  // 1: C narrower than float4 is stored after an exchange among the lanes along M
#endif
#ifndef CWIN
#define CWIN 0  // 1: M tiles overlap by 8 rows and C is stored in sector-aligned windows
#endif

#include "f1_simt_detail.cuh"

namespace f1 {

constexpr int kWarpsM = BM / WM;
constexpr int kWarpsN = BN / WN;
constexpr int kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kLanesM = WM / TM;  // lane grid of a warp: kLanesM x kLanesN = 32
constexpr int kLanesN = WN / TN;
constexpr int kStrideA = BM + PAD;  // floats per shared k row
constexpr int kStrideB = BN + PAD;
constexpr int kStageA = BK * kStrideA;  // floats per stage
constexpr int kStageB = BK * kStrideB;
constexpr bool kDirectA = TRANS_A == 0;  // A is M-contiguous: copies straight in
constexpr bool kDirectB = TRANS_B == 1;  // B stored n x k is N-contiguous: copies straight in
// Loaders with many copies per thread recompute their offsets each tile rather than hold them
// (see load_transposed): those with >= 16 copies next to 128 accumulators, and those with >= 8
// when __launch_bounds__ caps registers at 128 and the two loaders issue >= 16 copies.
constexpr int kCopiesA = kDirectA ? BM * BK / (kThreads * ALIGN) : BM * BK / kThreads;
constexpr int kCopiesB = kDirectB ? BN * BK / (kThreads * ALIGN) : BN * BK / kThreads;
constexpr bool kRegCap128 = 65536 / (kThreads * MIN_BLOCKS) <= 128;
constexpr bool kRecomputeA = (TM * TN >= 128 && kCopiesA >= 16) ||
                             (kRegCap128 && kCopiesA >= 8 && kCopiesA + kCopiesB >= 16);
constexpr bool kRecomputeB = (TM * TN >= 128 && kCopiesB >= 16) ||
                             (kRegCap128 && kCopiesB >= 8 && kCopiesA + kCopiesB >= 16);

static_assert(BM % WM == 0 && BN % WN == 0, "warp tile must divide the block tile");
static_assert(WM % TM == 0 && WN % TN == 0 && kLanesM * kLanesN == 32, "32 lanes per warp");
static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are built from 4x4 sub-tiles");
static_assert(kThreads >= 32 && kThreads <= 1024, "threads per block");
static_assert(STAGES >= 2, "at least a double buffer");
static_assert(PAD % 4 == 0, "shared rows must stay 16-byte aligned");
static_assert(ALIGN == 1 || ALIGN == 2 || ALIGN == 4, "alignment class");
static_assert(SPLITK >= 1 && RASTER >= 1 && MIN_BLOCKS >= 1, "knob ranges");
static_assert(REDUCE == 0 || REDUCE == 1, "REDUCE is 0 or 1");
static_assert(XCHG == 0 || (XCHG == 1 && (kLanesM == 4 || kLanesM == 8)),
              "XCHG is 0, or 1 with 4 or 8 lanes along M");
static_assert(CWIN == 0 || (CWIN == 1 && SPLITK == 1 && XCHG == 0 && BM % 8 == 0),
              "CWIN is 0, or 1 without a split or the exchange");

// Where the next K tile of A and B comes from.
struct TileSource {
  const float* a;  // A at (m0, tile k0) in the operand's own layout
  const float* b;  // B at (tile k0, n0)
  int k_rem;       // K elements left from tile k0 to the end of this split
  bool m_full;     // block tile lies inside M
  bool n_full;     // ... and inside N
};

// Issues the cp.async copies of one K tile of A and B into one stage (no commit); only tail tiles
// (past M, N or K) take the predicated, zero-filling path.
__device__ __forceinline__ void load_stage(unsigned sa, unsigned sb, const TileSource& src,
                                           const SgemmArgs& args, int m_rem, int n_rem) {
  // Each operand's copies take the unpredicated path where its own tile is whole.
  const bool a_full = src.m_full && src.k_rem >= BK, b_full = src.n_full && src.k_rem >= BK;
  if constexpr (kDirectA)
    load_direct<BM, BK, ALIGN, kThreads, kStrideA, kRecomputeA>(sa, src.a, args.lda, m_rem,
                                                                src.k_rem, a_full);
  else
    load_transposed<BM, BK, kThreads, kStrideA, kRecomputeA>(sa, src.a, args.lda, m_rem, src.k_rem,
                                                             a_full);
  if constexpr (kDirectB)
    load_direct<BN, BK, ALIGN, kThreads, kStrideB, kRecomputeB>(sb, src.b, args.ldb, n_rem,
                                                                src.k_rem, b_full);
  else
    load_transposed<BN, BK, kThreads, kStrideB, kRecomputeB>(sb, src.b, args.ldb, n_rem, src.k_rem,
                                                             b_full);
}

// Fragments of one k row from the stage at shared addresses sa, sb (this thread's a_off, b_off
// included): sub-tile i of A covers rows a_off + i*4*kLanesM .. +3 (one LDS.128; the lanes of a
// warp read at most 8 distinct, contiguous float4s: conflict-free).
__device__ __forceinline__ void load_frags(unsigned sa, unsigned sb, int kk, float (&fa)[TM],
                                           float (&fb)[TN]) {
#pragma unroll
  for (int i = 0; i < TM / 4; ++i) {
    const float4 v = lds128(sa + 4u * static_cast<unsigned>(kk * kStrideA + i * 4 * kLanesM));
    fa[4 * i] = v.x, fa[4 * i + 1] = v.y, fa[4 * i + 2] = v.z, fa[4 * i + 3] = v.w;
  }
#pragma unroll
  for (int j = 0; j < TN / 4; ++j) {
    const float4 v = lds128(sb + 4u * static_cast<unsigned>(kk * kStrideB + j * 4 * kLanesN));
    fb[4 * j] = v.x, fb[4 * j + 1] = v.y, fb[4 * j + 2] = v.z, fb[4 * j + 3] = v.w;
  }
}

__device__ __forceinline__ void outer_product(const float (&fa)[TM], const float (&fb)[TN],
                                              float (&acc)[TM][TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
  }
}

}  // namespace f1

namespace f1 {

// The K loop (`advance` moves src to the next K tile): tiles 0..STAGES-2 in flight first (one commit group each; empty groups keep the
// count), then one tile computed per step while the next is copied. Before the wait for tile t,
// (STAGES - 1) + t groups are committed; wait_group(STAGES - 2) therefore guarantees that tile t
// has landed.
template <class Advance>
__device__ __forceinline__ void mainloop(unsigned sa0, unsigned sb0, TileSource& src, Advance&& advance,
                                         const SgemmArgs& args, int m_rem, int n_rem, int ktiles,
                                         int a_off, int b_off, float (&acc)[TM][TN]) {
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ktiles) {
      load_stage(sa0 + 4u * s * kStageA, sb0 + 4u * s * kStageB, src, args, m_rem, n_rem);
      advance();
    }
    cp_async_commit();
  }
  int read_stage = 0;
  int write_stage = STAGES - 1;
  int next_tile = STAGES - 1;
#if REGDB
  float fa[2][TM], fb[2][TN];
  cp_async_wait<STAGES - 2>();
  __syncthreads();
  const unsigned fa0 = sa0 + 4u * a_off, fb0 = sb0 + 4u * b_off;  // this thread's fragments
  if (ktiles > 0) load_frags(fa0, fb0, 0, fa[0], fb[0]);
  for (int t = 0; t < ktiles; ++t) {
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      if (kk == BK - 1) {
        // Tile t + 1 must be resident before its first fragments are read; the barrier also
        // retires every read of stage t - 1, which the copies issued at kk == 0 overwrite.
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
      }
      if (kk < BK - 1 || t + 1 < ktiles)
        load_frags(fa0 + 4u * read_stage * kStageA, fb0 + 4u * read_stage * kStageB, (kk + 1) % BK,
                   fa[(kk + 1) % 2], fb[(kk + 1) % 2]);
      if (kk == 0) {
        // Refill the stage read during tile t - 1 (all threads passed the barrier since).
        if (next_tile < ktiles) {
          load_stage(sa0 + 4u * write_stage * kStageA, sb0 + 4u * write_stage * kStageB, src,
                     args, m_rem, n_rem);
          advance();
        }
        cp_async_commit();
        write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
        ++next_tile;
      }
      outer_product(fa[kk % 2], fb[kk % 2], acc);
    }
  }
#else
  float fa[TM], fb[TN];
  for (int t = 0; t < ktiles; ++t) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // tile t visible to all; every read of stage t - 1 retired
    if (next_tile < ktiles) {
      load_stage(sa0 + 4u * write_stage * kStageA, sb0 + 4u * write_stage * kStageB, src,
                 args, m_rem, n_rem);
      advance();
    }
    cp_async_commit();
    write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
    ++next_tile;
    const unsigned sa = sa0 + 4u * (read_stage * kStageA + a_off);
    const unsigned sb = sb0 + 4u * (read_stage * kStageB + b_off);
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      load_frags(sa, sb, kk, fa, fb);
      outer_product(fa, fb, acc);
    }
    read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
  }
#endif
  cp_async_wait<0>();  // no copy may outlive the block (empty groups only, but be exact)
}

// Whether C's pointer and ldc allow float4 accesses at every run (rows from a multiple of 4).
__device__ __forceinline__ bool c_is_vector(const SgemmArgs& args) {
  return (reinterpret_cast<unsigned long long>(args.c) & 15) == 0 && args.ldc % 4 == 0;
}

// Epilogue: each thread owns (TM/4) x TN runs of 4 consecutive rows of one column, stored to C
// (alpha, beta applied, accesses of CV floats) or, for a split summed later, to its partial tile
// in the workspace.
template <int CV>
__device__ __forceinline__ void store_tile_as(const SgemmArgs& args, bool to_workspace, int m0,
                                              int n0, int a_off, int b_off,
                                              const float (&acc)[TM][TN]) {
  float* out;
  int ld;
  bool vec_ok = true;
  if (to_workspace) {
    // Partial tile of split z at workspace[z][n][m] (ld = m), summed later in split order.
    out = args.workspace + static_cast<size_t>(blockIdx.z) * args.m * args.n;
    ld = args.m;
    vec_ok = args.m % 4 == 0 && (reinterpret_cast<unsigned long long>(args.workspace) & 15) == 0;
  } else {
    out = args.c;
    ld = args.ldc;
  }
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const int col = n0 + b_off + (j / 4) * 4 * kLanesN + j % 4;
    if (col >= args.n) continue;
#pragma unroll
    for (int i = 0; i < TM / 4; ++i) {
      const int row = m0 + a_off + i * 4 * kLanesM;
      const int nvalid = args.m - row;
      if (nvalid <= 0) continue;
      float v[4] = {acc[4 * i][j], acc[4 * i + 1][j], acc[4 * i + 2][j], acc[4 * i + 3][j]};
      float* p = out + static_cast<long long>(col) * ld + row;
      if (to_workspace) {
        if (vec_ok)
          store4<4>(p, nvalid, v);
        else
          store4<1>(p, nvalid, v);
      } else {
        update4<CV>(p, nvalid, v, args.alpha, args.beta);
      }
    }
  }
}

#if XCHG
// Swaps bit D of a run's register index with bit L of the lane index, between the lanes that
// differ in bit L: a lane keeps the values whose two bits agree and trades the others.
template <int D, int L>
__device__ __forceinline__ void swap_run_bit(float (&v)[4], int lane) {
  const bool high = (lane & L) != 0;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if (k & D) continue;
    const float received = __shfl_xor_sync(0xffffffffu, high ? v[k] : v[k | D], L);
    if (high)
      v[k] = received;
    else
      v[k | D] = received;
  }
}

// Epilogue for a C (or partial tile) stored V floats at a time, V = 1 or 2. Run by run, the
// kLanesM lanes along M (4 rows each, 16 bytes apart) exchange values so that each store
// instruction writes kLanesM consecutive pieces of V rows (16-64 contiguous bytes of a column)
// instead of 2 floats in each of 4 sectors: V = 1 swaps both bits of a run's index with the top
// two lane bits, V = 2 keeps pairs and swaps only its pair bit with the top lane bit. Every lane
// takes part in every exchange; only the stores are predicated.
template <int V>
__device__ __forceinline__ void store_tile_exchanged(const SgemmArgs& args, bool to_workspace,
                                                     int m0, int n0, int a_off, int b_off,
                                                     const float (&acc)[TM][TN]) {
  static_assert(V == 1 || V == 2, "the exchange serves scalar and float2 stores");
  constexpr int kTop = kLanesM / 2;          // the top lane bit
  constexpr int kLow = kTop / (V == 1 ? 2 : 1);  // the lowest lane bit swapped
  const int lane = static_cast<int>(threadIdx.x) % 32 % kLanesM;
  // After the swaps the lane bits from kLow up hold the low row bits of a piece (V = 1: row bits
  // 0-1; V = 2: pair bit 0), the bits below kLow the next ones: the piece this lane stores.
  const int piece = lane / kLow % (kLanesM / kLow) + (kLanesM / kLow) * (lane % kLow);
  const int row_base = m0 + a_off - 4 * lane + V * piece;
  float* const out =
      to_workspace ? args.workspace + static_cast<size_t>(blockIdx.z) * args.m * args.n : args.c;
  const int ld = to_workspace ? args.m : args.ldc;
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const int col = n0 + b_off + (j / 4) * 4 * kLanesN + j % 4;
#pragma unroll
    for (int i = 0; i < TM / 4; ++i) {
      float v[4] = {acc[4 * i][j], acc[4 * i + 1][j], acc[4 * i + 2][j], acc[4 * i + 3][j]};
      if constexpr (V == 1) swap_run_bit<1, kLow>(v, lane);
      swap_run_bit<2, kTop>(v, lane);
      if (col >= args.n) continue;
#pragma unroll
      for (int t = 0; t < 4 / V; ++t) {
        const int row = row_base + i * 4 * kLanesM + t * V * kLanesM;
        const int nvalid = args.m - row;
        if (nvalid <= 0) continue;
        float* const p = out + static_cast<long long>(col) * ld + row;
        float w[V];
#pragma unroll
        for (int u = 0; u < V; ++u) w[u] = to_workspace ? v[V * t + u] : args.alpha * v[V * t + u];
        if (V == 2 && nvalid >= 2) {
          if (!to_workspace && args.beta != 0.0f) {
            const float2 old = *reinterpret_cast<const float2*>(p);
            w[0] = fmaf(args.beta, old.x, w[0]), w[V - 1] = fmaf(args.beta, old.y, w[V - 1]);
          }
          *reinterpret_cast<float2*>(p) = make_float2(w[0], w[V - 1]);
        } else {
          if (!to_workspace && args.beta != 0.0f) w[0] = fmaf(args.beta, *p, w[0]);
          *p = w[0];
        }
      }
    }
  }
}
#endif

#if CWIN
// C at a ldc that is not a multiple of 4, stored in windows that start on 32-byte sectors. M tiles
// are kStepM = BM - 8 rows apart, so each overlaps the next by 8 rows, and column j of M tile b
// stores rows [b * kStepM + t_j, (b + 1) * kStepM + t_j): t_j < 8 is the distance from the tile's
// first row to a sector boundary, the same in every tile of the column (kStepM is a multiple of 8).
// The first tile also stores rows [0, t_j), the last those up to M. Every float4 store then fills
// half a sector and every sector has one writer, where stores straight from the register tiles
// write a sector in passes, from several lanes and blocks. The tile goes through shared memory,
// each column shifted there so that its window starts on a 16-byte boundary too.
constexpr int kStepM = BM - 8;   // rows between the first rows of consecutive M tiles
constexpr int kStrideC = BM + 4;  // floats per staged column: the tile and its shift (< 4)
constexpr int kSlotsC = BM / 4;   // float4 slots of a staged column

// M tiles that cover m rows, kStepM apart.
__device__ __forceinline__ int windowed_tiles_m(int m) {
  return m <= BM ? 1 : 1 + (m - BM + kStepM - 1) / kStepM;
}

// Rows from row m0 of column col to the next 32-byte boundary of C (m0 a multiple of 8). Only the
// low bits of the float index matter, so 32-bit arithmetic that wraps is exact.
__device__ __forceinline__ int window_start(const SgemmArgs& args, int col, int m0) {
  const unsigned first = static_cast<unsigned>(reinterpret_cast<unsigned long long>(args.c) / 4) +
                         static_cast<unsigned>(col) * static_cast<unsigned>(args.ldc) +
                         static_cast<unsigned>(m0);
  return static_cast<int>((8u - first % 8u) % 8u);
}

__device__ __forceinline__ void store_window_scalar(const SgemmArgs& args, float* p, float v) {
  *p = args.beta != 0.0f ? fmaf(args.beta, *p, v) : v;
}

__device__ __forceinline__ void store_tile_windowed(const SgemmArgs& args, float* cs, int m0,
                                                    int n0, bool first_m, bool last_m, int a_off,
                                                    int b_off, const float (&acc)[TM][TN]) {
  __syncthreads();  // every warp is done with the pipeline's stages, which hold the tile now
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const int c = b_off + (j / 4) * 4 * kLanesN + j % 4;
    float* const column = cs + c * kStrideC + (4 - window_start(args, n0 + c, m0) % 4) % 4;
#pragma unroll
    for (int i = 0; i < TM; ++i)
      column[a_off + (i / 4) * 4 * kLanesM + i % 4] = args.alpha * acc[i][j];
  }
  __syncthreads();
  const int rows = min(BM, args.m - m0);  // rows of the tile inside C
  const int tid = static_cast<int>(threadIdx.x);
  for (int idx = tid; idx < BN * kSlotsC; idx += kThreads) {
    const int c = idx / kSlotsC, col = n0 + c;
    if (col >= args.n) continue;
    const int t = window_start(args, col, m0);
    const int row = t + 4 * (idx % kSlotsC);
    const int end = last_m ? rows : min(kStepM + t, rows);  // this tile's window: [t, end)
    if (row >= end) continue;
    const float* const staged = cs + c * kStrideC + (4 - t % 4) % 4 + row;
    float* const p = args.c + static_cast<long long>(col) * args.ldc + m0 + row;
    if (row + 4 <= end) {
      float4 v = *reinterpret_cast<const float4*>(staged);  // p is 16-byte aligned
      if (args.beta != 0.0f) {
        const float4 old = *reinterpret_cast<const float4*>(p);
        v = make_float4(fmaf(args.beta, old.x, v.x), fmaf(args.beta, old.y, v.y),
                        fmaf(args.beta, old.z, v.z), fmaf(args.beta, old.w, v.w));
      }
      *reinterpret_cast<float4*>(p) = v;
    } else {
      for (int r = 0; r < end - row; ++r) store_window_scalar(args, p + r, staged[r]);
    }
  }
  if (!first_m) return;
  // The first M tile also stores the rows before its window, [0, t) of each column.
  for (int idx = tid; idx < BN * 8; idx += kThreads) {
    const int c = idx / 8, row = idx % 8, col = n0 + c;
    if (col >= args.n) continue;
    const int t = window_start(args, col, 0);
    if (row < t && row < rows)
      store_window_scalar(args, args.c + static_cast<long long>(col) * args.ldc + row,
                          cs[c * kStrideC + (4 - t % 4) % 4 + row]);
  }
}
#endif

// The problem's class ALIGN is that of its least aligned operand: C itself may be 16-byte aligned
// (an odd ldb or lda alone makes the class 1), and then takes float4 accesses, whose 8 lanes along
// M fill whole sectors, where narrower ones write each sector in passes. The choice is made once
// per tile, not per run, so that the class's own path compiles as it would alone; with a ldc that
// rules float4 out (C_LD4 = 0, from the problem key) only that path is compiled. XCHG replaces
// the narrow path by the lane exchange (a partial tile in the workspace too, when m rules float4
// out there).
__device__ __forceinline__ void store_tile(const SgemmArgs& args, bool to_workspace, int m0, int n0,
                                           int a_off, int b_off, const float (&acc)[TM][TN]) {
  if (ALIGN < 4 && C_LD4 && !to_workspace && c_is_vector(args))
    store_tile_as<4>(args, false, m0, n0, a_off, b_off, acc);
#if XCHG
  else if (!to_workspace || args.m % 4 != 0 ||
           (reinterpret_cast<unsigned long long>(args.workspace) & 15) != 0)
    // A partial tile's ld is m, which may be odd: it takes single floats.
    if (to_workspace || ALIGN != 2)
      store_tile_exchanged<1>(args, to_workspace, m0, n0, a_off, b_off, acc);
    else
      store_tile_exchanged<2>(args, false, m0, n0, a_off, b_off, acc);
#endif
  else
    store_tile_as<ALIGN>(args, to_workspace, m0, n0, a_off, b_off, acc);
}

}  // namespace f1

extern "C" __global__ void __launch_bounds__(f1::kThreads, MIN_BLOCKS) sgemm_main(SgemmArgs args) {
  using namespace f1;
  allow_dependent_launch();  // sgemm_reduce, when there is one
  extern __shared__ float4 f1_smem[];
  float* const As = reinterpret_cast<float*>(f1_smem);  // [STAGES][BK][kStrideA]
  float* const Bs = As + STAGES * kStageA;              // [STAGES][BK][kStrideB]
  const unsigned sa0 = smem_addr(As), sb0 = smem_addr(Bs);

#if CWIN
  const int tiles_m = windowed_tiles_m(args.m);
#else
  const int tiles_m = (args.m + BM - 1) / BM;
#endif
  const int tiles_n = (args.n + BN - 1) / BN;
  int tile_m, tile_n;
  raster_tile<RASTER>(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tile_m, tile_n);
#if CWIN
  const int m0 = tile_m * kStepM, n0 = tile_n * BN;
#else
  const int m0 = tile_m * BM, n0 = tile_n * BN;
#endif
  const int m_rem = args.m - m0, n_rem = args.n - n0;

  // This block's K range: all of K, or slice blockIdx.z of a split.
  int k_begin = 0, k_end = args.k;
  if (SPLITK > 1 && args.k_splits > 1) {
    k_begin = static_cast<int>(blockIdx.z) * args.k_slice;
    k_end = min(args.k, k_begin + args.k_slice);
  }
  const int ktiles = k_end > k_begin ? (k_end - k_begin + BK - 1) / BK : 0;

  TileSource src;
  src.a = kDirectA ? args.a + m0 + static_cast<long long>(k_begin) * args.lda
                        : args.a + k_begin + static_cast<long long>(m0) * args.lda;
  src.b = kDirectB ? args.b + n0 + static_cast<long long>(k_begin) * args.ldb
                        : args.b + k_begin + static_cast<long long>(n0) * args.ldb;
  src.k_rem = k_end - k_begin;
  src.m_full = m_rem >= BM;
  src.n_full = n_rem >= BN;
  const long long step_a = kDirectA ? static_cast<long long>(BK) * args.lda : BK;
  const long long step_b = kDirectB ? static_cast<long long>(BK) * args.ldb : BK;

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int a_off = (warp % kWarpsM) * WM + (lane % kLanesM) * 4;
  const int b_off = (warp / kWarpsM) * WN + (lane / kLanesM) * 4;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  }
  auto advance = [&]() {
    src.a += step_a;
    src.b += step_b;
    src.k_rem -= BK;
  };
  mainloop(sa0, sb0, src, advance, args, m_rem, n_rem, ktiles, a_off, b_off, acc);

  // In-kernel split-K: only the last split of the tile to arrive goes on, with the sum of all.
  const bool split = SPLITK > 1 && args.k_splits > 1;
  if (REDUCE && split && !PartialTile<TM, TN, kThreads>::reduce_splits(args, acc)) return;
#if CWIN
  store_tile_windowed(args, As, m0, n0, tile_m == 0, tile_m == tiles_m - 1, a_off, b_off, acc);
#else
  store_tile(args, !REDUCE && split, m0, n0, a_off, b_off, acc);
#endif
}

#if SPLITK > 1 && !REDUCE
// Partial sums a thread of sgemm_reduce loads at once: one split at a time, a deep split (16-64)
// would wait out one L2 round trip per split.
constexpr int kReduceBatch = 8;

// Sums the k_splits partial products and applies alpha and beta once. A block is blockDim.x runs
// of 4 rows of one column (grid-stride) by blockDim.y (a power of two) groups of splits: group g
// sums splits g, g + blockDim.y, ... in order, then a fixed tree in shared memory adds the groups,
// so the result does not depend on timing. Small outputs split deep thus still fill the GPU.
extern "C" __global__ void __launch_bounds__(256) sgemm_reduce(SgemmArgs args) {
  using namespace f1;
  wait_for_prior_grid();  // sgemm_main's partial sums
  __shared__ float4 group_sums[256];
  const int rx = static_cast<int>(blockDim.x), rz = static_cast<int>(blockDim.y);
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int m = args.m, splits = args.k_splits;
  const unsigned runs_per_col = static_cast<unsigned>(m + 3) / 4;
  const unsigned runs = runs_per_col * static_cast<unsigned>(args.n);  // m*n < 2^31
  const size_t split_stride = static_cast<size_t>(m) * args.n;
  const bool c_vec = c_is_vector(args);
  const bool ws_vec =
      m % 4 == 0 && (reinterpret_cast<unsigned long long>(args.workspace) & 15) == 0;
  // The loop bound is the same in every thread of a block: all of them reach the barriers.
  for (unsigned first = blockIdx.x * rx; first < runs; first += gridDim.x * rx) {
    const unsigned r = first + tx;
    const int col = static_cast<int>(r / runs_per_col);
    const int row = static_cast<int>(r % runs_per_col) * 4;
    const int nvalid = m - row;
    float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (r < runs) {
      const float* w = args.workspace + static_cast<size_t>(col) * m + row;
      for (int z0 = ty; z0 < splits; z0 += kReduceBatch * rz) {
        float part[kReduceBatch][4];
#pragma unroll
        for (int u = 0; u < kReduceBatch; ++u) {
          const int z = z0 + u * rz;
          if (z >= splits) break;
          if (ws_vec)
            load4<4>(w + z * split_stride, nvalid, part[u]);
          else
            load4<1>(w + z * split_stride, nvalid, part[u]);
        }
#pragma unroll
        for (int u = 0; u < kReduceBatch; ++u) {
          if (z0 + u * rz >= splits) break;
#pragma unroll
          for (int q = 0; q < 4; ++q) sum[q] += part[u][q];
        }
      }
    }
    group_sums[ty * rx + tx] = make_float4(sum[0], sum[1], sum[2], sum[3]);
    for (int h = rz / 2; h > 0; h /= 2) {
      __syncthreads();
      if (ty < h) {
        const float4 a = group_sums[ty * rx + tx], b = group_sums[(ty + h) * rx + tx];
        group_sums[ty * rx + tx] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
      }
    }
    if (ty == 0 && r < runs) {
      const float4 t = group_sums[tx];
      float total[4] = {t.x, t.y, t.z, t.w};
      float* const p = args.c + static_cast<long long>(col) * args.ldc + row;
      if (ALIGN < 4 && C_LD4 && c_vec)
        update4<4>(p, nvalid, total, args.alpha, args.beta);
      else
        update4<ALIGN>(p, nvalid, total, args.alpha, args.beta);
    }
    __syncthreads();  // group_sums is written again for the next runs
  }
}
#endif
