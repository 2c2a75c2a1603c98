// Stable 64-bit content hashes (FNV-1a) for cache and database keys, printed as 16 hex digits.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sgt {

std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed = 0xcbf29ce484222325ULL);
std::string hash_hex(std::string_view data);
// Hash of several parts, each length-prefixed so ("ab","c") and ("a","bc") differ.
std::string hash_parts_hex(std::initializer_list<std::string_view> parts);

}  // namespace sgt
