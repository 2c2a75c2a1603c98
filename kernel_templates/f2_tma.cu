// Family F2: TMA-fed SIMT SGEMM (sm_90). One thread issues cp.async.bulk.tensor copies of the A
// and B tiles into a ring of STAGES shared stages, each guarded by an mbarrier that counts the
// bytes landing; all warps compute WM x WN warp tiles with FFMA from 128-bit shared loads. TMA
// zero-fills whatever lies outside the operand, so no load is predicated; only the epilogue is.
//
// Shared layouts follow the operands' global layouts (TMA copies boxes, it does not transpose):
//   - an M- (or N-) contiguous operand lands as [BK][BX], dense; a thread reads 4 consecutive
//     rows of one k per 128-bit load (as in F1);
//   - a K-contiguous operand lands as [BX][BK] with the TMA swizzle of its row size (BK * 4
//     bytes: 32, 64 or 128), which spreads the 16-byte chunks of 8 consecutive rows over all
//     banks; a thread reads 4 consecutive k of one row per 128-bit load, and owns rows
//     kLanes apart so that the lanes of a warp read consecutive rows (conflict-free); such an
//     operand is streamed a row at a time against the other's 4 k held in registers.
// The host encodes one tensor map per operand per launch (src/cuda/tensor_map.cpp) and passes
// them after SgemmArgs as __grid_constant__ parameters.
//
// For problems with too few tiles to fill the GPU, K is shared out in the same launch, two ways:
//   - SPLITK > 1 splits K over blockIdx.z: each split stores its partial tile to the workspace and
//     the last split of a tile to arrive sums them all in split order (deterministic), writes C;
//   - STREAMK > 0 (stream-K) launches a persistent grid whose blocks take equal shares of all the
//     tiles' K iterations, tile after tile through one ring; a tile shared by several blocks is
//     summed the same way, in block order, by the last of them to arrive.
#include "grid_dependency.cuh"
#include "sgemm_args.h"
#include "split_k_serial.cuh"

// ---- Knobs (host side: src/space/families/f2_tma.cpp). Defaults: a 128x128x32 tile. ---------
#ifndef BM
#define BM 128  // block tile rows (M)
#endif
#ifndef BN
#define BN 128  // block tile columns (N)
#endif
#ifndef BK
#define BK 32  // K depth of one stage: 8, 16 or 32 (a K-contiguous row of 32, 64 or 128 bytes)
#endif
#ifndef WM
#define WM 32  // warp tile rows
#endif
#ifndef WN
#define WN 64  // warp tile columns
#endif
#ifndef TM
#define TM 8  // thread tile rows
#endif
#ifndef TN
#define TN 8  // thread tile columns
#endif
#ifndef STAGES
#define STAGES 4  // TMA ring depth: tiles in flight while one is computed: STAGES - 1
#endif
#ifndef RASTER
#define RASTER 1  // N tiles per rasterization group (L2 locality)
#endif
#ifndef SPLITK
#define SPLITK 1  // K splits at most (>1: partial tiles to the workspace, summed by the last split)
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1  // __launch_bounds__ minimum blocks per SM: a register cap of 64K / (threads x it)
#endif
#ifndef STREAMK
#define STREAMK 0  // >0: stream-K over a persistent grid (the host sizes it: STREAMK blocks per SM)
#endif
// Problem class, from the ProblemKey. TMA needs 16-byte aligned A and B (the host copies them
// aligned when they are not: PACK = 1); C is written in place at its own alignment class.
// TRANS_A and TRANS_B are the layouts sgemm_main reads: with PACK = 2 the host copies K-contiguous
// operands transposed (sgemm_pack_transposed) and compiles for the copies (TRANS_A 0, TRANS_B 1).
#ifndef ALIGN_C
#define ALIGN_C 4  // widest vector (floats) C and ldc allow: 4, 2 or 1
#endif
#ifndef TRANS_A
#define TRANS_A 0
#endif
#ifndef TRANS_B
#define TRANS_B 0
#endif

#include "f1_simt_detail.cuh"  // lds128, update4, raster_tile

// A CUtensorMap as the kernel sees it: 128 opaque bytes, 64-byte aligned.
struct alignas(64) TmaMap {
  unsigned long long opaque[16];
};

