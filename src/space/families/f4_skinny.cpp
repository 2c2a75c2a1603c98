// Host side of family F4 (skinny SGEMM, kernel_templates/f4_skinny.cu): knobs, constraints, the
// problems a configuration claims (min(m, n) <= 64), NVRTC defines and the split-K launch geometry
// (a second kernel sums the splits, or with REDUCE = 1 the last block of each output tile does).
// EVICT = 1 reads the streamed operand under an L2 evict-first policy: DIRECT = 1 by hinted loads,
// the ring through a streaming access-policy window on the launch; WIN = 1 copies a streamed
// operand below 16-byte alignment in 16-byte windows.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "common/int_math.hpp"
#include "sgemm_args.h"
#include "space/family.hpp"

namespace sgt {
namespace {

constexpr int kMaxSplits = 1024;  // bounds the workspace and the reduce's work per output
constexpr int kMaxSmall = 64;     // the largest small dimension F4 takes

// Sizes derived from the knobs, as the template derives them (f4_skinny.cu, namespace f4).
struct Shape {
  int bs, ts, tg, threads, ksl, bk, stages, splitk, occ, direct, pf, reduce, evict, win;
  int minb;  // blocks per SM the launch bounds allow for: OCC / WARPS
  int sg, tpk, gt, bg, kps;
};

Shape shape_of(const Knobs& k) {
  Shape s{};
  s.bs = knob(k, "BS");
  s.ts = knob(k, "TS");
  s.tg = knob(k, "TG");
  s.threads = 32 * knob(k, "WARPS");
  s.ksl = knob(k, "KSL");
  s.bk = knob(k, "BK");
  s.stages = knob(k, "STAGES");
  s.splitk = knob(k, "SPLITK");
  s.occ = knob(k, "OCC");
  s.direct = knob(k, "DIRECT");
  s.pf = knob(k, "PF");
  // Configurations stored before REDUCE existed summed their splits in sgemm_reduce.
  s.reduce = k.contains("REDUCE") ? knob(k, "REDUCE") : 0;
  // ... and read X with the default L2 policy before EVICT existed.
  s.evict = k.contains("EVICT") ? knob(k, "EVICT") : 0;
  // ... and copied X ALIGN floats at a time before WIN existed.
  s.win = k.contains("WIN") ? knob(k, "WIN") : 0;
  s.minb = s.threads > 0 ? std::max(1, 32 * s.occ / s.threads) : 1;
  s.sg = s.ts > 0 ? s.bs / s.ts : 0;
  s.tpk = s.ksl > 0 ? s.threads / s.ksl : 0;
  s.gt = s.sg > 0 ? s.tpk / s.sg : 0;
  s.bg = s.gt * s.tg;
  s.kps = s.ksl > 0 ? s.bk / s.ksl : 0;
  return s;
}

// The template's layouts: is the streamed operand X contiguous along G, is Y contiguous along K.
struct Layout {
  bool small_m, xg, yk;
};

Layout layout_of(const ProblemKey& p) {
  Layout l{};
  l.small_m = p.m < p.n;  // the smaller side is the small dimension; ties stream A
  l.xg = l.small_m ? p.transb == Op::T : p.transa == Op::N;
  l.yk = l.small_m ? p.transa == Op::T : p.transb == Op::N;
  return l;
}

// Dynamic shared memory in floats: the cp.async ring or the K-slice partial tiles, the larger.
// A split of fewer chunks than STAGES only touches that many stages (short K: more blocks fit).
std::int64_t smem_floats(const Shape& s, bool xg, bool yk, int chunks_per_split = 1 << 30) {
  // WIN = 1 (X contiguous along G only) pads each k row of X by the float4 its window adds.
  const std::int64_t x_stage =
      xg ? std::int64_t{s.bk} * (s.bg + 4 * s.win) : std::int64_t{s.bg} * (s.bk + 4);
  const std::int64_t y_stage = yk ? std::int64_t{s.bs} * (s.bk + 4) : std::int64_t{s.bk} * s.bs;
  const std::int64_t ring = std::min(s.stages, chunks_per_split) * (x_stage + y_stage);
  const std::int64_t red = std::int64_t{s.ksl} * s.bs * (s.bg + 1);
  return std::max(ring, red);
}

std::int64_t smem_floats_worst(const Shape& s) {
  std::int64_t worst = 0;
  for (bool xg : {false, true})
    for (bool yk : {false, true}) worst = std::max(worst, smem_floats(s, xg, yk));
  return worst;
}

// Registers a thread needs at least: accumulators, one 4-k step of X fragments, one Y vector,
// addresses and loop state. Without a cap ptxas takes far more (prefetching fragments).
int register_estimate(const Shape& s) { return s.tg * s.ts + 4 * s.tg + 28; }
// What ptxas takes when nothing caps it, roughly (70 for TG x TS = 4 x 1, 147 for 4 x 16).
int register_uncapped(const Shape& s) { return s.tg * s.ts + 4 * s.tg + 4 * s.ts + 60; }
int register_cap(const Shape& s, const DeviceLimits& limits) {
  return std::min(limits.max_regs_per_thread, limits.regs_per_sm / (s.threads * s.minb) / 8 * 8);
}

// SPLITK counts waves of `sms` blocks, one per SM of the device.
int split_count(const Shape& s, int tiles, int k, int sms) {
  const int chunks = ceil_div(k, s.bk);
  if (s.splitk == 0 || tiles >= s.splitk * sms) return 1;
  const int wanted = std::max(1, s.splitk * sms / tiles);
  const int splits = std::min({wanted, chunks, kMaxSplits});
  return ceil_div(chunks, ceil_div(chunks, splits));  // no empty split
}

// DIRECT = 1 (X through registers): warps along G, the block's G tile, Y's shared row pitch.
int direct_gw(const Shape& s) {
  const int d = s.ksl * s.sg;
  return d > 0 && s.threads / 32 % d == 0 ? s.threads / 32 / d : 0;
}
int direct_bg(const Shape& s) { return direct_gw(s) * 32 * s.tg; }
int direct_ypitch(const Shape& s) { return s.bs >= 4 ? s.bs + 4 : s.bs; }
std::int64_t direct_smem_floats(const Shape& s, int k_slice) {
  const std::int64_t y = std::int64_t{k_slice} * direct_ypitch(s);
  const std::int64_t red = std::int64_t{s.ksl} * s.bs * (direct_bg(s) + 4);
  return std::max(y, red);
}
// Accumulators, STAGES + 1 rows of X fragments, addresses and loop state (ptxas, sm_90: TG x TS
// = 4 x 16 with 8 rows in flight fits 128 registers without spills; 8 x 1 with 8 rows spills
// under 64).
int direct_register_estimate(const Shape& s) { return s.tg * s.ts + s.tg * (s.stages + 1) + 24; }
// Splits for DIRECT: enough that each K slice's Y fits in BK k, and SPLITK waves of blocks.
int direct_split_count(const Shape& s, int tiles, int k, int sms) {
  int splits = ceil_div(k, s.bk);
  if (s.splitk > 0 && tiles < s.splitk * sms) splits = std::max(splits, s.splitk * sms / tiles);
  splits = std::min({splits, ceil_div(k, 16), kMaxSplits});
  const int k_slice = ceil_div(ceil_div(k, splits), 16) * 16;
  return ceil_div(k, k_slice);
}
int direct_k_slice(int splits, int k) { return ceil_div(ceil_div(k, splits), 16) * 16; }

class F4Skinny final : public Family {
 public:
  std::string name() const override { return "f4_skinny"; }

