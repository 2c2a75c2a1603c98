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
}  // namespace

std::string_view template_source(std::string_view file_name) {
  const auto& files = embedded_templates();
  const auto it = files.find(file_name);
  if (it == files.end())
    throw Error(ErrorKind::invalid_value, fmt::format("no kernel template named '{}'", file_name));
  return it->second;
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