namespace f2 {

constexpr int kWarpsM = BM / WM;
constexpr int kWarpsN = BN / WN;
constexpr int kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kLanesM = WM / TM;  // lane grid of a warp: kLanesM x kLanesN = 32
constexpr int kLanesN = WN / TN;
constexpr bool kKContigA = TRANS_A == 1;  // A stored k x m: each row of op(A) is K-contiguous
constexpr bool kKContigB = TRANS_B == 0;  // B stored k x n: each column of op(B) is K-contiguous
constexpr int kStageA = BM * BK;          // floats per stage
constexpr int kStageB = BN * BK;
constexpr unsigned kStageBytes = 4u * (kStageA + kStageB);  // what one stage's barrier counts
constexpr int kRowBytes = BK * 4;  // one K-contiguous row: the swizzle span

static_assert(BM % WM == 0 && BN % WN == 0, "warp tile must divide the block tile");
static_assert(WM % TM == 0 && WN % TN == 0 && kLanesM * kLanesN == 32, "32 lanes per warp");
static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are built from groups of 4");
static_assert(BK == 8 || BK == 16 || BK == 32, "a K-contiguous row is one TMA swizzle span");
static_assert(kStageA * 4 % 1024 == 0 && kStageB * 4 % 1024 == 0,
              "stages keep the 1024-byte alignment the swizzle pattern repeats on");
static_assert(STAGES >= 2, "at least a double buffer");
static_assert(ALIGN_C == 1 || ALIGN_C == 2 || ALIGN_C == 4, "alignment class");
static_assert(SPLITK >= 1 && RASTER >= 1 && STREAMK >= 0, "knob ranges");
static_assert(STREAMK == 0 || SPLITK == 1, "stream-K and split-K share out K in different ways");
static_assert(WM % 8 == 0 && WN % 8 == 0 && kLanesM >= 4 && kLanesN >= 4,
              "a thread's first row is its lane index mod 8 (kcontig_addr)");

// ---- mbarrier and TMA (PTX ISA 8.0, sm_90) --------------------------------------------------
__device__ __forceinline__ void barrier_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Makes the initialized barriers visible to the async (TMA) proxy.
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// The issuing thread's arrival, announcing the bytes the copies of this phase will deliver.
__device__ __forceinline__ void arrive_expect_bytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void wait_phase(unsigned bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}
// One box of a 2-D tensor map into shared memory; completion is counted on the barrier.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TmaMap& map, int inner, int outer,
                                            unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(&map)), "r"(inner), "r"(outer), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void prefetch_map(const TmaMap& map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(&map))
               : "memory");
}

// The TMA swizzle of a K-contiguous stage: 16-byte chunk c of row r lands at chunk
// c ^ phase(r & 7), where phase XORs address bits [7, ...) into bits [4, ...) (CUTLASS's
// Swizzle<log2(kRowBytes/16), 4, 3>; the pattern repeats every 8 rows).
__host__ __device__ constexpr unsigned swizzle_phase(unsigned row_mod_8) {
  return ((row_mod_8 * kRowBytes) >> 7) & (kRowBytes / 16 - 1);
}

// Address of k group q of the thread's i-th row (x0 + i * LANES) of a K-contiguous stage. The
// thread's first row x0 has x0 % 8 = its lane index (< LANES, a power of two), so the row's phase
// splits into the lane's part (`lane_phase`, computed once) and a compile-time part from i: with
// the loops unrolled the whole offset from `row0` is one XOR and immediates, rather than an address
// register per (i, q) kept live across the k loop.
template <int LANES>
__device__ __forceinline__ unsigned kcontig_addr(unsigned row0, int i, int q, unsigned lane_phase) {
  const unsigned rows = static_cast<unsigned>(i * LANES);
  const unsigned chunk = (static_cast<unsigned>(q) ^ swizzle_phase(rows % 8)) ^ lane_phase;
  return row0 + rows * kRowBytes + 16u * chunk;
}

// One 128-bit shared load: 4 floats of the stage at float offset (or swizzled byte offset).
__device__ __forceinline__ void lds4(unsigned addr, float (&f)[4]) {
  const float4 v = f1::lds128(addr);
  f[0] = v.x, f[1] = v.y, f[2] = v.z, f[3] = v.w;
}

