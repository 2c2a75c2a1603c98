// What the warp-tiled SIMT families (F1, F2) share: a block tile BM x BN split into warp tiles
// WM x WN of 32 lanes, each lane computing TM x TN from groups of 4. The constraints on those six
// knobs, and the derived thread count.
#pragma once

#include <vector>

#include "space/family.hpp"

namespace sgt {

// 32 x (BM / WM) x (BN / WN); 0 while WM or WN is 0.
// The knobs every warp-tiled family has, of one configuration: block tile BM x BN x BK, warp
// tile WM x WN, thread tile TM x TN, and pipeline STAGES.
struct TileShape {
  int bm, bn, bk, wm, wn, tm, tn, stages;
  explicit TileShape(const Knobs& k)
      : bm(knob(k, "BM")),
        bn(knob(k, "BN")),
        bk(knob(k, "BK")),
        wm(knob(k, "WM")),
        wn(knob(k, "WN")),
        tm(knob(k, "TM")),
        tn(knob(k, "TN")),
        stages(knob(k, "STAGES")) {}
};

int warp_tiled_threads(const Knobs& k);

// Every tile extent (BM, BN, BK, WM, WN, TM, TN) a power of two.
Constraint tiles_power_of_two();
// The same, except that BM and BN may also be 3 x a power of two (48, 96, 192): 3 warps along a
// side, for outputs that 2^j tiles overhang by much (356 rows: 4 x 96 = 384 = 3 x 128).
Constraint tiles_power_of_two_block_or_three_times();
// TM and TN in 4..16: thread tiles are built from groups of 4 (one 128-bit shared load each).
Constraint thread_tile_4_to_16();
// BM and BN in lo..hi ("block_tile_<lo>_to_<hi>"), BK in lo..hi ("bk_<lo>_to_<hi>").
Constraint block_tile_between(int lo, int hi);
Constraint bk_between(int lo, int hi);

// In this order: warp_tile_divides_block, lanes_per_warp_32, lane_layout_4x8_or_8x4 (at most 8
// distinct 16-byte fragment loads per warp and k: conflict-free shared reads) and
// threads_in_range (64 up to the device's block limit, at most 1024).
std::vector<Constraint> warp_tiling_constraints(const DeviceLimits& limits);

// The tiling rules of a warp-tiled family in the order they are checked: the tile extents
// (tiles_power_of_two unless given), its block tile and BK ranges, thread_tile_4_to_16, then
// warp_tiling_constraints.
std::vector<Constraint> tiling_constraints(const DeviceLimits& limits, Constraint block_tile,
                                           Constraint bk,
                                           Constraint extents = tiles_power_of_two());

}  // namespace sgt
