// Family F1 (kernel_templates/f1_simt.cu): SIMT multistage SGEMM. Its knobs, the constraints that
// mirror the template's static_asserts and resource limits, NVRTC defines and launch geometry
// (split-K summed by sgemm_reduce, or with REDUCE by the kernel itself).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "common/int_math.hpp"
#include "sgemm_args.h"
#include "space/family.hpp"
#include "space/k_split.hpp"
#include "space/warp_tiling.hpp"

namespace sgt {
namespace {

constexpr int kReduceThreads = 256;     // sgemm_reduce's __launch_bounds__
constexpr int kMaxReduceBlocks = 8192;  // grid-stride beyond this
constexpr int kMaxReduceGroups = 8;     // threads that share one run's splits
constexpr int kMaxThreadsPerSm = 2048;

const std::vector<std::string>& names() {
  static const std::vector<std::string> n = {
      "BM",    "BN",         "BK",     "WM",     "WN",     "TM",   "TN",   "STAGES", "PAD",
      "REGDB", "MIN_BLOCKS", "RASTER", "SPLITK", "REDUCE", "XCHG", "CWIN", "EVICT"};
  return n;
}

bool in(int v, int lo, int hi) { return v >= lo && v <= hi; }

// Configurations stored before REDUCE (XCHG, CWIN) existed summed their splits in sgemm_reduce
// (stored C directly from the register tiles); before EVICT, read with the default L2 policy.
int reduce_of(const Knobs& k) { return k.contains("REDUCE") ? knob(k, "REDUCE") : 0; }
int exchange_of(const Knobs& k) { return k.contains("XCHG") ? knob(k, "XCHG") : 0; }
int windows_of(const Knobs& k) { return k.contains("CWIN") ? knob(k, "CWIN") : 0; }
int evict_of(const Knobs& k) { return k.contains("EVICT") ? knob(k, "EVICT") : 0; }

// With CWIN, M tiles overlap by this many rows (the template's kStepM = BM - 8).
constexpr int kWindowOverlap = 8;

// Derived facts of one configuration.
struct Shape : TileShape {
  int pad;
  bool windows;
  explicit Shape(const Knobs& k) : TileShape(k), pad(knob(k, "PAD")), windows(windows_of(k) == 1) {}
  int warps() const { return (wm > 0 && wn > 0) ? (bm / wm) * (bn / wn) : 0; }
  int threads() const { return 32 * warps(); }
  int lanes_n() const { return tn > 0 ? wn / tn : 0; }
  // K-major stages of A and B, each k row padded by PAD floats; with CWIN, at least the staged C
  // tile (BN columns of BM + 4 floats).
  std::int64_t smem_bytes() const {
    const std::int64_t stages_bytes = std::int64_t{4} * stages * bk * (bm + bn + 2 * pad);
    return windows ? std::max(stages_bytes, std::int64_t{4} * bn * (bm + 4)) : stages_bytes;
  }
  // Accumulators + two fragment buffers + addressing (kernels.md's rule of thumb).
  int registers_estimate() const { return tm * tn + 2 * (tm + tn) + 30; }
};

KSplit split_of(const Knobs& knobs, const ProblemKey& p) {
  return split_k(p, knob(knobs, "SPLITK"), knob(knobs, "BK"));
}

// Blocks of the grid: with CWIN, M tiles BM - 8 rows apart.
std::int64_t tile_count(const Shape& s, const ProblemKey& p) {
  if (!s.windows) return tile_count(p, s.bm, s.bn);
  const int step = s.bm - kWindowOverlap;
  const std::int64_t tiles_m = p.m <= s.bm ? 1 : 1 + ceil_div64(p.m - s.bm, step);
  return tiles_m * ceil_div64(p.n, s.bn);
}

// Partial sums of a split: k_splits x m x n for sgemm_reduce, partial tiles when the kernel sums.
std::int64_t partial_floats(const Knobs& knobs, const ProblemKey& p, const KSplit& split) {
  const Shape s(knobs);
  return reduce_of(knobs) ? tile_partial_floats(p, split, s.bm, s.bn)
                          : std::int64_t{split.k_splits} * p.m * p.n;
}

class F1Simt final : public Family {
 public:
  std::string name() const override { return "f1_simt"; }
  std::vector<std::string> knob_names() const override { return names(); }