// Fragments of k row `k` of an X-contiguous stage [BK][BX]: TX values in runs of 4, LANES * 4
// apart, from the thread's first row x0.
template <int TX, int BX, int LANES>
__device__ __forceinline__ void load_row(unsigned stage, int x0, int k, float (&f)[TX]) {
#pragma unroll
  for (int i = 0; i < TX / 4; ++i) {
    float v[4];
    lds4(stage + 4u * static_cast<unsigned>(k * BX + x0 + i * 4 * LANES), v);
    f[4 * i] = v[0], f[4 * i + 1] = v[1], f[4 * i + 2] = v[2], f[4 * i + 3] = v[3];
  }
}

// Fragments of k group q (k = 4q .. 4q+3) of either layout: f[kk][i] for the thread's TX rows.
// K-contiguous: `row0` is the stage address of the thread's first row (see kcontig_addr).
template <bool K_CONTIG, int TX, int BX, int LANES>
__device__ __forceinline__ void load_group(unsigned stage, unsigned row0, unsigned lane_phase,
                                           int x0, int q, float (&f)[4][TX]) {
  if constexpr (K_CONTIG) {
#pragma unroll
    for (int i = 0; i < TX; ++i) {
      float v[4];
      lds4(kcontig_addr<LANES>(row0, i, q, lane_phase), v);
      f[0][i] = v[0], f[1][i] = v[1], f[2][i] = v[2], f[3][i] = v[3];
    }
  } else {
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) load_row<TX, BX, LANES>(stage, x0, 4 * q + kk, f[kk]);
  }
}

// acc += the products of k group q of the stages at sa, sb. Every accumulator sums its k in
// increasing order whatever the layouts. Registers decide the loop order: a K-contiguous operand
// yields 4 k of one row per load, so it is streamed one row (column) at a time against the
// other operand's 4 k held in registers; two X-contiguous operands go one k at a time, as in F1.
// Where this thread reads each stage: its first row of A and column of B, and for K-contiguous
// operands the byte offset of that row and its swizzle phase.
struct FragOrigin {
  int a0, b0;
  unsigned a_row, b_row;        // x0 * kRowBytes (K-contiguous operands only)
  unsigned a_phase, b_phase;    // swizzle_phase(x0 % 8)
};

__device__ __forceinline__ void mma_group(unsigned sa, unsigned sb, const FragOrigin& o, int q,
                                          float (&acc)[TM][TN]) {
  if constexpr (kKContigB) {
    float fa[4][TM];
    load_group<kKContigA, TM, BM, kLanesM>(sa, sa + o.a_row, o.a_phase, o.a0, q, fa);
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      float b[4];
      lds4(kcontig_addr<kLanesN>(sb + o.b_row, j, q, o.b_phase), b);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
        for (int i = 0; i < TM; ++i) acc[i][j] = fmaf(fa[kk][i], b[kk], acc[i][j]);
      }
    }
  } else if constexpr (kKContigA) {
    float fb[4][TN];
    load_group<false, TN, BN, kLanesN>(sb, 0, 0, o.b0, q, fb);
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      float a[4];
      lds4(kcontig_addr<kLanesM>(sa + o.a_row, i, q, o.a_phase), a);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[kk], fb[kk][j], acc[i][j]);
      }
    }
  } else {
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      float fa[TM], fb[TN];
      load_row<TM, BM, kLanesM>(sa, o.a0, 4 * q + kk, fa);
      load_row<TN, BN, kLanesN>(sb, o.b0, 4 * q + kk, fb);
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(fa[i], fb[j], acc[i][j]);
      }
    }
  }
}

// Row (column) of the operand tile that the thread's fragment element i stands for.
template <bool K_CONTIG, int LANES>
__device__ __forceinline__ int frag_index(int x0, int i) {
  return K_CONTIG ? x0 + i * LANES : x0 + (i / 4) * 4 * LANES + i % 4;
}

