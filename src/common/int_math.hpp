// Integer helpers shared by the launch geometry, the search spaces and the reports.
#pragma once

#include <cstdint>

namespace sgt {

// ceil(a / b) for a >= 0, b > 0, without overflow for any int a.
constexpr int ceil_div(int a, int b) { return static_cast<int>((std::int64_t{a} + b - 1) / b); }
// The same in 64 bits, for products of problem sizes.
constexpr std::int64_t ceil_div64(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
// v is 1, 2, 4, ... (tile extents, thread counts).
constexpr bool is_power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace sgt