  std::vector<Constraint> constraints(const DeviceLimits& lim) const override {
    // The transposing loader moves 8 consecutive k per 32-byte sector: BK of 8 to 64. Block tiles
    // of 3 x 2^j take 3 warps along that side.
    std::vector<Constraint> c =
        tiling_constraints(lim, block_tile_between(16, 256), bk_between(8, 64),
                           tiles_power_of_two_block_or_three_times());
    const std::vector<Constraint> rest = {
        // Every thread issues at least one 16-byte copy of each operand per tile (for tiles of
        // 2^j, the same number; a 3 x 2^j tile may leave the last pass part-filled).
        {"loader_fills_a_pass",
         [](const Knobs& k) {
           const Shape s(k);
           const int per_pass = s.threads() * 4;
           return per_pass > 0 && s.bm * s.bk >= per_pass && s.bn * s.bk >= per_pass;
         }},
        {"stages_2_to_6", [](const Knobs& k) { return in(knob(k, "STAGES"), 2, 6); }},
        {"pad_0_or_4",
         [](const Knobs& k) {
           const int pad = knob(k, "PAD");
           return pad == 0 || pad == 4;
         }},
        {"regdb_0_or_1", [](const Knobs& k) { return in(knob(k, "REGDB"), 0, 1); }},
        {"raster_1_to_64", [](const Knobs& k) { return in(knob(k, "RASTER"), 1, 64); }},
        // Up to 256 splits: an output of a few tiles over a K of 10^4-10^5 needs a few blocks per
        // SM.
        {"splitk_1_to_256", [](const Knobs& k) { return in(knob(k, "SPLITK"), 1, 256); }},
        {"reduce_0_or_1", [](const Knobs& k) { return in(reduce_of(k), 0, 1); }},
        {"xchg_0_or_1", [](const Knobs& k) { return in(exchange_of(k), 0, 1); }},
        {"cwin_0_or_1", [](const Knobs& k) { return in(windows_of(k), 0, 1); }},
        {"evict_0_or_1", [](const Knobs& k) { return in(evict_of(k), 0, 1); }},
        // C's windows are stored by the kernel's own epilogue, from one whole K.
        {"cwin_unsplit_without_exchange",
         [](const Knobs& k) {
           return windows_of(k) == 0 || (knob(k, "SPLITK") == 1 && exchange_of(k) == 0);
         }},
        // Without a split there is nothing to sum: REDUCE = 1 would duplicate REDUCE = 0.
        {"reduce_needs_split",
         [](const Knobs& k) { return reduce_of(k) == 0 || knob(k, "SPLITK") > 1; }},
        {"min_blocks_1_to_4", [](const Knobs& k) { return in(knob(k, "MIN_BLOCKS"), 1, 4); }},
        {"smem_fits",
         [lim](const Knobs& k) { return Shape(k).smem_bytes() <= lim.smem_optin_bytes; }},
        {"registers_estimate",
         [lim](const Knobs& k) {
           return Shape(k).registers_estimate() <= std::min(255, lim.max_regs_per_thread);
         }},
        // MIN_BLOCKS blocks must fit one SM: registers (allocated in 8s), shared memory, threads.
        {"min_blocks_registers",
         [lim](const Knobs& k) {
           const Shape s(k);
           const std::int64_t regs = (s.registers_estimate() + 7) / 8 * 8;
           return regs * s.threads() * knob(k, "MIN_BLOCKS") <= lim.regs_per_sm;
         }},
        {"min_blocks_smem",
         [lim](const Knobs& k) {
           return lim.smem_fits_blocks(knob(k, "MIN_BLOCKS"), Shape(k).smem_bytes());
         }},
        // MIN_BLOCKS > 1 that leaves the register cap at the maximum compiles to the same code
        // as MIN_BLOCKS = 1: prune the duplicate.
        {"min_blocks_binds",
         [lim](const Knobs& k) {
           const int blocks = knob(k, "MIN_BLOCKS");
           const std::int64_t cap = lim.register_cap(Shape(k).threads(), blocks);
           return blocks == 1 || cap < std::min(255, lim.max_regs_per_thread);
         }},
        // Under a 128-register cap (64 accumulators, 256 threads, 2 blocks) NVRTC's ptxas spills
        // once a thread issues 16 or more copies per tile (ALIGN 1: one per float of A and B).
        {"copies_under_128_register_cap",
         [lim](const Knobs& k) {
           const Shape s(k);
           const int blocks = knob(k, "MIN_BLOCKS");
           const int threads = std::max(1, s.threads());
           const bool capped = lim.register_cap(threads, blocks) <= 128;
           return !capped || (s.bm + s.bn) * s.bk / threads <= 12;
         }},
        // A 3 x 2^j tile has 3 or 6 warps along a side, and its loaders issue more copies per
        // thread than the register estimate above allows for: under a register cap below 255
        // (MIN_BLOCKS 2, or 288 threads), or next to 128 accumulators, NVRTC's ptxas spills.
        {"three_times_tile_uncapped",
         [](const Knobs& k) {
           const Shape s(k);
           const bool three_times = !is_power_of_two(s.bm) || !is_power_of_two(s.bn);
           return !three_times ||
                  (knob(k, "MIN_BLOCKS") == 1 && s.threads() <= 256 && s.tm * s.tn <= 64);
         }},
        {"min_blocks_threads",
         [](const Knobs& k) {
           return Shape(k).threads() * knob(k, "MIN_BLOCKS") <= kMaxThreadsPerSm;
         }},
    };
    c.insert(c.end(), rest.begin(), rest.end());
    return c;
  }

