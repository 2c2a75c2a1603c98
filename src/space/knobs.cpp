// Canonical text form of knob sets.
#include "space/knobs.hpp"

#include <fmt/format.h>

#include <charconv>

#include "common/error.hpp"

namespace sgt {

std::string knobs_to_string(const Knobs& knobs) {
  std::string out;
  for (const auto& [name, value] : knobs) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}={}", name, value);
  }
  return out;
}

Knobs parse_knobs(const std::string& text) {
  Knobs knobs;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(pos, end - pos);
    const std::size_t eq = item.find('=');
    int value = 0;
    if (eq == std::string::npos || eq == 0 ||
        std::from_chars(item.data() + eq + 1, item.data() + item.size(), value).ec != std::errc{}) {
      throw Error(ErrorKind::invalid_value, fmt::format("knob '{}' is not NAME=INTEGER", item));
    }
    knobs[item.substr(0, eq)] = value;
    pos = end + 1;
  }
  return knobs;
}

int knob(const Knobs& knobs, const std::string& name) {
  const auto it = knobs.find(name);
  if (it == knobs.end())
    throw Error(ErrorKind::invalid_value, fmt::format("knob {} is not set", name));
  return it->second;
}

}  // namespace sgt
