// Facts recorded with every run: when and where it happened.
#pragma once

#include <string>

namespace sgt {

std::string utc_timestamp();  // "2026-12-01T10:32:50Z"
std::string host_name();

}  // namespace sgt