  std::vector<std::string> knob_names() const override {
    return {"BS",     "TS",  "TG",     "WARPS", "KSL",    "BK",    "STAGES",
            "SPLITK", "OCC", "DIRECT", "PF",    "REDUCE", "EVICT", "WIN"};
  }

  std::vector<Constraint> constraints(const DeviceLimits& limits) const override {
    std::vector<Constraint> out = shared_path_constraints(limits);
    // The shared-memory ring's rules say nothing about DIRECT = 1 (its own rules follow).
    for (Constraint& c : out)
      if (!common_rule(c.name))
        c.holds = [h = std::move(c.holds)](const Knobs& k) {
          return knob(k, "DIRECT") != 0 || h(k);
        };
    std::vector<Constraint> direct = direct_constraints(limits);
    out.insert(out.end(), direct.begin(), direct.end());
    std::vector<Constraint> switches = switch_constraints(limits);
    out.insert(out.end(), switches.begin(), switches.end());
    return out;
  }

  // The switches: REDUCE (where the splits are summed), EVICT and WIN. DIRECT = 1 splits K
  // whenever it exceeds BK; the ring splits only with SPLITK > 0, so REDUCE = 1 with SPLITK = 0
  // would be REDUCE = 0 again.
  static std::vector<Constraint> switch_constraints(const DeviceLimits& limits) {
    return {
        {"reduce_is_0_or_1",
         [](const Knobs& k) {
           const int r = shape_of(k).reduce;
           return r == 0 || r == 1;
         }},
        {"evict_is_0_or_1",
         [](const Knobs& k) {
           const int e = shape_of(k).evict;
           return e == 0 || e == 1;
         }},
        {"win_is_0_or_1",
         [](const Knobs& k) {
           const int w = shape_of(k).win;
           return w == 0 || w == 1;
         }},
        // Windows are copies into the shared-memory ring.
        {"win_only_on_the_ring",
         [](const Knobs& k) { return shape_of(k).win == 0 || knob(k, "DIRECT") == 0; }},
        // Windows at one block per SM's worth of registers: the windows' row offsets and the copy
        // loop's addresses spilled under a 128-register cap (ptxas, sm_90: 24-404 bytes with
        // TG x TS = 4 x 16, 8 x 8, and 4 x 8 in two S groups at BK 64).
        {"win_registers_uncapped",
         [limits](const Knobs& k) {
           const Shape s = shape_of(k);
           return s.win == 0 || register_cap(s, limits) >= limits.max_regs_per_thread;
         }},
        {"reduce_only_where_k_splits",
         [](const Knobs& k) {
           const Shape s = shape_of(k);
           return s.reduce == 0 || s.direct == 1 || s.splitk > 0;
         }},
    };
  }

