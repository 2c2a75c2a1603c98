// Looks up embedded template files (see cmake/EmbedFiles.cmake).
#include "jit/templates.hpp"

#include <fmt/format.h>

#include <map>

#include "common/error.hpp"
#include "common/hash.hpp"

namespace sgt {

const std::map<std::string, std::string_view, std::less<>>& embedded_templates();

namespace {
bool is_header(std::string_view name) { return name.ends_with(".cuh") || name.ends_with(".h"); }

std::map<std::string, std::string_view, std::less<>>& registered() {
  static std::map<std::string, std::string_view, std::less<>> extra;
  return extra;
}
}  // namespace

bool register_template(std::string file_name, std::string_view source) {
  if (is_header(file_name))
    throw Error(ErrorKind::invalid_value,
                fmt::format("{}: only kernel templates can be added, not headers", file_name));
  registered()[std::move(file_name)] = source;
  return true;
}

std::string_view template_source(std::string_view file_name) {
  if (const auto it = embedded_templates().find(file_name); it != embedded_templates().end())
    return it->second;
  if (const auto it = registered().find(file_name); it != registered().end()) return it->second;
  throw Error(ErrorKind::invalid_value, fmt::format("no kernel template named '{}'", file_name));
}

std::vector<std::string> template_header_names() {
  std::vector<std::string> names;
  for (const auto& [name, text] : embedded_templates())
    if (is_header(name)) names.push_back(name);
  return names;
}

std::string template_hash(std::string_view file_name) {
  std::string all{template_source(file_name)};
  for (const auto& [name, text] : embedded_templates()) {
    if (!is_header(name)) continue;
    all += name;
    all += text;
  }
  return hash_hex(all);
}

}  // namespace sgt
