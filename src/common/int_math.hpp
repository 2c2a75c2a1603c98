// Integer helpers shared by the launch geometry and the reports.
#pragma once

#include <cstdint>

namespace sgt {

// ceil(a / b) for a >= 0, b > 0, without overflow for any int a.
constexpr int ceil_div(int a, int b) { return static_cast<int>((std::int64_t{a} + b - 1) / b); }

}  // namespace sgt
