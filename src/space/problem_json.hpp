// A problem's fields in JSON, as every JSON output and the tuning channel write them: transa and
// transb as "N" or "T", then m, n, k, lda, ldb, ldc, align.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "space/problem.hpp"

namespace sgt {

// Adds the fields to the object j, in the order above (nlohmann::json or ordered_json).
template <class Json>
void put_problem_fields(Json& j, const ProblemKey& p) {
  j["transa"] = std::string(1, op_char(p.transa));
  j["transb"] = std::string(1, op_char(p.transb));
  j["m"] = p.m;
  j["n"] = p.n;
  j["k"] = p.k;
  j["lda"] = p.lda;
  j["ldb"] = p.ldb;
  j["ldc"] = p.ldc;
  j["align"] = p.align;
}

// The fields read back; throws nlohmann::json's exceptions for a missing or mistyped field.
ProblemKey problem_from_fields(const nlohmann::json& j);

}  // namespace sgt
