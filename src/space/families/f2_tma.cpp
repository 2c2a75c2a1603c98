// Family F2 (kernel_templates/f2_tma.cu): TMA-fed SIMT SGEMM for sm_90. Its knobs, the
// constraints that mirror the template's static_asserts and resource limits, NVRTC defines,
// launch geometry (split-K over blockIdx.z or stream-K over a persistent grid, summed in the
// kernel), the tensor-map boxes the launch encodes and, with PACK = 1, room for the aligned copies
// of A and B it makes of operands TMA cannot address in place; with PACK = 2, the transposed copies
// of K-contiguous operands that let sgemm_main read both operands in its fastest layout.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "common/int_math.hpp"
#include "sgemm_args.h"
#include "space/family.hpp"
#include "space/k_split.hpp"
#include "space/operand_pack.hpp"
#include "space/warp_tiling.hpp"

namespace sgt {
namespace {

constexpr int kAlignSlackBytes = 1024;  // the kernel rounds its ring up to a 1024-byte boundary

const std::vector<std::string>& names() {
  static const std::vector<std::string> n = {"BM",      "BN",   "BK",        "WM",     "WN",
                                             "TM",      "TN",   "STAGES",    "RASTER", "SPLITK",
                                             "STREAMK", "PACK", "MIN_BLOCKS"};
  return n;
}

bool in(int v, int lo, int hi) { return v >= lo && v <= hi; }

struct Shape : TileShape {
  // Configurations stored before SPLITK, STREAMK, PACK or MIN_BLOCKS existed did not share out
  // K, pack or cap registers.
  int splitk, streamk, pack, min_blocks;
  explicit Shape(const Knobs& k)
      : TileShape(k),
        splitk(k.contains("SPLITK") ? knob(k, "SPLITK") : 1),
        streamk(k.contains("STREAMK") ? knob(k, "STREAMK") : 0),
        pack(k.contains("PACK") ? knob(k, "PACK") : 0),
        min_blocks(k.contains("MIN_BLOCKS") ? knob(k, "MIN_BLOCKS") : 1) {}
  int threads() const { return (wm > 0 && wn > 0) ? 32 * (bm / wm) * (bn / wn) : 0; }
  // Dense stages of A and B, the alignment slack and one 8-byte mbarrier per stage.
  std::int64_t smem_bytes() const {
    return std::int64_t{4} * stages * bk * (bm + bn) + kAlignSlackBytes + 8 * stages;
  }
  // Accumulators + fragments of 4 k steps + addressing.
  int registers_estimate() const { return tm * tn + 4 * (tm + tn) + 30; }
  // Accumulators + one k step's fragments + addressing: what a register cap must leave.
  int registers_floor() const { return tm * tn + 2 * (tm + tn) + 16; }
};

std::int64_t tile_count(const Shape& s, const ProblemKey& p) { return tile_count(p, s.bm, s.bn); }

std::int64_t partial_floats(const Shape& s, const ProblemKey& p, const KSplit& split) {
  return tile_partial_floats(p, split, s.bm, s.bn);
}

// Stream-K: T = tiles x K tiles iterations shared out over `grid` persistent blocks (at most one
// per iteration), each holding at most two partial tiles (its first and its last).
struct StreamK {
  std::int64_t iterations = 0;
  int grid = 0;
  std::int64_t per_block = 0;  // iterations of the longest share
  int tile_splits = 0;         // blocks one tile is shared by, at most
};

// STREAMK counts persistent blocks per SM: `sms` blocks a unit (the device's SM count).
StreamK stream_k_of(const Shape& s, const ProblemKey& p, int sms) {
  StreamK sk;
  const std::int64_t kt = ceil_div64(p.k, s.bk);
  sk.iterations = tile_count(s, p) * kt;
  if (s.streamk <= 0 || sk.iterations <= 0) return sk;
  sk.grid = static_cast<int>(std::min<std::int64_t>(std::int64_t{s.streamk} * sms, sk.iterations));
  sk.per_block = ceil_div64(sk.iterations, sk.grid);
  const std::int64_t shortest = sk.iterations / sk.grid;
  sk.tile_splits = static_cast<int>(std::min<std::int64_t>(ceil_div64(kt, shortest) + 1, sk.grid));
  return sk;
}

std::int64_t stream_k_partial_floats(const Shape& s, const StreamK& sk) {
  return std::int64_t{2} * sk.grid * s.bm * s.bn;
}

// The TMA box of one operand tile: BX x BK, K-contiguous rows swizzled by their own size.
TmaTile tile_of(int bx, int bk, bool k_inner) {
  TmaTile t;
  t.used = true;
  t.k_inner = k_inner;
  t.box_inner = static_cast<unsigned>(k_inner ? bk : bx);
  t.box_outer = static_cast<unsigned>(k_inner ? bx : bk);
  t.swizzle_bytes = k_inner ? static_cast<unsigned>(4 * bk) : 0;
  return t;
}

class F2Tma final : public Family {
 public:
  std::string name() const override { return "f2_tma"; }
  std::vector<std::string> knob_names() const override { return names(); }

