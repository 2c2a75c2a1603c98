// Family F4: skinny SGEMM, min(M, N) <= 64 (GEMV-like and memory-bound, or small M*N with huge K).
// The big operand streams once through a cp.async ring in its stored layout; sliced-K across warps
// and split-K over the grid, both reduced in a fixed order (shared memory, then sgemm_reduce, or
// with REDUCE = 1 the last block of each output tile); with EVICT = 1 (registers only, DIRECT = 1)
// the big operand is read under an L2 evict-first policy; with WIN = 1 a big operand below 16-byte
// alignment is still copied 16 bytes at a time.
#include "grid_dependency.cuh"
#include "sgemm_args.h"

// ---- Knobs (host side: src/space/families/f4_skinny.cpp). Defaults: a 256 x 16 tile. ---------
#ifndef BS
#define BS 16  // block tile along the small dimension S (1, 2, 4, ..., 64)
#endif
#ifndef TS
#define TS 16  // thread tile along S: BS / TS thread groups along S
#endif
#ifndef TG
#define TG 4  // thread tile along the big dimension G (4 or 8)
#endif
#ifndef WARPS
#define WARPS 8  // warps per block
#endif
#ifndef KSL
#define KSL 4  // K slices per block (sliced-K): each thread group takes BK / KSL k of each stage
#endif
#ifndef BK
#define BK 32  // K depth of one shared-memory stage
#endif
#ifndef STAGES
#define STAGES 4  // cp.async ring depth (stages in flight while one is computed: STAGES - 1)
#endif
#ifndef OCC
#define OCC 8  // resident warps per SM to allow for: registers are capped at 65536 / (32 * OCC)
#endif
#ifndef SPLITK
#define SPLITK 1  // host only: split K so the grid reaches SPLITK waves of 132 blocks (0: never)
#endif
#ifndef DIRECT
#define DIRECT 0  // 1: X streams through registers, not shared memory (see the #else branch)
#endif
#ifndef PF
#define PF 0  // DIRECT only: L2 prefetch distance in k rows (0: none)
#endif
#ifndef REDUCE
#define REDUCE 0  // split-K sum: 0 in sgemm_reduce (a second launch), 1 in sgemm_main (serial)
#endif
#ifndef EVICT
#define EVICT 0  // DIRECT only: 1 reads the streamed operand with L2 evict-first priority
#endif
#ifndef WIN
#define WIN 0  // 1: X (G-contiguous, ALIGN < 4) copied as 16-byte-aligned windows of its rows
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
#ifndef SMALL_M
#define SMALL_M 0  // 1 when M < N: C^T = op(B)^T op(A)^T is computed instead (set by the host)
#endif

#include "f4_skinny_detail.cuh"
#include "f4_skinny_epilogue.cuh"

#if !DIRECT

