// Default locations: the per-user database and the configs shipped with the install.
#include "cli/cli_common.hpp"

#include <cstdlib>
#include <filesystem>

namespace sgt::cli {

std::string default_database_path() {
  if (const char* env = std::getenv("SGEMM_TUNER_DB"); env && *env) return env;
  std::filesystem::path base;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
    base = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home)
    base = std::filesystem::path(home) / ".local" / "share";
  else
    base = ".";
  return (base / "sgemm-tune" / "tuning.db").string();
}

std::string default_config_path(const std::string& relative) {
  const std::filesystem::path local = std::filesystem::path("configs") / relative;
  if (std::filesystem::exists(local)) return local.string();
  return (std::filesystem::path(SGEMM_INSTALLED_CONFIGS) / relative).string();
}

}  // namespace sgt::cli
