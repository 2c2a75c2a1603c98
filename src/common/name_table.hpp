// An enum's names as one table of (value, name) pairs, read both ways: the vocabulary's to_string
// and from_string, in the manner of CUTLASS's library/types.h.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace sgt {

template <typename Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, std::string_view>, N>;

// The name of value, or std::nullopt when the table lacks it.
template <typename Enum, std::size_t N>
constexpr std::optional<std::string_view> name_of(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return std::nullopt;
}

// The value named name, or std::nullopt when none is.
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> value_of(const NameTable<Enum, N>& table, std::string_view name) {
  for (const auto& [v, n] : table)
    if (n == name) return v;
  return std::nullopt;
}

}  // namespace sgt