  static bool common_rule(const std::string& name) {
    for (const char* n :
         {"bs_power_of_two_up_to_64", "ts_power_of_two_dividing_bs_up_to_16", "tg_is_4_or_8",
          "threads_power_of_two_in_range", "splitk_0_to_16", "ts_is_bs_up_to_16_else_8_or_16",
          "accumulators_at_most_64", "occ_multiple_of_warps_up_to_64"})
      if (name == n) return true;
    return false;
  }

  // DIRECT = 1: BK bounds the K range of a block (its Y slice in shared memory), STAGES is the
  // number of X rows in flight per thread, KSL the warps along K, PF the L2 prefetch distance.
  static std::vector<Constraint> direct_constraints(const DeviceLimits& limits) {
    auto direct = [](const Knobs& k) { return knob(k, "DIRECT") == 1; };
    return {
        {"direct_is_0_or_1",
         [](const Knobs& k) {
           const int d = knob(k, "DIRECT");
           return d == 0 || d == 1;
         }},
        {"pf_only_with_direct_0_or_8_to_256",
         [](const Knobs& k) {
           const int pf = knob(k, "PF");
           return pf == 0 ||
                  (knob(k, "DIRECT") == 1 && is_power_of_two(pf) && pf >= 8 && pf <= 256);
         }},
        // Measured (H200, exhaustive over DIRECT block shapes; docs/findings.md, "Registers for
        // GEMV, the ring for S = 16"): registers win on GEMV-like S
        // (4096x1x4096: 25.8 us against 28.2 for the ring); at S = 16 the ring wins (31.3 against
        // 43.5 for the best of 204 DIRECT shapes).
        {"direct_only_for_s_up_to_4",
         [direct](const Knobs& k) { return !direct(k) || knob(k, "BS") <= 4; }},
        // ... and there the best blocks were 8 warps, all along K, 4 rows of G per lane, K slices
        // of 512 and two blocks per SM (25.8-26.5 us for the next best shapes; 8 rows per lane
        // 29.1, L2 prefetch no gain).
        {"direct_blocks_are_8_warps_along_k",
         [direct](const Knobs& k) {
           return !direct(k) ||
                  (knob(k, "WARPS") == 8 && knob(k, "KSL") == 8 && knob(k, "TG") == 4 &&
                   knob(k, "BK") == 512 && knob(k, "OCC") == 16);
         }},
        // The ring's blocks stay at 8 warps or fewer (16 is for DIRECT = 1).
        {"ring_blocks_up_to_8_warps",
         [direct](const Knobs& k) { return direct(k) || knob(k, "WARPS") <= 8; }},
        {"direct_warps_tile_g_k_and_s",
         [direct](const Knobs& k) { return !direct(k) || direct_gw(shape_of(k)) >= 1; }},
        {"direct_bk_power_of_two_64_to_4096",
         [direct](const Knobs& k) {
           const int bk = knob(k, "BK");
           return !direct(k) || (is_power_of_two(bk) && bk >= 64 && bk <= 4096);
         }},
        {"direct_stages_1_to_16",
         [direct](const Knobs& k) {
           const int st = knob(k, "STAGES");
           return !direct(k) || (st >= 1 && st <= 16);
         }},
        // Each warp streams at least 16 k of a full BK slice.
        {"direct_k_per_warp_at_least_16",
         [direct](const Knobs& k) {
           const Shape s = shape_of(k);
           return !direct(k) || s.bk / s.ksl >= 16;
         }},
        {"direct_registers_fit",
         [direct, limits](const Knobs& k) {
           const Shape s = shape_of(k);
           return !direct(k) || direct_register_estimate(s) <= register_cap(s, limits);
         }},
        {"direct_shared_memory_fits",
         [direct, limits](const Knobs& k) {
           const Shape s = shape_of(k);
           if (!direct(k)) return true;
           const std::int64_t bytes = 4 * direct_smem_floats(s, s.bk);
           const std::int64_t per_sm = limits.smem_optin_bytes + 1024;
           return bytes <= limits.smem_optin_bytes && s.minb * (bytes + 1024) <= per_sm;
         }},
    };
  }

