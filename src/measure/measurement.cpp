// Names of the measurement's vocabulary, as they appear in configs/measure.yaml and in logs.
#include "measure/measurement.hpp"

namespace sgt {

std::string_view to_string(CacheMode mode) {
  return mode == CacheMode::rotate ? "rotate" : "cold-flush";
}

std::string_view to_string(ClockPolicy policy) {
  return policy == ClockPolicy::lock ? "lock" : "observe";
}

std::string_view to_string(StopReason reason) {
  switch (reason) {
    case StopReason::noise:
      return "noise";
    case StopReason::converged:
      return "converged";
    case StopReason::timeout:
      return "timeout";
    case StopReason::samples:
      return "samples";
    case StopReason::wall_cap:
      return "wall_cap";
    case StopReason::rejected:
      return "rejected";
    case StopReason::rounds:
      return "rounds";
    case StopReason::round_cap:
      return "round_cap";
    case StopReason::not_stopped:
      break;
  }
  return "";
}

template <>
std::optional<CacheMode> from_string<CacheMode>(std::string_view name) {
  if (name == "cold-flush") return CacheMode::cold_flush;
  if (name == "rotate") return CacheMode::rotate;
  return std::nullopt;
}

template <>
std::optional<ClockPolicy> from_string<ClockPolicy>(std::string_view name) {
  if (name == "observe") return ClockPolicy::observe;
  if (name == "lock") return ClockPolicy::lock;
  return std::nullopt;
}

}  // namespace sgt
