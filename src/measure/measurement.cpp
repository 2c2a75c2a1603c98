// Names of the measurement's vocabulary, as they appear in configs/measure.yaml and in logs.
#include "measure/measurement.hpp"

#include "common/name_table.hpp"

namespace sgt {
namespace {

constexpr NameTable<CacheMode, 2> kCacheModes{
    {{CacheMode::cold_flush, "cold-flush"}, {CacheMode::rotate, "rotate"}}};
constexpr NameTable<ClockPolicy, 2> kClockPolicies{
    {{ClockPolicy::observe, "observe"}, {ClockPolicy::lock, "lock"}}};
constexpr NameTable<StopReason, 10> kStopReasons{{{StopReason::not_stopped, ""},
                                                  {StopReason::noise, "noise"},
                                                  {StopReason::converged, "converged"},
                                                  {StopReason::timeout, "timeout"},
                                                  {StopReason::samples, "samples"},
                                                  {StopReason::wall_cap, "wall_cap"},
                                                  {StopReason::rejected, "rejected"},
                                                  {StopReason::dropped, "dropped"},
                                                  {StopReason::rounds, "rounds"},
                                                  {StopReason::round_cap, "round_cap"}}};

}  // namespace

std::string_view to_string(CacheMode mode) { return *name_of(kCacheModes, mode); }
std::string_view to_string(ClockPolicy policy) { return *name_of(kClockPolicies, policy); }
std::string_view to_string(StopReason reason) { return *name_of(kStopReasons, reason); }

template <>
std::optional<CacheMode> from_string<CacheMode>(std::string_view name) {
  return value_of(kCacheModes, name);
}

template <>
std::optional<ClockPolicy> from_string<ClockPolicy>(std::string_view name) {
  return value_of(kClockPolicies, name);
}

}  // namespace sgt