  // The shared-memory path's rules: its tiling, then the resources a block takes.
  static std::vector<Constraint> shared_path_constraints(const DeviceLimits& limits) {
    std::vector<Constraint> all = shared_path_tiling(limits);
    for (Constraint& c : shared_path_resources(limits)) all.push_back(std::move(c));
    return all;
  }

  static std::vector<Constraint> shared_path_tiling(const DeviceLimits& limits) {
    return {
        {"bs_power_of_two_up_to_64",
         [](const Knobs& k) {
           const int bs = knob(k, "BS");
           return is_power_of_two(bs) && bs <= kMaxSmall;
         }},
        {"ts_power_of_two_dividing_bs_up_to_16",
         [](const Knobs& k) {
           const Shape s = shape_of(k);
           return is_power_of_two(s.ts) && s.ts <= 16 && s.ts <= s.bs;
         }},
        {"tg_is_4_or_8",
         [](const Knobs& k) {
           const int tg = knob(k, "TG");
           return tg == 4 || tg == 8;
         }},
        {"threads_power_of_two_in_range",
         [limits](const Knobs& k) {
           const Shape s = shape_of(k);
           return is_power_of_two(s.threads) && s.threads >= 64 &&
                  s.threads <= std::min(1024, limits.max_threads_per_block);
         }},
        {"k_slices_and_s_groups_divide_the_block",
         [](const Knobs& k) {
           const Shape s = shape_of(k);
           return is_power_of_two(s.ksl) && s.threads % (s.ksl * s.sg) == 0;
         }},
        // Blocks of fewer than 8 warps are for short K, where many resident blocks overlap load,
        // compute and store; sliced K is for long K in big blocks.
        {"small_blocks_have_no_k_slices",
         [](const Knobs& k) {
           const Shape s = shape_of(k);
           return s.threads >= 256 || s.ksl == 1;
         }},
        // A quarter warp (8 lanes) then reads one contiguous shared row: no bank conflicts.
        {"at_least_8_lanes_along_g", [](const Knobs& k) { return shape_of(k).gt >= 8; }},
        {"bk_power_of_two_16_to_128",
         [](const Knobs& k) {
           const int bk = knob(k, "BK");
           return is_power_of_two(bk) && bk >= 16 && bk <= 128;
         }},
        // Fragments are read 4 k at a time; more than 32 k per slice and stage bloats the unrolled
        // loop.
        {"k_per_slice_4_to_32",
         [](const Knobs& k) {
           const Shape s = shape_of(k);
           return s.kps >= 4 && s.kps <= 32;
         }},
        {"stages_2_to_8",
         [](const Knobs& k) {
           const int st = knob(k, "STAGES");
           return st >= 2 && st <= 8;
         }},
        {"splitk_0_to_16",
         [](const Knobs& k) {
           const int sk = knob(k, "SPLITK");
           return sk >= 0 && sk <= 16;
         }},
        // Up to 16 columns a thread takes the whole S tile (each X element is read from shared
        // once); wider tiles split S over 2 to 8 groups of 8 or 16 columns.
        {"ts_is_bs_up_to_16_else_8_or_16",
         [](const Knobs& k) {
           const Shape s = shape_of(k);
           return s.ts == std::min(s.bs, 16) || (s.bs >= 32 && s.ts == 8);
         }},
    };
  }

