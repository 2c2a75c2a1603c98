// Outcome names as stored in the database and written in text dumps.
#include "db/records.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/name_table.hpp"

namespace sgt {
namespace {

constexpr NameTable<Outcome, 8> outcome_names = {{
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
  if (const auto name = name_of(outcome_names, o)) return std::string(*name);
  throw Error(ErrorKind::internal,
              fmt::format("outcome value {} has no name", static_cast<int>(o)));
}

Outcome parse_outcome(const std::string& name) {
  if (const auto value = value_of(outcome_names, name)) return *value;
  std::string known;
  for (const auto& [value, text] : outcome_names)
    known += (known.empty() ? "" : ", ") + std::string(text);
  throw Error(ErrorKind::invalid_value,
              fmt::format("unknown outcome '{}' (expected one of {})", name, known));
}

}  // namespace sgt