  std::string cannot_implement(const Knobs& knobs, const ProblemKey& p) const override {
    if (std::string why = validate(p); !why.empty()) return why;
    if (p.m == 0 || p.n == 0) return "empty output (m or n is 0): nothing to launch";
    // The exchange serves only C stored narrower than float4; elsewhere XCHG = 1 would duplicate 0.
    if (exchange_of(knobs) && (p.align == 4 || p.ldc % 4 == 0))
      return "XCHG = 1 needs a ldc that is not a multiple of 4 (C is stored as float4 otherwise)";
    if (windows_of(knobs) && (p.align == 4 || p.ldc % 4 == 0))
      return "CWIN = 1 needs a ldc that is not a multiple of 4 (C is stored as float4 otherwise)";
    const KSplit split = split_of(knobs, p);
    if (split.k_splits > 1) {
      const std::int64_t floats = partial_floats(knobs, p, split);
      if (floats > kMaxSplitWorkspaceFloats)
        return fmt::format("split-K workspace of {} floats exceeds the {} limit", floats,
                           kMaxSplitWorkspaceFloats);
      const std::int64_t tiles = tile_count(Shape(knobs), p);
      if (reduce_of(knobs) && tiles > SGEMM_TILE_COUNTERS)
        return fmt::format("split-K over {} tiles exceeds the {} tile counters", tiles,
                           SGEMM_TILE_COUNTERS);
    }
    return {};
  }

  std::vector<std::string> defines(const Knobs& knobs, const ProblemKey& p) const override {
    std::vector<std::string> out;
    for (const std::string& n : names())
      if (n != "REDUCE" && n != "SPLITK" && n != "XCHG" && n != "CWIN" && n != "EVICT")
        out.push_back(fmt::format("-D{}={}", n, knob(knobs, n)));
    out.push_back(fmt::format("-DSPLITK={}", split_k_define(knob(knobs, "SPLITK"))));
    out.push_back(fmt::format("-DREDUCE={}", reduce_of(knobs)));
    // Only where set: the compile options (and so the builds) of XCHG = 0 stay those stored.
    if (exchange_of(knobs)) out.push_back("-DXCHG=1");
    if (windows_of(knobs)) out.push_back("-DCWIN=1");
    out.push_back(fmt::format("-DTRANS_A={}", p.transa == Op::T ? 1 : 0));
    out.push_back(fmt::format("-DTRANS_B={}", p.transb == Op::T ? 1 : 0));
    out.push_back(fmt::format("-DALIGN={}", p.align));
    // Below class 4, whether ldc allows C float4 accesses (its pointer is checked at launch).
    if (p.align < 4) out.push_back(fmt::format("-DC_LD4={}", p.ldc % 4 == 0 ? 1 : 0));
    return out;
  }

  LaunchGeometry geometry(const Knobs& knobs, const ProblemKey& p,
                          const DeviceLimits&) const override {
    const Shape s(knobs);
    LaunchGeometry g;
    g.grid.x = static_cast<unsigned>(tile_count(s, p));  // rasterized in the kernel from a 1-D id
    g.block.x = static_cast<unsigned>(s.threads());
    g.smem_bytes = static_cast<unsigned>(s.smem_bytes());
    g.tile_m = s.bm;
    g.tile_n = s.bn;
    g.c_sector_windows = s.windows;
    // EVICT = 1: the larger operand, streamed past L2 (tall or wide problems), is read under a
    // streaming access-policy window; a launch attribute, so the build is EVICT = 0's.
    if (evict_of(knobs) == 1)
      g.l2_streamed = L2StreamedOperand::of(elements_a(p) >= elements_b(p), p);
    const KSplit split = split_of(knobs, p);
    if (set_k_split(g, split, partial_floats(knobs, p, split))) {
      if (reduce_of(knobs)) return g;
      g.has_reduce = true;
      // Runs of 4 rows of a column along x; along y, groups of splits, each summing about 8.
      int groups = 1;
      while (groups < kMaxReduceGroups && groups * 8 < split.k_splits) groups *= 2;
      const int runs_per_block = kReduceThreads / groups;
      const std::int64_t runs = ceil_div64(p.m, 4) * p.n;
      g.reduce_block.x = static_cast<unsigned>(runs_per_block);
      g.reduce_block.y = static_cast<unsigned>(groups);
      g.reduce_grid.x = static_cast<unsigned>(
          std::clamp<std::int64_t>(ceil_div64(runs, runs_per_block), 1, kMaxReduceBlocks));
    }
    return g;
  }

  Knobs knobs_added_later() const override {
    return {{"REDUCE", 0}, {"XCHG", 0}, {"CWIN", 0}, {"EVICT", 0}};
  }

  // Each optional mechanism adds one; a timing tie goes to the configuration with fewer.
  int complexity(const Knobs& k) const override {
    return (knob(k, "STAGES") - 2) + knob(k, "REGDB") + (knob(k, "PAD") > 0 ? 1 : 0) +
           (knob(k, "RASTER") > 1 ? 1 : 0) + (knob(k, "MIN_BLOCKS") > 1 ? 1 : 0) +
           (knob(k, "SPLITK") > 1 ? 2 : 0) + reduce_of(k) + exchange_of(k) + windows_of(k) +
           evict_of(k);
  }
};

}  // namespace

const Family& f1_simt_family() {
  static const F1Simt family;
  return family;
}

}  // namespace sgt