namespace f4 {

// The kernel is written for the problem G x S x K with X (G x K, streamed) and Y (K x S, small):
// SMALL_M = 0: G = M, S = N, X = op(A), Y = op(B); SMALL_M = 1: G = N, S = M, X = op(B)^T,
// Y = op(A)^T. Each operand is either contiguous along K or along its other dimension.
constexpr bool kXG = SMALL_M ? TRANS_B == 1 : TRANS_A == 0;  // X[g + p * ldx], else X[p + g * ldx]
constexpr bool kYK = SMALL_M ? TRANS_A == 1 : TRANS_B == 0;  // Y[p + s * ldy], else Y[s + p * ldy]

constexpr int kThreads = 32 * WARPS;
constexpr int kSG = BS / TS;          // thread groups along S
constexpr int kTPK = kThreads / KSL;  // threads of one K slice
constexpr int kGT = kTPK / kSG;       // threads along G in one K slice
constexpr int kBG = kGT * TG;         // block tile along G
constexpr int kKPS = BK / KSL;        // k of each stage one K slice computes
// WIN = 1, for X contiguous along G whose rows start off 16-byte boundaries (an odd leading
// dimension or pointer): each k row of a stage is copied as the 16-byte-aligned window around it,
// one float4 more than the row, so every copy is a whole 16-byte one (as in class 4) instead of
// ALIGN floats. Row k then sits xr_k floats into its shared row, xr_k being its start's offset
// within 16 bytes; xr_k repeats every 4 k, since BK and each K slice's share are multiples of 4.
// Lanes take consecutive rows of G and read X a float at a time: conflict-free at any offset.
// (A function, not a constant: each namespace constant is emitted into the cubin's constant bank.)
constexpr bool windows() { return WIN == 1 && kXG && ALIGN < 4; }
// Shared layouts follow the global ones so every copy is a straight cp.async:
// X G-contiguous: [k][g], pitch BG (BG + 4 with WIN = 1); K-contiguous: [g][k], pitch BK + 4 (rows
// 16-byte aligned, and BK/4 + 1 odd, so 8 lanes reading 8 consecutive rows hit 8 different 16-byte
// bank groups).
constexpr int kXP = kXG ? kBG + (windows() ? 4 : 0) : BK + 4;
constexpr int kYP = kYK ? BK + 4 : BS;
constexpr int kXStage = kXG ? BK * kXP : kBG * kXP;  // floats
constexpr int kYStage = kYK ? BS * kYP : BK * kYP;
constexpr int kStage = kXStage + kYStage;
constexpr int kVX = ALIGN;  // copy vector, floats
constexpr int kVY = kYK ? ALIGN : (BS < ALIGN ? BS : ALIGN);
constexpr int kVS = TS < 4 ? TS : 4;  // S-contiguous Y: fragment load width
// Epilogue: every K slice's partial tile, [slice][s][g] with an odd pitch (conflict-free reads
// along g and along s).
constexpr int kRP = kBG + 1;
constexpr int kRed = KSL * BS * kRP;
constexpr int kSmemFloats = STAGES * kStage > kRed ? STAGES * kStage : kRed;

static_assert(BS >= 1 && BS <= 64 && (BS & (BS - 1)) == 0, "BS is a power of two up to 64");
static_assert(TS >= 1 && TS <= 16 && BS % TS == 0, "TS divides BS");
static_assert(TG == 4 || TG == 8, "TG is 4 or 8 (128-bit fragment loads along G)");
static_assert(WARPS >= 1 && WARPS <= 32 && (WARPS & (WARPS - 1)) == 0, "warps: a power of two");
static_assert(KSL >= 1 && kThreads % (KSL * kSG) == 0, "K slices and S groups divide the block");
static_assert(kGT >= 8, "a quarter warp must read one contiguous shared row (no bank conflicts)");
static_assert(kKPS >= 4 && kKPS % 4 == 0 && kKPS <= 32, "each K slice takes 4..32 k per stage");
static_assert(BK % 8 == 0 && BK <= 128, "BK");
static_assert(STAGES >= 2 && STAGES <= 8, "STAGES");
static_assert(OCC % WARPS == 0 && OCC <= 64, "OCC: a multiple of WARPS, at most 64 warps per SM");
static_assert(ALIGN == 1 || ALIGN == 2 || ALIGN == 4, "alignment class");
static_assert(TG * TS <= 128, "accumulators per thread");
static_assert(4 * kSmemFloats <= 232448, "227 KB of shared memory per block");
static_assert(WIN == 0 || windows(), "WIN = 1 takes X contiguous along G below alignment class 4");
// The ring's copies take no L2 hint: ptxas 13.0 miscompiles hinted cp.async (evict_first_policy).
static_assert(EVICT == 0, "EVICT = 1 is for DIRECT = 1");

// Position inside the block tile of accumulator a (along G) and b (along S) of a thread.
__device__ __forceinline__ int row_of(int a, int gl) {
  // G-contiguous X: 4-wide vectors 4 * kGT apart (lanes read consecutive 16 bytes);
  // K-contiguous X, and WIN = 1: single rows kGT apart (lanes read consecutive rows).
  return kXG && !windows() ? (a / 4) * (4 * kGT) + gl * 4 + a % 4 : a * kGT + gl;
}
__device__ __forceinline__ int col_of(int b, int sg) {
  return kYK ? b * kSG + sg : (b / kVS) * (kVS * kSG) + sg * kVS + b % kVS;
}

// WIN = 1: copies the BK x kBG tile of X at src (k row r at src + r * ld, contiguous along G) as
// 16-byte windows: row r's window starts at its first float rounded down to 16 bytes and is
// kBG / 4 + 1 float4s long, stored at shared row r. A window's first float4 reads up to 3 floats
// before the row, in the 16-byte block of its first float (the matrix's previous column or
// padding, or just before its first element: never another page, so never a fault); of the
// rest, only floats inside the valid rows and columns are read, the others are zero-filled.
// FULL: all BK rows and kBG columns are valid.
template <bool FULL>
__device__ __forceinline__ void copy_window(unsigned dst, const float* src, long long ld,
                                            int rows_valid, int cols_valid, int tid) {
  constexpr int kVecs = kBG / 4 + 1;
  constexpr int kItems = BK * kVecs;
  constexpr int kPasses = (kItems + kThreads - 1) / kThreads;
#pragma unroll(kPasses <= 8 ? kPasses : 4)
  for (int i = 0; i < kPasses; ++i) {
    const int item = tid + i * kThreads;
    if (kItems % kThreads == 0 || item < kItems) {
      const int r = item / kVecs, j = item % kVecs;
      const auto row = reinterpret_cast<unsigned long long>(src + r * ld);
      const unsigned long long base = row & ~15ull;
      // Columns of the tile from this float4's first float to the end of the valid ones.
      const int left = (FULL ? kBG : cols_valid) - 4 * j + static_cast<int>(row - base) / 4;
      int floats = left >= 4 ? 4 : (left > 0 ? left : 0);
      if (!FULL && r >= rows_valid) floats = 0;
      const float* p = reinterpret_cast<const float*>(base) + 4 * j;
      cp_async<16>(dst + 4u * (r * kXP + 4 * j), floats ? p : src, 4 * floats);
    }
  }
}

// One stage's worth of X and Y (chunk c of this split) into shared memory stage `stage_base`.
struct Loader {
  const float* x;  // X at (g0, k0)
  const float* y;  // Y at (k0, s0)
  long long ldx, ldy;
  int g_valid, s_valid;       // rows of X / columns of Y left in the matrix from g0 / s0 (>= 1)
  int k_left;                 // k left from k0 to the end of this split

