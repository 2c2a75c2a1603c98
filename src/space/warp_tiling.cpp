#include "space/warp_tiling.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "common/int_math.hpp"

namespace sgt {

int warp_tiled_threads(const Knobs& k) {
  const int wm = knob(k, "WM"), wn = knob(k, "WN");
  return (wm > 0 && wn > 0) ? 32 * (knob(k, "BM") / wm) * (knob(k, "BN") / wn) : 0;
}

Constraint tiles_power_of_two() {
  return {"tiles_power_of_two", [](const Knobs& k) {
            for (const char* name : {"BM", "BN", "BK", "WM", "WN", "TM", "TN"})
              if (!is_power_of_two(knob(k, name))) return false;
            return true;
          }};
}

Constraint tiles_power_of_two_block_or_three_times() {
  return {"tiles_power_of_two_block_or_three_times", [](const Knobs& k) {
            for (const char* name : {"BK", "WM", "WN", "TM", "TN"})
              if (!is_power_of_two(knob(k, name))) return false;
            for (const char* name : {"BM", "BN"}) {
              const int v = knob(k, name);
              if (!is_power_of_two(v) && !(v % 3 == 0 && is_power_of_two(v / 3))) return false;
            }
            return true;
          }};
}

Constraint thread_tile_4_to_16() {
  return {"thread_tile_4_to_16", [](const Knobs& k) {
            const int tm = knob(k, "TM"), tn = knob(k, "TN");
            return tm >= 4 && tm <= 16 && tn >= 4 && tn <= 16;
          }};
}

Constraint block_tile_between(int lo, int hi) {
  return {fmt::format("block_tile_{}_to_{}", lo, hi), [lo, hi](const Knobs& k) {
            const int bm = knob(k, "BM"), bn = knob(k, "BN");
            return bm >= lo && bm <= hi && bn >= lo && bn <= hi;
          }};
}

Constraint bk_between(int lo, int hi) {
  return {fmt::format("bk_{}_to_{}", lo, hi), [lo, hi](const Knobs& k) {
            const int bk = knob(k, "BK");
            return bk >= lo && bk <= hi;
          }};
}

std::vector<Constraint> warp_tiling_constraints(const DeviceLimits& lim) {
  return {
      {"warp_tile_divides_block",
       [](const Knobs& k) {
         const int bm = knob(k, "BM"), bn = knob(k, "BN"), wm = knob(k, "WM"), wn = knob(k, "WN");
         return wm > 0 && wn > 0 && wm <= bm && wn <= bn && bm % wm == 0 && bn % wn == 0;
       }},
      {"lanes_per_warp_32",
       [](const Knobs& k) {
         const int wm = knob(k, "WM"), wn = knob(k, "WN"), tm = knob(k, "TM"), tn = knob(k, "TN");
         return tm > 0 && tn > 0 && wm % tm == 0 && wn % tn == 0 && (wm / tm) * (wn / tn) == 32;
       }},
      {"lane_layout_4x8_or_8x4",
       [](const Knobs& k) {
         const int lanes_m = knob(k, "WM") / knob(k, "TM");
         return lanes_m == 4 || lanes_m == 8;
       }},
      {"threads_in_range",
       [lim](const Knobs& k) {
         const int threads = warp_tiled_threads(k);
         return threads >= 64 && threads <= std::min(1024, lim.max_threads_per_block);
       }},
  };
}

std::vector<Constraint> tiling_constraints(const DeviceLimits& limits, Constraint block_tile,
                                           Constraint bk, Constraint extents) {
  std::vector<Constraint> c = {std::move(extents), std::move(block_tile), std::move(bk),
                               thread_tile_4_to_16()};
  for (Constraint& w : warp_tiling_constraints(limits)) c.push_back(std::move(w));
  return c;
}

}  // namespace sgt
