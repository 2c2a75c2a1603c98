// Search-space files are checked against the family's knob list, with file:line on errors.
#include "config/search_space.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

namespace sgt {
namespace {

[[noreturn]] void fail(const std::string& file, const YAML::Node& at, const std::string& why) {
  throw Error(ErrorKind::invalid_value, fmt::format("{}:{}: {}", file, at.Mark().line + 1, why));
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::invalid_value, fmt::format("{}: cannot open search space", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void product(const FamilySpace& space, std::size_t index, Knobs& current,
             const DeviceLimits& limits, Enumeration& out) {
  if (index == space.knobs.size()) {
    if (failed_constraint(*space.family, current, limits).empty())
      out.valid.push_back({space.family, current});
    else
      ++out.pruned;
    return;
  }
  const auto& [name, values] = space.knobs[index];
  for (int v : values) {
    current[name] = v;
    product(space, index + 1, current, limits, out);
  }
}

}  // namespace

FamilySpace parse_family_space(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorKind::invalid_value, fmt::format("{}:{}: {}", file, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap())
    throw Error(ErrorKind::invalid_value, fmt::format("{}:1: expected a mapping", file));
  const YAML::Node name = root["family"];
  if (!name || !name.IsScalar()) fail(file, root, "missing 'family: NAME'");
  FamilySpace space;
  space.source = file;
  try {
    space.family = &find_family(name.as<std::string>());
  } catch (const Error& e) {
    fail(file, name, e.what());
  }
  for (const auto& kv : root) {
    if (!kv.first.IsScalar())
      fail(file, kv.first, "keys must be names (family, knobs, description)");
    const std::string key = kv.first.Scalar();
    if (key != "family" && key != "knobs" && key != "description")
      fail(file, kv.first,
           fmt::format("unknown key '{}' (expected family, knobs, description)", key));
  }
  const YAML::Node knobs = root["knobs"];
  if (!knobs || !knobs.IsMap()) fail(file, root, "missing 'knobs:' mapping");
  const std::vector<std::string> allowed = space.family->knob_names();
  for (const auto& kv : knobs) {
    if (!kv.first.IsScalar()) fail(file, kv.first, "knob names must be scalars");
    const std::string knob_name = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), knob_name) == allowed.end())
      fail(file, kv.first,
           fmt::format("family {} has no knob '{}' (it has: {})", space.family->name(), knob_name,
                       fmt::join(allowed, ", ")));
    if (!kv.second.IsSequence() || kv.second.size() == 0)
      fail(file, kv.second, fmt::format("knob {} needs a non-empty list of integers", knob_name));
    std::vector<int> values;
    for (const YAML::Node& v : kv.second) {
      try {
        values.push_back(v.as<int>());
      } catch (const YAML::Exception&) {
        fail(file, v, fmt::format("knob {}: '{}' is not an integer", knob_name, v.Scalar()));
      }
    }
    space.knobs.emplace_back(knob_name, values);
  }
  // A knob added to the family after the file was written takes the value that configurations
  // stored before it read as (so older space files keep their meaning); any other is required.
  const Knobs added_later = space.family->knobs_added_later();
  for (const std::string& required : allowed) {
    const bool present = std::any_of(space.knobs.begin(), space.knobs.end(),
                                     [&](const auto& k) { return k.first == required; });
    if (present) continue;
    const auto later = added_later.find(required);
    if (later == added_later.end())
      fail(file, knobs, fmt::format("knob {} has no values", required));
    space.knobs.emplace_back(required, std::vector<int>{later->second});
  }
  return space;
}

SearchSpace load_search_space(const std::string& path) {
  SearchSpace space;
  namespace fs = std::filesystem;
  if (fs::is_directory(path)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(path))
      if (entry.path().extension() == ".yaml") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) space.families.push_back(parse_family_space(read_file(f), f));
  } else {
    space.families.push_back(parse_family_space(read_file(path), path));
  }
  if (space.families.empty())
    throw Error(ErrorKind::invalid_value, fmt::format("{}: no search-space files", path));
  return space;
}

Enumeration enumerate(const SearchSpace& space, const DeviceLimits& limits) {
  Enumeration out;
  for (const FamilySpace& f : space.families) {
    Knobs current;
    product(f, 0, current, limits, out);
  }
  return out;
}

}  // namespace sgt