// C from the thread's fragments, 4 rows at a time: values(i, j, v) yields fragment rows i..i+3 of
// fragment column j. C is column-major. Rows in runs of 4 (X-contiguous A) take the widest
// accesses C's alignment allows (ALIGN_C); rows kLanesM apart (K-contiguous A) take scalar ones,
// which the lanes of a warp still cover as consecutive rows.
template <class Values>
__device__ __forceinline__ void write_c(const SgemmArgs& args, int m0, int n0, int a0, int b0,
                                        Values values) {
#pragma unroll
  for (int j = 0; j < TN; ++j) {
    const int col = n0 + frag_index<kKContigB, kLanesN>(b0, j);
    if (col >= args.n) continue;
    float* const c_col = args.c + static_cast<long long>(col) * args.ldc;
#pragma unroll
    for (int i = 0; i < TM; i += 4) {
      float v[4];
      values(i, j, v);
      if constexpr (!kKContigA) {
        const int row = m0 + frag_index<false, kLanesM>(a0, i);
        if (row < args.m) f1::update4<ALIGN_C>(c_col + row, args.m - row, v, args.alpha, args.beta);
      } else {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int row = m0 + frag_index<true, kLanesM>(a0, i + r);
          if (row >= args.m) continue;
          float one[4] = {v[r], 0.0f, 0.0f, 0.0f};
          f1::update4<1>(c_col + row, 1, one, args.alpha, args.beta);
        }
      }
    }
  }
}

using Partials = PartialTile<TM, TN, kThreads>;

__device__ __forceinline__ void write_acc(const SgemmArgs& args, int m0, int n0, int a0, int b0,
                                          const float (&acc)[TM][TN]) {
  write_c(args, m0, n0, a0, b0, [&](int i, int j, float (&v)[4]) {
    v[0] = acc[i][j], v[1] = acc[i + 1][j], v[2] = acc[i + 2][j], v[3] = acc[i + 3][j];
  });
}

// Split-K epilogue: the last split of the tile to arrive writes the sum of all splits to C.
__device__ __forceinline__ void reduce_splits(const SgemmArgs& args, int m0, int n0, int a0, int b0,
                                              float (&acc)[TM][TN]) {
  if (Partials::reduce_splits(args, acc)) write_acc(args, m0, n0, a0, b0, acc);
}

// Stream-K: T = tiles * kt iterations (a tile's kt K tiles, tile after tile), block b of the G in
// the grid running [start(b), start(b + 1)). A block's range covers whole tiles except possibly its
// first and last, so each block holds at most two partial tiles: workspace slot 2b (the tile its
// range starts in) and 2b + 1 (the tile it ends in).
struct StreamK {
  long long total;
  int kt, grid;
  __device__ long long start(int b) const { return b * total / grid; }
  // The block whose range holds iteration i: the largest b with start(b) <= i.
  __device__ int block_of(long long i) const { return static_cast<int>(((i + 1) * grid - 1) / total); }
  __device__ int slot(int b, int tile) const { return 2 * b + (start(b) / kt == tile ? 0 : 1); }
};

// The end of this block's share of `tile` (iterations up to seg_end, from seg_begin): a tile it
// ran whole goes straight to C; otherwise its partial tile goes to its slot, and the last block of
// the tile to arrive sums all their slots in block order and writes C.
__device__ __forceinline__ void finish_stream_k_tile(const SgemmArgs& args, const StreamK& sk,
                                                     int tile, long long seg_begin,
                                                     long long seg_end, int m0, int n0, int a0,
                                                     int b0, float (&acc)[TM][TN]) {
  const long long tile_begin = static_cast<long long>(tile) * sk.kt;
  const long long tile_end = tile_begin + sk.kt;
  if (seg_begin == tile_begin && seg_end == tile_end) {
    write_acc(args, m0, n0, a0, b0, acc);
    return;
  }
  constexpr size_t kSlotFloats4 = Partials::kFloat4s;
  float4* const slots = reinterpret_cast<float4*>(args.workspace) + threadIdx.x;
  Partials::store(slots + sk.slot(static_cast<int>(blockIdx.x), tile) * kSlotFloats4, acc);
  const int b_lo = sk.block_of(tile_begin), b_hi = sk.block_of(tile_end - 1);
  if (!split_k_last_to_arrive(args.tile_counters + tile, b_hi - b_lo + 1)) return;
  Partials::sum(b_hi - b_lo + 1,
               [&](int z) { return slots + sk.slot(b_lo + z, tile) * kSlotFloats4; },
               acc);
  write_acc(args, m0, n0, a0, b0, acc);
}

