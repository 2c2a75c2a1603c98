// A table of (key, field) pairs keeps the YAML names identical to the struct members.
#include "config/tuning_settings.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <variant>

#include "common/error.hpp"

namespace sgt {
namespace {

using Field = std::variant<int*, double*, std::string*, CacheMode*, ClockPolicy*>;

// An enum setting's value by name; throws YAML::Exception (the caller's invalid value) if none.
template <typename Enum>
Enum enum_value(const YAML::Node& node) {
  const std::optional<Enum> value = from_string<Enum>(node.as<std::string>());
  if (!value) throw YAML::Exception(node.Mark(), "not a value of the setting");
  return *value;
}

std::vector<std::pair<std::string, Field>> fields(TuningSettings& s) {
  MeasureSettings& m = s.measure;
  return {
      {"screen_warmup_ms", &m.screen_warmup_ms},
      {"screen_samples", &m.screen_samples},
      {"screen_max_ms", &m.screen_max_ms},
      {"screen_min_samples", &m.screen_min_samples},
      {"screen_reject_factor", &m.screen_reject_factor},
      {"screen_drop_factor", &m.screen_drop_factor},
      {"min_samples", &m.min_samples},
      {"min_time_s", &m.min_time_s},
      {"max_noise", &m.max_noise},
      {"noise_convergence", &m.noise_convergence},
      {"timeout_s", &m.timeout_s},
      {"throttle_fraction", &m.throttle_fraction},
      {"min_clock_sample_us", &m.min_clock_sample_us},
      {"finalists", &m.finalists},
      {"min_rounds", &m.min_rounds},
      {"min_round_time_s", &m.min_round_time_s},
      {"max_rounds", &m.max_rounds},
      {"bench_max_rounds", &m.bench_max_rounds},
      {"clock_policy", &m.clock_policy},
      {"lock_clocks", &m.lock_clocks},
      {"tolerance_factor", &s.verify.tolerance_factor},
      {"warmup_min_ms", &m.warmup_min_ms},
      {"warmup_max_ms", &m.warmup_max_ms},
      {"clock_stable_tolerance", &m.clock_stable_tolerance},
      {"clock_probe_window_us", &m.clock_probe_window_us},
      {"throttle_sleep_ms", &m.throttle_sleep_ms},
      {"throttle_sleep_growth", &m.throttle_sleep_growth},
      {"throttle_sleep_max_ms", &m.throttle_sleep_max_ms},
      {"nvml_round_ms", &m.nvml_round_ms},
      {"cache", &m.cache},
      {"rotate_max_mib", &m.rotate_max_mib},
  };
}

}  // namespace

TuningSettings parse_tuning_settings(const std::string& text, const std::string& file) {
  TuningSettings settings;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorKind::invalid_value, fmt::format("{}:{}: {}", file, e.mark.line + 1, e.msg));
  }
  if (root.IsNull()) return settings;
  if (!root.IsMap())
    throw Error(ErrorKind::invalid_value, fmt::format("{}:1: expected a mapping", file));
  auto table = fields(settings);
  for (const auto& kv : root) {
    const int line = kv.first.Mark().line + 1;
    if (!kv.first.IsScalar())
      throw Error(ErrorKind::invalid_value,
                  fmt::format("{}:{}: setting names must be scalars", file, line));
    const std::string key = kv.first.Scalar();
    const auto it =
        std::find_if(table.begin(), table.end(), [&](const auto& f) { return f.first == key; });
    if (key == "screen_budget_ms")
      throw Error(ErrorKind::invalid_value,
                  fmt::format("{}:{}: setting 'screen_budget_ms' is no longer read: screening is "
                              "sized by screen_samples and screen_max_ms",
                              file, line));
    if (it == table.end())
      throw Error(ErrorKind::invalid_value,
                  fmt::format("{}:{}: unknown setting '{}'", file, line, key));
    const std::string value = kv.second.IsScalar() ? kv.second.Scalar() : "(not a scalar)";
    bool in_range = true;
    try {
      std::visit(
          [&](auto* field) {
            using T = std::remove_pointer_t<decltype(field)>;
            if constexpr (std::is_enum_v<T>)
              *field = enum_value<T>(kv.second);
            else
              *field = kv.second.as<T>();
            // Counts, durations, fractions and factors: none is negative, NaN or infinite.
            if constexpr (std::is_arithmetic_v<T>)
              in_range = std::isfinite(double(*field)) && *field >= 0;
          },
          it->second);
    } catch (const YAML::Exception&) {
      const std::string expected = key == "cache"          ? " (cold-flush or rotate)"
                                   : key == "clock_policy" ? " (observe or lock)"
                                                           : "";
      throw Error(ErrorKind::invalid_value,
                  fmt::format("{}:{}: setting '{}' has an invalid value '{}'{}", file, line, key,
                              value, expected));
    }
    if (!in_range)
      throw Error(
          ErrorKind::invalid_value,
          fmt::format("{}:{}: setting '{}' has an invalid value '{}' (must be finite and >= 0)",
                      file, line, key, value));
    // A screening cut below 1 would stop candidates faster than the fastest so far.
    const MeasureSettings& m = settings.measure;
    const double factor = key == "screen_reject_factor" ? m.screen_reject_factor
                          : key == "screen_drop_factor" ? m.screen_drop_factor
                                                        : 0.0;
    if (factor > 0 && factor < 1)
      throw Error(
          ErrorKind::invalid_value,
          fmt::format("{}:{}: setting '{}' has an invalid value '{}' (0: off, or at least 1)", file,
                      line, key, value));
  }
  return settings;
}

TuningSettings load_tuning_settings(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::invalid_value, fmt::format("{}: cannot open settings", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_tuning_settings(buffer.str(), path);
}

}  // namespace sgt
