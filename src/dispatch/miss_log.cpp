// Merging, ordering and formatting of the miss log.
#include "dispatch/miss_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace sgt {

std::string miss_log_csv(const std::vector<MissCount>& misses) {
  using Shape = std::tuple<int, int, int, char, char, int, int, int>;
  std::map<Shape, std::uint64_t> calls;
  for (const MissCount& miss : misses) {
    if (miss.calls == 0) continue;
    const ProblemKey& k = miss.key;
    calls[{k.m, k.n, k.k, op_char(k.transa), op_char(k.transb), k.lda, k.ldb, k.ldc}] += miss.calls;
  }
  std::vector<std::pair<Shape, std::uint64_t>> rows(calls.begin(), calls.end());
  const auto weight = [](const std::pair<Shape, std::uint64_t>& row) {
    const auto& [m, n, k, ta, tb, lda, ldb, ldc] = row.first;
    return static_cast<double>(row.second) * 2.0 * m * n * k;
  };
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const auto& a, const auto& b) { return weight(a) > weight(b); });
  std::string out = "m,n,k,transa,transb,lda,ldb,ldc,calls\n";
  for (const auto& [shape, n_calls] : rows) {
    const auto& [m, n, k, ta, tb, lda, ldb, ldc] = shape;
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", m, n, k, ta, tb, lda, ldb, ldc, n_calls);
  }
  return out;
}

}  // namespace sgt
