// FNV-1a: small, fast and stable across platforms and releases, which is what a key needs.
#include "common/hash.hpp"

#include <fmt/format.h>

namespace sgt {

std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string hash_hex(std::string_view data) { return fmt::format("{:016x}", fnv1a64(data)); }

std::string hash_parts_hex(std::initializer_list<std::string_view> parts) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::string_view part : parts) {
    const std::string length = fmt::format("{}:", part.size());
    h = fnv1a64(length, h);
    h = fnv1a64(part, h);
  }
  return fmt::format("{:016x}", h);
}

}  // namespace sgt