  std::vector<Constraint> constraints(const DeviceLimits& lim) const override {
    std::vector<Constraint> c = {{"needs_sm_90", [lim](const Knobs&) { return lim.cc >= 90; }}};
    // A TMA box spans at most 256 elements per dimension; a K-contiguous row (BK floats) is one
    // TMA swizzle span: 32, 64 or 128 bytes.
    for (Constraint& t : tiling_constraints(lim, block_tile_between(32, 256), bk_between(8, 32)))
      c.push_back(std::move(t));
    const std::vector<Constraint> rest = {
        // Each stage starts on the 1024-byte boundary the swizzle pattern repeats on.
        {"stage_bytes_multiple_of_1024",
         [](const Knobs& k) {
           const Shape s(k);
           return (4 * s.bm * s.bk) % 1024 == 0 && (4 * s.bn * s.bk) % 1024 == 0;
         }},
        {"stages_2_to_8", [](const Knobs& k) { return in(knob(k, "STAGES"), 2, 8); }},
        {"raster_1_to_64", [](const Knobs& k) { return in(knob(k, "RASTER"), 1, 64); }},
        {"splitk_1_to_16", [](const Knobs& k) { return in(Shape(k).splitk, 1, 16); }},
        {"streamk_0_to_4", [](const Knobs& k) { return in(Shape(k).streamk, 0, 4); }},
        // Both share out K, differently: a configuration uses at most one of them.
        {"streamk_or_splitk",
         [](const Knobs& k) {
           const Shape s(k);
           return s.streamk == 0 || s.splitk == 1;
         }},
        {"pack_0_to_2", [](const Knobs& k) { return in(Shape(k).pack, 0, 2); }},
        {"smem_fits",
         [lim](const Knobs& k) { return Shape(k).smem_bytes() <= lim.smem_optin_bytes; }},
        {"registers_estimate",
         [lim](const Knobs& k) {
           const Shape s(k);
           const std::int64_t regs = (s.registers_estimate() + 7) / 8 * 8;
           return s.registers_estimate() <= std::min(255, lim.max_regs_per_thread) &&
                  regs * s.threads() <= lim.regs_per_sm;
         }},
        {"min_blocks_1_to_4", [](const Knobs& k) { return in(Shape(k).min_blocks, 1, 4); }},
        // MIN_BLOCKS > 1 caps registers for more resident warps (NN and TN tiles, whose
        // K-contiguous fragments take 140-250 registers where NT takes 111); a cap that leaves
        // the maximum compiles to MIN_BLOCKS = 1's code, one below the floor spills.
        {"min_blocks_binds",
         [lim](const Knobs& k) {
           const Shape s(k);
           return s.min_blocks == 1 || lim.register_cap(s.threads(), s.min_blocks) <
                                           std::min(255, lim.max_regs_per_thread);
         }},
        {"min_blocks_register_floor",
         [lim](const Knobs& k) {
           const Shape s(k);
           return s.min_blocks == 1 ||
                  lim.register_cap(s.threads(), s.min_blocks) >= s.registers_floor();
         }},
        {"min_blocks_smem",
         [lim](const Knobs& k) {
           const Shape s(k);
           return s.min_blocks == 1 || lim.smem_fits_blocks(s.min_blocks, s.smem_bytes());
         }},
    };
    c.insert(c.end(), rest.begin(), rest.end());
    return c;
  }

  std::string cannot_implement(const Knobs& knobs, const ProblemKey& p) const override {
    if (std::string why = validate(p); !why.empty()) return why;
    if (p.m == 0 || p.n == 0) return "empty output (m or n is 0): nothing to launch";
    if (p.k == 0) return "k = 0: no operand for TMA to address";
    const Shape s(knobs);
    if (p.align != 4 && s.pack == 0)
      return fmt::format(
          "TMA needs 16-byte aligned operands and leading dimensions (align={}); "
          "PACK = 1 copies them aligned",
          p.align);
    if (p.align == 4 && s.pack == 1)
      return "operands already 16-byte aligned: PACK = 1 would copy them for nothing";
    if (s.pack == 1 && packed_floats(p) > kMaxPackFloats)
      return fmt::format("packed operands of {} floats exceed the {} limit", packed_floats(p),
                         kMaxPackFloats);
    if (s.pack == 2 && p.align != 4)
      return "PACK = 2 transposes operands of 16-byte aligned problems; PACK = 1 copies the others";
    if (s.pack == 2 && p.transa == Op::N && p.transb == Op::T)
      return "no K-contiguous operand to transpose (NT is already the layout PACK = 2 makes)";
    if (s.pack == 2 && transposed_packed_floats(p) > kMaxPackFloats)
      return fmt::format("transposed operands of {} floats exceed the {} limit",
                         transposed_packed_floats(p), kMaxPackFloats);
    const KSplit split = split_k(p, s.splitk, s.bk);
    // Both ways of sharing out K count arrivals on one counter per output tile.
    if ((split.k_splits > 1 || s.streamk > 0) && tile_count(s, p) > SGEMM_TILE_COUNTERS)
      return fmt::format("sharing K over {} tiles exceeds the {} tile counters", tile_count(s, p),
                         SGEMM_TILE_COUNTERS);
    if (split.k_splits > 1 && partial_floats(s, p, split) > kMaxSplitWorkspaceFloats)
      return fmt::format("split-K workspace of {} floats exceeds the {} limit",
                         partial_floats(s, p, split), kMaxSplitWorkspaceFloats);
    // With one SM (the longest share any device gives a block).
    if (s.streamk > 0 && stream_k_of(s, p, 1).per_block * s.bk > std::numeric_limits<int>::max())
      return "stream-K share of K beyond the kernel's 32-bit iteration counts";
    return {};
  }