  __device__ __forceinline__ void load(int c, float* stage_base, int tid) const {
    const int kc = c * BK;
    const int k_valid = k_left - kc;
    const unsigned xs = smem_u32(stage_base), ys = smem_u32(stage_base + kXStage);
    const bool k_full = k_valid >= BK;
    if constexpr (windows()) {
      const float* src = x + kc * ldx;
      if (k_full && g_valid >= kBG)
        copy_window<true>(xs, src, ldx, k_valid, g_valid, tid);
      else
        copy_window<false>(xs, src, ldx, k_valid, g_valid, tid);
    } else if constexpr (kXG) {
      const float* src = x + kc * ldx;
      if (k_full && g_valid >= kBG)
        copy_tile<BK, kBG, kVX, kXP, kThreads, true>(xs, src, ldx, k_valid, g_valid, tid);
      else
        copy_tile<BK, kBG, kVX, kXP, kThreads, false>(xs, src, ldx, k_valid, g_valid, tid);
    } else {
      const float* src = x + kc;
      if (k_full && g_valid >= kBG)
        copy_tile<kBG, BK, kVX, kXP, kThreads, true>(xs, src, ldx, g_valid, k_valid, tid);
      else
        copy_tile<kBG, BK, kVX, kXP, kThreads, false>(xs, src, ldx, g_valid, k_valid, tid);
    }
    if constexpr (kYK) {
      const float* src = y + kc;
      if (k_full && s_valid >= BS)
        copy_tile<BS, BK, kVY, kYP, kThreads, true>(ys, src, ldy, s_valid, k_valid, tid);
      else
        copy_tile<BS, BK, kVY, kYP, kThreads, false>(ys, src, ldy, s_valid, k_valid, tid);
    } else {
      const float* src = y + kc * ldy;
      if (k_full && s_valid >= BS)
        copy_tile<BK, BS, kVY, kYP, kThreads, true>(ys, src, ldy, k_valid, s_valid, tid);
      else
        copy_tile<BK, BS, kVY, kYP, kThreads, false>(ys, src, ldy, k_valid, s_valid, tid);
    }
  }
};

// acc += X(rows, 4 k) * Y(4 k, cols) for each 4-k step of this thread's K slice of one stage.
// xs, ys point at this thread's first fragment inside the stage; xr[u] (WIN = 1) is where the
// rows of k = u mod 4 start in their windows.
__device__ __forceinline__ void compute_stage(const float* xs, const float* ys, const int (&xr)[4],
                                              float (&acc)[TG][TS]) {
#pragma unroll
  for (int kk = 0; kk < kKPS; kk += 4) {
    float xf[4][TG];
    if constexpr (windows()) {
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int a = 0; a < TG; ++a) xf[u][a] = xs[(kk + u) * kXP + xr[u] + a * kGT];
    } else if constexpr (kXG) {
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int v = 0; v < TG / 4; ++v)
          load_shared<4>(xs + (kk + u) * kXP + v * 4 * kGT, &xf[u][4 * v]);
    } else {
#pragma unroll
      for (int a = 0; a < TG; ++a) {
        float t[4];
        load_shared<4>(xs + a * kGT * kXP + kk, t);
#pragma unroll
        for (int u = 0; u < 4; ++u) xf[u][a] = t[u];
      }
    }
    if constexpr (kYK) {
#pragma unroll
      for (int b = 0; b < TS; ++b) {
        float t[4];
        load_shared<4>(ys + b * kSG * kYP + kk, t);
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
          for (int a = 0; a < TG; ++a) acc[a][b] = fmaf(xf[u][a], t[u], acc[a][b]);
      }
    } else {
#pragma unroll
      for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int q = 0; q < TS / kVS; ++q) {
          float t[kVS];
          load_shared<kVS>(ys + (kk + u) * kYP + q * kVS * kSG, t);
#pragma unroll
          for (int e = 0; e < kVS; ++e)
#pragma unroll
            for (int a = 0; a < TG; ++a)
              acc[a][q * kVS + e] = fmaf(xf[u][a], t[e], acc[a][q * kVS + e]);
        }
    }
  }
}

}  // namespace f4

