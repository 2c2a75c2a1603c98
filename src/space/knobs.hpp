// A kernel configuration: integer knob values by name, with a canonical text form
// ("BK=8,BM=128,BN=128") used in database keys and on screen.
#pragma once

#include <map>
#include <string>

namespace sgt {

using Knobs = std::map<std::string, int, std::less<>>;

std::string knobs_to_string(const Knobs& knobs);
Knobs parse_knobs(const std::string& text);  // inverse of knobs_to_string; throws invalid_value
int knob(const Knobs& knobs, const std::string& name);  // throws invalid_value when missing

}  // namespace sgt
