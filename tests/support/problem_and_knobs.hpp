// Builders the host tests share: a problem key with minimal leading dimensions, a knob set with
// one knob changed, and a membership test for lists of NVRTC defines.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "space/knobs.hpp"
#include "space/problem.hpp"

namespace sgt::testing {

inline ProblemKey problem(int m, int n, int k, Op ta = Op::N, Op tb = Op::N, int align = 4) {
  return with_minimal_leading_dimensions({ta, tb, m, n, k, 0, 0, 0, align});
}

inline Knobs with(Knobs k, const std::string& name, int value) {
  k[name] = value;
  return k;
}

inline bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace sgt::testing