// The shared ring of STAGES stages and their barriers, the operands' tensor maps, and where this
// thread reads each stage.
struct Ring {
  unsigned sa0, sb0, bar0;  // [STAGES] A stages, [STAGES] B stages, [STAGES] 8-byte mbarriers
  const TmaMap& map_a;
  const TmaMap& map_b;
  FragOrigin origin;

  // The boxes of the tile at (m0, n0), K tile from k0, into stage s: A and B at their origins in
  // each operand's own coordinates (inner dimension first). Issued by the producer thread alone.
  __device__ __forceinline__ void load_stage(int s, int m0, int n0, int k0) const {
    const unsigned bar = bar0 + 8u * s;
    arrive_expect_bytes(bar, kStageBytes);
    if constexpr (kKContigA)
      tma_load_2d(sa0 + 4u * s * kStageA, map_a, k0, m0, bar);
    else
      tma_load_2d(sa0 + 4u * s * kStageA, map_a, m0, k0, bar);
    if constexpr (kKContigB)
      tma_load_2d(sb0 + 4u * s * kStageB, map_b, k0, n0, bar);
    else
      tma_load_2d(sb0 + 4u * s * kStageB, map_b, n0, k0, bar);
  }

  // Iteration t of this block's ring: wait for stage t % STAGES, compute it, hand it back.
  __device__ __forceinline__ void compute_stage(int t, float (&acc)[TM][TN]) const {
    const int s = t % STAGES;
    wait_phase(bar0 + 8u * s, static_cast<unsigned>(t / STAGES) & 1u);
    const unsigned sa = sa0 + 4u * s * kStageA, sb = sb0 + 4u * s * kStageB;
#pragma unroll
    for (int q = 0; q < BK / 4; ++q) mma_group(sa, sb, origin, q, acc);
    __syncthreads();  // every read of stage s retired before TMA overwrites it
  }
};

__device__ __forceinline__ void clear(float (&acc)[TM][TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
  }
}

// Stream-K: this block's share of all the tiles' K iterations, tile after tile through the ring.
__device__ __forceinline__ void run_stream_k(const SgemmArgs& args, const Ring& ring, bool producer,
                                             int tiles_m, int tiles_n, float (&acc)[TM][TN]) {
  const int kt = (args.k + BK - 1) / BK;
  const StreamK sk{static_cast<long long>(tiles_m) * tiles_n * kt, kt,
                   static_cast<int>(gridDim.x)};
  const long long first = sk.start(static_cast<int>(blockIdx.x));
  const int count = static_cast<int>(sk.start(static_cast<int>(blockIdx.x) + 1) - first);
  // Local iteration t is global iteration first + t: K tile it % kt of tile it / kt.
  auto issue = [&](int t) {
    const long long it = first + t;
    const int tile = static_cast<int>(it / kt);
    int tile_m, tile_n;
    f1::raster_tile<RASTER>(tile, tiles_m, tiles_n, tile_m, tile_n);
    ring.load_stage(t % STAGES, tile_m * BM, tile_n * BN,
                    static_cast<int>(it - static_cast<long long>(tile) * kt) * BK);
  };
  if (producer) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s)
      if (s < count) issue(s);
  }
  long long seg_begin = first;  // where this block's share of the current tile began
  int tile = static_cast<int>(first / kt);
  long long tile_end = static_cast<long long>(tile + 1) * kt;  // no division in the loop
  for (int t = 0; t < count; ++t) {
    ring.compute_stage(t, acc);
    if (producer && t + STAGES < count) issue(t + STAGES);
    const long long it = first + t;
    if (it + 1 == tile_end || t + 1 == count) {
      int tile_m, tile_n;
      f1::raster_tile<RASTER>(tile, tiles_m, tiles_n, tile_m, tile_n);
      finish_stream_k_tile(args, sk, tile, seg_begin, it + 1, tile_m * BM, tile_n * BN,
                           ring.origin.a0, ring.origin.b0, acc);
      clear(acc);
      seg_begin = it + 1;
      ++tile;
      tile_end += kt;
    }
  }
}

