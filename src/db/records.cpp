// Outcome names as stored in the database and written in text dumps.
#include "db/records.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "common/error.hpp"

namespace sgt {
namespace {

constexpr std::array<std::pair<Outcome, const char*>, 8> outcome_names = {{
    {Outcome::ok, "ok"},
    {Outcome::compile_failed, "compile_failed"},
    {Outcome::resources_exceeded, "resources_exceeded"},
    {Outcome::launch_failed, "launch_failed"},
    {Outcome::incorrect, "incorrect"},
    {Outcome::timed_out, "timed_out"},
    {Outcome::skipped, "skipped"},
    {Outcome::compiled, "compiled"},
}};

}  // namespace

std::string outcome_name(Outcome o) {
  for (const auto& [value, name] : outcome_names)
    if (value == o) return name;
  throw Error(ErrorKind::internal,
              fmt::format("outcome value {} has no name", static_cast<int>(o)));
}

Outcome parse_outcome(const std::string& name) {
  for (const auto& [value, text] : outcome_names)
    if (name == text) return value;
  std::string known;
  for (const auto& [value, text] : outcome_names)
    known += (known.empty() ? "" : ", ") + std::string(text);
  throw Error(ErrorKind::invalid_value,
              fmt::format("unknown outcome '{}' (expected one of {})", name, known));
}

}  // namespace sgt