// Grid: (G tiles, S tiles, K splits); block: 32 * WARPS threads; dynamic shared memory:
// f4::kSmemFloats floats. With k_splits > 1 it writes raw partial sums to
// workspace[split][n][m] (ld m); sgemm_reduce (REDUCE = 0) or the block that finishes an output
// tile last (REDUCE = 1) sums them and applies alpha and beta.
extern "C" __global__ void __launch_bounds__(f4::kThreads, OCC / WARPS) sgemm_main(SgemmArgs args) {
  using namespace f4;
  allow_dependent_launch();  // sgemm_reduce, when there is one
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  const int tid = threadIdx.x;
  const int kq = tid / kTPK;          // K slice
  const int sg = (tid % kTPK) / kGT;  // S group
  const int gl = tid % kGT;           // lane along G

  const int big = SMALL_M ? args.n : args.m, small = SMALL_M ? args.m : args.n;
  const float* x = SMALL_M ? args.b : args.a;
  const float* y = SMALL_M ? args.a : args.b;
  const long long ldx = SMALL_M ? args.ldb : args.lda, ldy = SMALL_M ? args.lda : args.ldb;
  const int g0 = blockIdx.x * kBG, s0 = blockIdx.y * BS;
  const int k_slice = args.k_splits > 1 && args.k_slice > 0 ? args.k_slice : args.k;
  const long long k0 = static_cast<long long>(blockIdx.z) * k_slice;
  const long long k_rest = args.k - k0;
  const int k_left = k_rest <= 0 ? 0 : (k_rest < k_slice ? static_cast<int>(k_rest) : k_slice);
  const int chunks = k_left / BK + (k_left % BK != 0);  // k_left + BK - 1 may overflow

  Loader loader;
  loader.x = kXG ? x + g0 + k0 * ldx : x + k0 + g0 * ldx;
  loader.y = kYK ? y + k0 + s0 * ldy : y + s0 + k0 * ldy;
  loader.ldx = ldx;
  loader.ldy = ldy;
  loader.g_valid = big - g0;
  loader.s_valid = small - s0;
  loader.k_left = k_left;

  float acc[TG][TS];
#pragma unroll
  for (int a = 0; a < TG; ++a)
#pragma unroll
    for (int b = 0; b < TS; ++b) acc[a][b] = 0.0f;

  // This thread's first fragment inside a stage.
  const int x_offset = kXG ? kq * kKPS * kXP + gl * (windows() ? 1 : 4) : gl * kXP + kq * kKPS;
  // WIN = 1: the offset of each k row in its window repeats every 4 k (BK, each K slice's share
  // and each 4-k step start on multiples of 4 rows).
  int xr[4] = {0, 0, 0, 0};
  if constexpr (windows()) {
    const auto first = reinterpret_cast<unsigned long long>(loader.x) / 4;
#pragma unroll
    for (int u = 0; u < 4; ++u)
      xr[u] = static_cast<int>((first + static_cast<unsigned long long>(u * ldx)) & 3);
  }
  const int y_offset = kXStage + (kYK ? sg * kYP + kq * kKPS : kq * kKPS * kYP + sg * kVS);

#pragma unroll 1
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < chunks) loader.load(s, smem + s * kStage, tid);
    cp_async_commit();  // empty groups keep the wait count uniform
  }
  int read_stage = 0, write_stage = STAGES - 1;
  for (int c = 0; c < chunks; ++c) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();  // chunk c is visible to all; everyone is done with chunk c - 1's stage
    if (c + STAGES - 1 < chunks) loader.load(c + STAGES - 1, smem + write_stage * kStage, tid);
    cp_async_commit();
    const float* stage = smem + read_stage * kStage;
    compute_stage(stage + x_offset, stage + y_offset, xr, acc);
    read_stage = read_stage == STAGES - 1 ? 0 : read_stage + 1;
    write_stage = write_stage == STAGES - 1 ? 0 : write_stage + 1;
  }
  cp_async_wait<0>();
  __syncthreads();  // the ring is free: reuse it for the K-slice reduction

  float* red = smem;
