#include "space/problem_json.hpp"

namespace sgt {

ProblemKey problem_from_fields(const nlohmann::json& j) {
  const auto op = [&](const char* name) {
    const std::string s = j.at(name).get<std::string>();
    return parse_op(s.empty() ? '?' : s[0]);
  };
  const auto number = [&](const char* name) { return j.at(name).get<int>(); };
  return {.transa = op("transa"),
          .transb = op("transb"),
          .m = number("m"),
          .n = number("n"),
          .k = number("k"),
          .lda = number("lda"),
          .ldb = number("ldb"),
          .ldc = number("ldc"),
          .align = number("align")};
}

}  // namespace sgt