  std::vector<std::string> defines(const Knobs& knobs, const ProblemKey& p) const override {
    std::vector<std::string> out;
    for (const std::string& n : names())
      if (n != "SPLITK" && n != "STREAMK" && n != "PACK" && n != "MIN_BLOCKS")
        out.push_back(fmt::format("-D{}={}", n, knob(knobs, n)));
    // Only where it caps: builds without it keep the options (and cache keys) they had.
    if (const int blocks = Shape(knobs).min_blocks; blocks > 1)
      out.push_back(fmt::format("-DMIN_BLOCKS={}", blocks));
    out.push_back(fmt::format("-DSPLITK={}", split_k_define(Shape(knobs).splitk)));
    out.push_back(fmt::format("-DSTREAMK={}", Shape(knobs).streamk));
    // The kernel reads A and B through TMA (in place or packed); only C keeps the problem's
    // alignment. PACK = 1 is the launch's business, so packed and in-place share a kernel.
    out.push_back(fmt::format("-DALIGN_C={}", p.align));
    // With PACK = 2 sgemm_main reads A M-contiguous and B N-contiguous (the copies' layout).
    const bool transposed = Shape(knobs).pack == 2;
    out.push_back(fmt::format("-DTRANS_A={}", !transposed && p.transa == Op::T ? 1 : 0));
    out.push_back(fmt::format("-DTRANS_B={}", transposed || p.transb == Op::T ? 1 : 0));
    return out;
  }

  LaunchGeometry geometry(const Knobs& knobs, const ProblemKey& p,
                          const DeviceLimits& device) const override {
    const Shape s(knobs);
    LaunchGeometry g;
    g.grid.x = static_cast<unsigned>(tile_count(s, p));
    g.block.x = static_cast<unsigned>(s.threads());
    g.smem_bytes = static_cast<unsigned>(s.smem_bytes());
    g.tile_m = s.bm;
    g.tile_n = s.bn;
    // A is K-contiguous when transposed (stored k x m), B when not (stored k x n); PACK = 2 reads
    // copies of those transposed.
    g.tma_a = tile_of(s.bm, s.bk, s.pack != 2 && p.transa == Op::T);
    g.tma_b = tile_of(s.bn, s.bk, s.pack != 2 && p.transb == Op::N);
    const KSplit split = split_k(p, s.splitk, s.bk);
    set_k_split(g, split, partial_floats(s, p, split));
    if (const StreamK sk = stream_k_of(s, p, device.sm_count); sk.grid > 0) {
      g.grid.x = static_cast<unsigned>(sk.grid);
      // For the launch (counters and workspace) and the cost model: a tile is shared by up to
      // tile_splits blocks, each running at most per_block K tiles.
      g.k_splits = std::max(2, sk.tile_splits);
      g.k_slice = static_cast<int>(sk.per_block * s.bk);
      g.workspace_floats = split_workspace_floats(stream_k_partial_floats(s, sk));
    }
    if (s.pack == 1) {
      const PackedOperands packed = pack_layout(p, g.workspace_floats);
      g.pack_a = packed.a;
      g.pack_b = packed.b;
      g.workspace_floats = packed.end_floats;
    }
    if (s.pack == 2) {
      const PackedOperands copies = transposed_pack_layout(p, g.workspace_floats);
      g.pack_a = copies.a;
      g.pack_b = copies.b;
      g.workspace_floats = copies.end_floats;
    }
    return g;
  }

  Knobs knobs_added_later() const override {
    return {{"SPLITK", 1}, {"STREAMK", 0}, {"PACK", 0}, {"MIN_BLOCKS", 1}};
  }

  // Each optional mechanism adds one (split-K and packing two); TMA itself is one, so F1 wins a
  // tie at equal depth.
  int complexity(const Knobs& k) const override {
    const Shape s(k);
    return 1 + (s.stages - 2) + (knob(k, "RASTER") > 1 ? 1 : 0) + (s.splitk > 1 ? 2 : 0) +
           (s.streamk > 0 ? 3 : 0) + (s.pack > 0 ? 2 : 0) + (s.min_blocks > 1 ? 1 : 0);
  }
};

}  // namespace

const Family& f2_tma_family() {
  static const F2Tma family;
  return family;
}

}  // namespace sgt
