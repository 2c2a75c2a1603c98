#include "space/problem_json.hpp"

namespace sgt {

ProblemKey problem_from_fields(const nlohmann::json& j) {
  const auto op = [&](const char* name) {
    const std::string s = j.at(name).get<std::string>();
    return parse_op(s.empty() ? '?' : s[0]);
  };
  ProblemKey p;
  p.transa = op("transa");
  p.transb = op("transb");
  p.m = j.at("m");
  p.n = j.at("n");
  p.k = j.at("k");
  p.lda = j.at("lda");
  p.ldb = j.at("ldb");
  p.ldc = j.at("ldc");
  p.align = j.at("align");
  return p;
}

}  // namespace sgt