// One tile per block: all of K, or slice blockIdx.z of a split (k_slice is a multiple of BK, so no
// tile reaches into the next slice; TMA zero-fills past K in the last one).
__device__ __forceinline__ void run_tile(const SgemmArgs& args, const Ring& ring, bool producer,
                                         int tiles_m, int tiles_n, float (&acc)[TM][TN]) {
  int tile_m, tile_n;
  f1::raster_tile<RASTER>(static_cast<int>(blockIdx.x), tiles_m, tiles_n, tile_m, tile_n);
  const int m0 = tile_m * BM, n0 = tile_n * BN;
  const bool split = SPLITK > 1 && args.k_splits > 1;
  const int k_begin = split ? static_cast<int>(blockIdx.z) * args.k_slice : 0;
  const int k_end = split ? min(args.k, k_begin + args.k_slice) : args.k;
  const int ktiles = (k_end - k_begin + BK - 1) / BK;
  if (producer) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s)
      if (s < ktiles) ring.load_stage(s, m0, n0, k_begin + s * BK);
  }
  for (int t = 0; t < ktiles; ++t) {
    ring.compute_stage(t, acc);
    if (producer && t + STAGES < ktiles)
      ring.load_stage(t % STAGES, m0, n0, k_begin + (t + STAGES) * BK);
  }
  if (SPLITK > 1 && split)
    reduce_splits(args, m0, n0, ring.origin.a0, ring.origin.b0, acc);
  else
    write_acc(args, m0, n0, ring.origin.a0, ring.origin.b0, acc);
}

}  // namespace f2

extern "C" __global__ void __launch_bounds__(f2::kThreads, MIN_BLOCKS)
    sgemm_main(SgemmArgs args, const __grid_constant__ TmaMap map_a,
               const __grid_constant__ TmaMap map_b) {
  using namespace f2;
  wait_for_prior_grid();  // sgemm_pack's copies, when the operands are packed
  extern __shared__ float4 f2_smem[];
  // The swizzle pattern repeats every 1024 bytes: stages start on such a boundary (the launch
  // asks for 1024 bytes more than the ring needs).
  const unsigned base = (static_cast<unsigned>(__cvta_generic_to_shared(f2_smem)) + 1023u) & ~1023u;
  const unsigned sb0 = base + 4u * STAGES * kStageA;
  const unsigned bar0 = sb0 + 4u * STAGES * kStageB;
  const int tiles_m = (args.m + BM - 1) / BM;
  const int tiles_n = (args.n + BN - 1) / BN;
  const bool producer = threadIdx.x == 0;
  if (producer) {
    prefetch_map(map_a);
    prefetch_map(map_b);
#pragma unroll
    for (int s = 0; s < STAGES; ++s) barrier_init(bar0 + 8u * s, 1);
    fence_barrier_init();
  }
  __syncthreads();  // barriers initialized before anyone waits on them

  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int lane_m = lane % kLanesM, lane_n = lane / kLanesM;
  // This thread's first row of the A tile and first column of the B tile (see frag_index).
  const int a0 = (warp % kWarpsM) * WM + (kKContigA ? lane_m : lane_m * 4);
  const int b0 = (warp / kWarpsM) * WN + (kKContigB ? lane_n : lane_n * 4);
  // Warp tiles start on multiples of 8 rows, so x0 % 8 is the lane index (kcontig_addr).
  const Ring ring = {base,
                     sb0,
                     bar0,
                     map_a,
                     map_b,
                     {a0, b0, static_cast<unsigned>(a0 * kRowBytes),
                      static_cast<unsigned>(b0 * kRowBytes),
                      swizzle_phase(static_cast<unsigned>(a0 % 8)),
                      swizzle_phase(static_cast<unsigned>(b0 % 8))}};

  float acc[TM][TN];
  clear(acc);
  if constexpr (STREAMK > 0)
    run_stream_k(args, ring, producer, tiles_m, tiles_n, acc);
  else
    run_tile(args, ring, producer, tiles_m, tiles_n, acc);
}

// ---- Packed operands (PACK = 1) --------------------------------------------------------------
// One operand (rows x cols, column-major, leading dimension ld, any alignment) and its aligned
// copy in the workspace (dst 16-byte aligned, dst_ld a multiple of 4). The host passes A's and
// B's as sgemm_pack's two parameters (src/jit/sgemm_kernel.cpp holds the same struct).
struct PackedCopy {
  const float* src;
  float* dst;
  int ld, dst_ld, rows, cols;
};

