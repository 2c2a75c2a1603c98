// The miss log's file format: untuned problems with call counts as a shape-list CSV.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "space/problem.hpp"

namespace sgt {

struct MissCount {
  ProblemKey key;
  std::uint64_t calls = 0;
};

// "m,n,k,transa,transb,lda,ldb,ldc,calls" then one row per problem, heaviest (calls x 2mnk)
// first. Problems differing only in alignment class (or device) are merged; zero counts are left
// out.
std::string miss_log_csv(const std::vector<MissCount>& misses);

}  // namespace sgt