  // Registers, occupancy, loads in flight and shared memory.
  static std::vector<Constraint> shared_path_resources(const DeviceLimits& limits) {
    return {
        // 64 accumulators plus fragments stay near 128 registers: two blocks of 256 per SM.
        {"accumulators_at_most_64",
         [](const Knobs& k) {
           const Shape s = shape_of(k);
           return s.tg * s.ts <= 64;
         }},
        {"occ_multiple_of_warps_up_to_64",
         [](const Knobs& k) {
           const Shape s = shape_of(k);
           return s.occ >= 1 && s.occ <= 64 && s.occ % (s.threads / 32) == 0;
         }},
        // __launch_bounds__(threads, OCC / WARPS) caps registers at regs_per_sm / (32 * OCC);
        // below what the accumulators and one step of fragments need, ptxas would spill.
        {"registers_fit",
         [limits](const Knobs& k) {
           const Shape s = shape_of(k);
           return register_estimate(s) <= register_cap(s, limits);
         }},
        // Measured (ptxas, sm_90): 16 columns in 2+ S groups spill 4-20 bytes under a
        // 128-register cap; 8 columns, or 16 in one group, do not.
        {"capped_s_groups_take_8_columns",
         [limits](const Knobs& k) {
           const Shape s = shape_of(k);
           return register_cap(s, limits) >= limits.max_regs_per_thread || s.sg == 1 || s.ts <= 8;
         }},
        // A cap above what ptxas takes anyway compiles the same kernel as OCC = WARPS.
        {"occupancy_cap_binds",
         [limits](const Knobs& k) {
           const Shape s = shape_of(k);
           const int cap = register_cap(s, limits);
           return cap >= limits.max_regs_per_thread || cap < register_uncapped(s);
         }},
        // Little's law: 4.3 TB/s over 132 SMs with about 1 us of latency needs about 32 KB in
        // flight per SM; the ring keeps STAGES - 1 stages in flight in each of OCC / WARPS blocks.
        {"at_least_32_kb_in_flight_per_sm",
         [](const Knobs& k) {
           const Shape s = shape_of(k);
           const std::int64_t stage_bytes = 4 * std::int64_t{s.bk} * (s.bg + s.bs);
           return (s.stages - 1) * stage_bytes * s.minb >= 32 * 1024;
         }},
        // ... and a ring one stage shorter that still keeps 96 KB in flight is deep enough.
        {"no_needless_stage",
         [](const Knobs& k) {
           const Shape s = shape_of(k);
           const std::int64_t stage_bytes = 4 * std::int64_t{s.bk} * (s.bg + s.bs);
           return s.stages <= 2 || (s.stages - 2) * stage_bytes * s.minb < 96 * 1024;
         }},
        // Per block, and for OCC / WARPS blocks per SM (228 KB per SM, 1 KB reserved per block).
        {"shared_memory_fits",
         [limits](const Knobs& k) {
           const Shape s = shape_of(k);
           const std::int64_t bytes = 4 * smem_floats_worst(s);
           const std::int64_t per_sm = limits.smem_optin_bytes + 1024;
           return bytes <= limits.smem_optin_bytes && s.minb * (bytes + 1024) <= per_sm;
         }},
    };
  }