#pragma unroll
  for (int a = 0; a < TG; ++a)
#pragma unroll
    for (int b = 0; b < TS; ++b) red[(kq * BS + col_of(b, sg)) * kRP + row_of(a, gl)] = acc[a][b];
  __syncthreads();

  finish_tile<kBG, kRP, kThreads>(args, red, g0, s0, big - g0, small - s0);
}

#else  // DIRECT: the streamed operand goes straight from global memory into registers

namespace f4 {

// Same problem mapping as above (G x S x K, X streamed, Y small).
constexpr bool kXG = SMALL_M ? TRANS_B == 1 : TRANS_A == 0;  // X[g + p * ldx], else X[p + g * ldx]
constexpr bool kYK = SMALL_M ? TRANS_A == 1 : TRANS_B == 0;  // Y[p + s * ldy], else Y[s + p * ldy]

// A warp owns 32 * TG rows of G (lane l: TG / 4 float4 vectors, 128 rows apart) times TS columns
// of S, over its share of the block's K range. Warps: kSG along S (each re-reads X, from L1),
// kGW along G, KSL along K. Y of the block's whole K range (at most BK k) sits in shared memory
// as [k][s]; every lane of a warp reads the same Y words (broadcast), one 128-bit load feeding
// 4 * TG FMAs. Each thread keeps STAGES k-rows of X loads in flight in registers; PF > 0 also
// asks L2 for the row PF k ahead. One barrier after Y is loaded, none in the K loop.
constexpr int kThreads = 32 * WARPS;
constexpr int kSG = BS / TS;
constexpr int kGW = WARPS / (KSL * kSG);
constexpr int kBG = kGW * 32 * TG;
constexpr int kU = STAGES;
constexpr int kVX = ALIGN;                  // X vector width (floats) on full G tiles
constexpr int kVS = TS < 4 ? TS : 4;        // Y fragment load width
constexpr int kYP = BS >= 4 ? BS + 4 : BS;  // Y row pitch: rows stay 16-byte aligned
constexpr int kRP = kBG + 4;                // K-slice partial tiles: rows 16-byte aligned
constexpr int kRed = KSL * BS * kRP;

static_assert(BS >= 1 && BS <= 64 && (BS & (BS - 1)) == 0, "BS is a power of two up to 64");
static_assert(TS >= 1 && TS <= 16 && BS % TS == 0, "TS divides BS");
static_assert(TG == 4 || TG == 8, "TG is 4 or 8");
static_assert(WARPS >= 1 && WARPS <= 32 && (WARPS & (WARPS - 1)) == 0, "warps: a power of two");
static_assert(KSL >= 1 && kGW >= 1 && kGW * KSL * kSG == WARPS, "warps along G, K and S");
static_assert(STAGES >= 1 && STAGES <= 16, "X rows in flight");
static_assert(OCC % WARPS == 0 && OCC <= 64, "OCC: a multiple of WARPS, at most 64 warps per SM");
static_assert(ALIGN == 1 || ALIGN == 2 || ALIGN == 4, "alignment class");
static_assert(TG * TS <= 128, "accumulators per thread");

// Row (inside the block tile) of accumulator a of lane `lane` of G-warp gw.
__device__ __forceinline__ int row_of(int a, int gw, int lane) {
  return gw * 32 * TG + (a / 4) * 128 + lane * 4 + a % 4;
}

// One k-row of this thread's X: TG floats. VEC: the whole G tile is inside the matrix and X is
// G-contiguous, so vectors of kVX; otherwise one float each, rows clamped into the matrix.
// policy: X's L2 policy (EVICT = 1).
template <bool VEC>
__device__ __forceinline__ void load_x(const float* xrow, const int (&off)[TG], float (&v)[TG],
                                       unsigned long long policy) {
  if constexpr (VEC) {
#pragma unroll
    for (int a = 0; a < TG; a += kVX)
      load_global<kVX, kSG == 1, EVICT == 1>(xrow + off[a], &v[a], policy);
  } else {
#pragma unroll
    for (int a = 0; a < TG; ++a) load_global<1, kSG == 1, EVICT == 1>(xrow + off[a], &v[a], policy);
  }
}

// acc += x (TG rows of one k) * Y(k, TS columns), Y read from shared row yr.
__device__ __forceinline__ void fma_row(const float* yr, const float (&x)[TG],
                                        float (&acc)[TG][TS]) {
#pragma unroll
  for (int q = 0; q < TS; q += kVS) {
    float t[kVS];
    load_shared<kVS>(yr + q, t);
#pragma unroll
    for (int e = 0; e < kVS; ++e)
#pragma unroll
      for (int a = 0; a < TG; ++a) acc[a][q + e] = fmaf(x[a], t[e], acc[a][q + e]);
  }
}

// Streams k = kb .. ke - 1 of this thread's X rows (x: this thread's X at k = 0 with the row
// offsets off[]; kstep: X's stride along k) against Y in shared memory (ys at k = 0).
template <bool VEC>
__device__ __forceinline__ void stream(const float* x, long long kstep, const int (&off)[TG],
                                       const float* ys, int kb, int ke, float (&acc)[TG][TS],
                                       float (&xv)[kU][TG], unsigned long long policy) {
#pragma unroll 1
  for (int k = kb; k < ke; k += kU) {
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      if (k + u < ke) {
        float xc[TG];
#pragma unroll
        for (int a = 0; a < TG; ++a) xc[a] = xv[u][a];
        const int kn = min(k + u + kU, ke - 1);  // past the end: re-read the last row (unused)
        load_x<VEC>(x + kn * kstep, off, xv[u], policy);
        if constexpr (PF > 0) {
          if (k + u + PF < ke) prefetch_l2(x + (k + u + PF) * kstep + off[0]);
        }
        fma_row(ys + (k + u) * kYP, xc, acc);
      }
    }
  }
}

