// Names of the measurement's vocabulary, as they appear in configs/measure.yaml and in logs: one
// table per enum, read both ways.
#include "measure/measurement.hpp"

#include <array>
#include <utility>

namespace sgt {
namespace {

template <typename Enum, std::size_t N>
using Names = std::array<std::pair<Enum, std::string_view>, N>;

constexpr Names<CacheMode, 2> kCacheModes{
    {{CacheMode::cold_flush, "cold-flush"}, {CacheMode::rotate, "rotate"}}};
constexpr Names<ClockPolicy, 2> kClockPolicies{
    {{ClockPolicy::observe, "observe"}, {ClockPolicy::lock, "lock"}}};
constexpr Names<StopReason, 9> kStopReasons{{{StopReason::not_stopped, ""},
                                             {StopReason::noise, "noise"},
                                             {StopReason::converged, "converged"},
                                             {StopReason::timeout, "timeout"},
                                             {StopReason::samples, "samples"},
                                             {StopReason::wall_cap, "wall_cap"},
                                             {StopReason::rejected, "rejected"},
                                             {StopReason::rounds, "rounds"},
                                             {StopReason::round_cap, "round_cap"}}};

template <typename Enum, std::size_t N>
std::string_view name_in(const Names<Enum, N>& names, Enum value) {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  return "";
}

template <typename Enum, std::size_t N>
std::optional<Enum> value_in(const Names<Enum, N>& names, std::string_view name) {
  for (const auto& [v, n] : names)
    if (n == name) return v;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(CacheMode mode) { return name_in(kCacheModes, mode); }
std::string_view to_string(ClockPolicy policy) { return name_in(kClockPolicies, policy); }
std::string_view to_string(StopReason reason) { return name_in(kStopReasons, reason); }

template <>
std::optional<CacheMode> from_string<CacheMode>(std::string_view name) {
  return value_in(kCacheModes, name);
}

template <>
std::optional<ClockPolicy> from_string<ClockPolicy>(std::string_view name) {
  return value_in(kClockPolicies, name);
}

}  // namespace sgt