  std::string cannot_implement(const Knobs& knobs, const ProblemKey& p) const override {
    if (std::string why = validate(p); !why.empty()) return why;
    if (p.m < 1 || p.n < 1 || p.k < 1)
      return fmt::format("f4_skinny needs m, n, k >= 1 (got {}x{}x{})", p.m, p.n, p.k);
    const Shape s = shape_of(knobs);
    const int small = std::min(p.m, p.n);
    if (small > kMaxSmall)
      return fmt::format("min(m, n) = {} is above {}: not a skinny problem", small, kMaxSmall);
    // Each tile of the small dimension streams the big operand once more: at most two tiles.
    if (small > 2 * s.bs)
      return fmt::format("min(m, n) = {} needs more than two BS = {} tiles", small, s.bs);
    // A tile four or more times the small dimension wastes three quarters of its FMAs.
    if (s.bs >= 4 * small) return fmt::format("BS = {} is 4x or more min(m, n) = {}", s.bs, small);
    if (s.direct == 1) {
      if (!layout_of(p).xg)
        return "DIRECT = 1 streams a big operand contiguous along the big dimension only";
      if (p.k > std::int64_t{kMaxSplits} * s.bk)
        return fmt::format("k = {} needs more than {} splits of BK = {}", p.k, kMaxSplits, s.bk);
    }
    if (s.win == 1) {
      if (!layout_of(p).xg)
        return "WIN = 1 copies windows of a big operand contiguous along the big dimension only";
      if (p.align == 4) return "WIN = 1 is for operands below alignment class 4";
    }
    if (s.reduce == 1) {
      // Without a split the kernel is REDUCE = 0's: one candidate is enough. Judged on the
      // reference device (DeviceLimits' defaults): on another SM count the split may differ,
      // and a REDUCE = 1 launch without one still runs correctly.
      const LaunchGeometry g = geometry(knobs, p, DeviceLimits{});
      if (g.k_splits == 1) return "REDUCE = 1 without a K split runs as REDUCE = 0";
      if (std::int64_t{g.grid.x} * g.grid.y > SGEMM_TILE_COUNTERS)
        return fmt::format(
            "REDUCE = 1 needs one arrival counter per output tile: {} tiles, {} counters",
            std::int64_t{g.grid.x} * g.grid.y, SGEMM_TILE_COUNTERS);
    }
    return {};
  }

  std::vector<std::string> defines(const Knobs& knobs, const ProblemKey& p) const override {
    const Shape s = shape_of(knobs);
    std::vector<std::string> out;
    for (const std::string& name : knob_names())
      if (name != "REDUCE" && name != "EVICT" && name != "WIN")
        out.push_back(fmt::format("-D{}={}", name, knob(knobs, name)));
    out.push_back(fmt::format("-DREDUCE={}", s.reduce));
    // Only global loads take the L2 hint: ptxas 13.0 miscompiles hinted cp.async into a copy that
    // faults as an illegal instruction, in builds no rule predicts (H100 and H200: 4-byte, partial
    // and whole 16-byte copies, BS 1, 8, 32 and 64). The ring's EVICT = 1 is a launch attribute
    // over EVICT = 0's build (geometry).
    out.push_back(fmt::format("-DEVICT={}", s.direct == 1 ? s.evict : 0));
    // Only where set: builds without windows keep the options (and cache keys) they had.
    if (s.win == 1) out.push_back("-DWIN=1");
    out.push_back(fmt::format("-DTRANS_A={}", p.transa == Op::T ? 1 : 0));
    out.push_back(fmt::format("-DTRANS_B={}", p.transb == Op::T ? 1 : 0));
    out.push_back(fmt::format("-DALIGN={}", p.align));
    out.push_back(fmt::format("-DSMALL_M={}", layout_of(p).small_m ? 1 : 0));
    return out;
  }