// Both copies in one launch, blockIdx.z picking the operand field by field (choosing between the
// two structs would put both in local memory for every thread). A grid-stride loop over the
// copy's float4s, consecutive threads on consecutive ones of a column: four 4-byte loads from
// any alignment, one 16-byte store. Rows from `rows` to dst_ld are written as zeros.
extern "C" __global__ void __launch_bounds__(256) sgemm_pack(PackedCopy a, PackedCopy b) {
  allow_dependent_launch();  // sgemm_main
  const bool second = blockIdx.z != 0;
  const float* const src = second ? b.src : a.src;
  float4* const dst = reinterpret_cast<float4*>(second ? b.dst : a.dst);
  const int ld = second ? b.ld : a.ld;
  const int rows = second ? b.rows : a.rows;
  const unsigned quads_per_col = static_cast<unsigned>(second ? b.dst_ld : a.dst_ld) / 4u;
  // The host refuses copies beyond 2^28 floats, so every count fits 32 bits.
  const unsigned quads = quads_per_col * static_cast<unsigned>(second ? b.cols : a.cols);
  for (unsigned q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += gridDim.x * blockDim.x) {
    const unsigned col = q / quads_per_col;
    const int row = static_cast<int>(4u * (q - col * quads_per_col));
    const float* const s = src + static_cast<long long>(col) * ld + row;
    float4 v;
    v.x = row < rows ? __ldg(s) : 0.0f;
    v.y = row + 1 < rows ? __ldg(s + 1) : 0.0f;
    v.z = row + 2 < rows ? __ldg(s + 2) : 0.0f;
    v.w = row + 3 < rows ? __ldg(s + 3) : 0.0f;
    dst[q] = v;
  }
}

// ---- Transposed operands (PACK = 2) ------------------------------------------------------------
// A K-contiguous operand (rows x cols as stored, leading dimension ld) copied transposed: dst holds
// it as cols x rows with leading dimension dst_ld, so that sgemm_main (compiled for the copy's
// layout) reads dense X-contiguous stages. An operand not copied comes with cols = 0. Both in one
// launch as sgemm_pack; 32 x 32 tiles through shared memory, one column of padding so that the
// transposed reads hit 32 banks: coalesced 128-byte reads of a source column and writes of a
// destination column.
extern "C" __global__ void __launch_bounds__(256) sgemm_pack_transposed(PackedCopy a, PackedCopy b) {
  allow_dependent_launch();  // sgemm_main
  __shared__ float tile[32][33];
  const bool second = blockIdx.z != 0;
  const float* const src = second ? b.src : a.src;
  float* const dst = second ? b.dst : a.dst;
  const int ld = second ? b.ld : a.ld;
  const int dst_ld = second ? b.dst_ld : a.dst_ld;
  const int rows = second ? b.rows : a.rows;
  const int cols = second ? b.cols : a.cols;
  const int tiles_r = (rows + 31) / 32;
  const int tiles = tiles_r * ((cols + 31) / 32);
  const int lane = static_cast<int>(threadIdx.x) % 32, row8 = static_cast<int>(threadIdx.x) / 32;
  for (int t = static_cast<int>(blockIdx.x); t < tiles; t += static_cast<int>(gridDim.x)) {
    const int r0 = t % tiles_r * 32, c0 = t / tiles_r * 32;
#pragma unroll
    for (int j = row8; j < 32; j += 8) {  // source column c0 + j, rows r0 + lane
      if (r0 + lane < rows && c0 + j < cols)
        tile[j][lane] = __ldg(src + static_cast<long long>(c0 + j) * ld + r0 + lane);
    }
    __syncthreads();
#pragma unroll
    for (int j = row8; j < 32; j += 8) {  // destination column r0 + j, rows c0 + lane
      if (r0 + j < rows && c0 + lane < cols)
        dst[static_cast<long long>(r0 + j) * dst_ld + c0 + lane] = tile[lane][j];
    }
    __syncthreads();  // the tile is read before the next one overwrites it
  }
}