// Y(k0 .. k0 + k_left, s0 .. s0 + BS) into shared ys[k][s] (pitch kYP), zeros past the matrix
// along S; rows at or past k_left are not written. Vectors of kYV floats along Y's contiguous
// dimension, kYU of them loaded by each thread before any is stored, so that many L2 requests are
// in flight. K-contiguous Y: consecutive lanes take consecutive columns s (each pair of lanes
// reads one 32-byte sector, and the transposing stores of a warp fall on distinct banks).
constexpr int kYV = kYK ? ALIGN : (BS < ALIGN ? BS : ALIGN);
constexpr int kYU = 8;

__device__ __forceinline__ void load_y(const float* y, long long ldy, long long k0, int s0,
                                       int k_left, int s_valid, float* ys, int tid) {
  // Vectors per k-column (K-contiguous) or per k-row (S-contiguous).
  const int kv = kYK ? (k_left + kYV - 1) / kYV : BS / kYV;
  const int total = kYK ? kv * BS : kv * k_left;
#pragma unroll 1
  for (int e0 = tid; e0 < total; e0 += kYU * kThreads) {
    float v[kYU][kYV];
#pragma unroll
    for (int u = 0; u < kYU; ++u) {
      const int e = e0 + u * kThreads;
      const int s = kYK ? e % BS : (e % kv) * kYV;  // first column of the vector
      const int k = kYK ? (e / BS) * kYV : e / kv;  // first row of the vector
      const int k_in = kYK ? min(kYV, k_left - k) : 1;
      const int s_in = kYK ? (s < s_valid) : min(kYV, s_valid - s);
      const float* p =
          kYK ? y + k0 + k + static_cast<long long>(s0 + s) * ldy : y + s0 + s + (k0 + k) * ldy;
      if (e < total && k_in == (kYK ? kYV : 1) && s_in == (kYK ? 1 : kYV)) {
        load_global<kYV, false, false>(p, v[u], 0);
      } else {
#pragma unroll
        for (int t = 0; t < kYV; ++t) {
          const bool in = e < total && (kYK ? t < k_in && s_in > 0 : t < s_in && k_in > 0);
          v[u][t] = in ? __ldg(p + t) : 0.0f;
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kYU; ++u) {
      const int e = e0 + u * kThreads;
      if (e >= total) break;
      const int s = kYK ? e % BS : (e % kv) * kYV;
      const int k = kYK ? (e / BS) * kYV : e / kv;
      if constexpr (!kYK) {
        store_shared<kYV>(ys + k * kYP + s, v[u]);  // a run of columns of one row
      } else if (kYP == 1 && k + kYV <= k_left) {
        store_shared<kYV>(ys + k, v[u]);  // one column: a run of rows
      } else {
#pragma unroll
        for (int t = 0; t < kYV; ++t)
          if (k + t < k_left) ys[(k + t) * kYP + s] = v[u][t];
      }
    }
  }
}

}  // namespace f4

// Grid: (G tiles, S tiles, K splits); block: 32 * WARPS threads; dynamic shared memory:
// max(k_slice * kYP, kRed) floats. Split-K as in the shared-memory path above.
extern "C" __global__ void __launch_bounds__(f4::kThreads, OCC / WARPS) sgemm_main(SgemmArgs args) {
  using namespace f4;
  allow_dependent_launch();  // sgemm_reduce, when there is one
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int sg = warp % kSG;
  const int gw = (warp / kSG) % kGW;
  const int kq = warp / (kSG * kGW);

  const int big = SMALL_M ? args.n : args.m, small = SMALL_M ? args.m : args.n;
  const float* x = SMALL_M ? args.b : args.a;
  const float* y = SMALL_M ? args.a : args.b;
  const long long ldx = SMALL_M ? args.ldb : args.lda, ldy = SMALL_M ? args.lda : args.ldb;
  const int g0 = blockIdx.x * kBG, s0 = blockIdx.y * BS;
  const int k_slice = args.k_splits > 1 && args.k_slice > 0 ? args.k_slice : args.k;
  const long long k0 = static_cast<long long>(blockIdx.z) * k_slice;
  const long long k_rest = args.k - k0;
  const int k_left = k_rest <= 0 ? 0 : (k_rest < k_slice ? static_cast<int>(k_rest) : k_slice);
  const int g_valid = big - g0, s_valid = small - s0;

  // This warp's share of the K range.
  const int k_per = (k_left + KSL - 1) / KSL;
  const int kb = min(k_left, kq * k_per), ke = min(k_left, kb + k_per);

  // X of this thread at (g0, k0) and its row offsets, clamped into the matrix.
  const long long kstep = kXG ? ldx : 1;
  const long long gstep = kXG ? 1 : ldx;
  const float* xt = x + (kXG ? g0 + k0 * ldx : k0 + static_cast<long long>(g0) * ldx);
  const bool vec = kXG && g_valid >= kBG;
  int off[TG];
#pragma unroll
  for (int a = 0; a < TG; ++a)
    off[a] = static_cast<int>(min(row_of(a, gw, lane), g_valid - 1) * gstep);

  const unsigned long long policy = EVICT ? evict_first_policy() : 0;
  float xv[kU][TG];
  if (ke > kb) {
#pragma unroll
    for (int u = 0; u < kU; ++u) {
      const float* xr = xt + min(kb + u, ke - 1) * kstep;
      if (vec)
        load_x<true>(xr, off, xv[u], policy);
      else
        load_x<false>(xr, off, xv[u], policy);
    }
  }

  // Y(k0 .. k0 + k_left, s0 .. s0 + BS) into shared [k][s], zeros past the matrix along S.
  float* ys = smem;
  load_y(y, ldy, k0, s0, k_left, s_valid, ys, tid);
  __syncthreads();

  float acc[TG][TS];
#pragma unroll
  for (int a = 0; a < TG; ++a)
#pragma unroll
    for (int b = 0; b < TS; ++b) acc[a][b] = 0.0f;
  if (vec)
    stream<true>(xt, kstep, off, ys + sg * TS, kb, ke, acc, xv, policy);
  else
    stream<false>(xt, kstep, off, ys + sg * TS, kb, ke, acc, xv, policy);
  __syncthreads();  // Y is dead: reuse shared memory for the K-slice reduction

  // 128-bit stores: a quarter warp writes 128 contiguous bytes (no bank conflicts).
  float* red = smem;
#pragma unroll
  for (int a = 0; a < TG; a += 4)
#pragma unroll
    for (int b = 0; b < TS; ++b)
      *reinterpret_cast<float4*>(red + (kq * BS + sg * TS + b) * kRP + row_of(a, gw, lane)) =
          make_float4(acc[a][b], acc[a + 1][b], acc[a + 2][b], acc[a + 3][b]);
  __syncthreads();

  finish_tile<kBG, kRP, kThreads>(args, red, g0, s0, g_valid, s_valid);
}

#endif  // DIRECT

#if !REDUCE  // REDUCE = 1 sums the splits inside sgemm_main

// C = alpha * sum over splits of workspace[split] + beta * C, in a fixed order: thread (x, y) of
// a block of (RX, RZ) threads sums splits y, y + RZ, ... of output blockIdx.x * RX + x, then a
// fixed tree over y. RX * RZ <= 1024, RZ a power of two (chosen by the host from k_splits).
extern "C" __global__ void __launch_bounds__(1024) sgemm_reduce(SgemmArgs args) {
  wait_for_prior_grid();  // sgemm_main's partial sums
  __shared__ float part[1024];
  const int rx = blockDim.x, rz = blockDim.y;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long mn = static_cast<long long>(args.m) * args.n;
  const long long o = static_cast<long long>(blockIdx.x) * rx + tx;
  float sum = 0.0f;
  if (o < mn) {
    const float* w = args.workspace + o;
#pragma unroll 8
    for (int z = ty; z < args.k_splits; z += rz) sum += w[z * mn];
  }
  part[ty * rx + tx] = sum;
  for (int h = rz / 2; h > 0; h /= 2) {
    __syncthreads();
    if (ty < h) part[ty * rx + tx] += part[(ty + h) * rx + tx];
  }
  if (ty == 0 && o < mn) {
    const int i = static_cast<int>(o % args.m), j = static_cast<int>(o / args.m);
    float* c = args.c + i + static_cast<long long>(j) * args.ldc;
    float out = args.alpha == 0.0f ? 0.0f : args.alpha * part[tx];
    if (args.beta != 0.0f) out = fmaf(args.beta, *c, out);
    *c = out;
  }
}

#endif  // !REDUCE