  LaunchGeometry geometry(const Knobs& knobs, const ProblemKey& p,
                          const DeviceLimits& device) const override {
    const Shape s = shape_of(knobs);
    const Layout l = layout_of(p);
    const int big = l.small_m ? p.n : p.m, small = l.small_m ? p.m : p.n;
    const bool direct = s.direct == 1;
    LaunchGeometry g;
    g.grid.x = static_cast<unsigned>(ceil_div(big, direct ? direct_bg(s) : s.bg));
    g.grid.y = static_cast<unsigned>(ceil_div(small, s.bs));
    const int big_tile = direct ? direct_bg(s) : s.bg;
    g.tile_m = l.small_m ? s.bs : big_tile;
    g.tile_n = l.small_m ? big_tile : s.bs;
    // The grid walks the big dimension first, so each further tile of S streams X again.
    g.stream_floats = static_cast<double>(big) * static_cast<double>(p.k);
    g.stream_passes = static_cast<int>(g.grid.y);
    // Below class 4, X is copied ALIGN floats at a time, unless in windows (WIN = 1).
    g.narrow_stream = p.align < 4 && s.win == 0;
    if (s.evict == 1 && !direct) g.l2_streamed = L2StreamedOperand::of(!l.small_m, p);  // X
    const std::int64_t tiles = std::int64_t{g.grid.x} * g.grid.y;
    const int tiles_int = static_cast<int>(std::min<std::int64_t>(tiles, 1 << 30));
    int splits = 0;
    if (direct) {
      splits = direct_split_count(s, tiles_int, p.k, device.sm_count);
      const int k_slice = direct_k_slice(splits, p.k);
      g.smem_bytes = static_cast<unsigned>(4 * direct_smem_floats(s, std::min(k_slice, p.k)));
      g.k_slice = splits > 1 ? k_slice : 0;
    } else {
      splits = split_count(s, tiles_int, p.k, device.sm_count);
      const int chunks_per_split = ceil_div(ceil_div(p.k, s.bk), splits);
      g.smem_bytes = static_cast<unsigned>(4 * smem_floats(s, l.xg, l.yk, chunks_per_split));
      // 0 means all of K (and keeps a rounded-up K near 2^31 out of int range).
      g.k_slice = splits > 1 ? chunks_per_split * s.bk : 0;
    }
    g.grid.z = static_cast<unsigned>(splits);
    g.block.x = static_cast<unsigned>(s.threads);
    g.k_splits = splits;
    if (splits > 1) {
      const std::int64_t mn = std::int64_t{p.m} * p.n;
      g.workspace_floats =
          SGEMM_TILE_COUNTERS + static_cast<std::size_t>(mn) * static_cast<std::size_t>(splits);
    }
    g.has_reduce = splits > 1 && s.reduce == 0;
    if (g.has_reduce) {
      const std::int64_t mn = std::int64_t{p.m} * p.n;
      // Threads along the splits: each sums about 8 of them, then a fixed tree combines them.
      int rz = 1;
      while (rz < 32 && rz * 16 <= splits) rz *= 2;
      const int rx = rz <= 8 ? 256 / rz : 32;
      g.reduce_block.x = static_cast<unsigned>(rx);
      g.reduce_block.y = static_cast<unsigned>(rz);
      g.reduce_grid.x = static_cast<unsigned>((mn + rx - 1) / rx);
    }
    return g;
  }

  Knobs knobs_added_later() const override { return {{"REDUCE", 0}, {"EVICT", 0}, {"WIN", 0}}; }

  int complexity(const Knobs& knobs) const override {
    // Prefer no split, then fewer waves, shallower rings, fewer K slices and fewer threads, and the
    // second kernel over arrival counters, and the default L2 policy.
    const Shape s = shape_of(knobs);
    int log_ksl = 0;
    while ((1 << log_ksl) < s.ksl) ++log_ksl;
    return 8 * (s.splitk > 0) + s.splitk + s.stages + log_ksl + s.threads / 128 + (s.pf > 0) +
           s.reduce + s.evict + s.win;
  }
};

}  // namespace

const Family& f4_skinny_family() {
  static const F4Skinny family;
  return family;
}

}  // namespace sgt
