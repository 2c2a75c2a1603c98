// Tuning on use's switches, read from the environment at sgemmCreate (no GPU).
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

// libsgemm_dispatch exports only the C API, so the pure parts are compiled into this test.
#include "dispatch/on_use_trial.cpp"

namespace sgt {
namespace {

// Sets (or, with nullopt, unsets) a variable for the scope, restoring it at the end.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(DispatchOnUse, OffUnlessTheVariableIsOne) {
  {
    const ScopedEnv tune("SGEMM_DISPATCH_TUNE", std::nullopt);
    EXPECT_FALSE(on_use_settings_from_env().enabled);
  }
  for (const char* off : {"0", "", "yes", "true", "11"}) {
    const ScopedEnv tune("SGEMM_DISPATCH_TUNE", off);
    EXPECT_FALSE(on_use_settings_from_env().enabled) << off;
  }
  const ScopedEnv tune("SGEMM_DISPATCH_TUNE", "1");
  EXPECT_TRUE(on_use_settings_from_env().enabled);
}

TEST(DispatchOnUse, DatabaseFromTheVariableElseTheUsersCache) {
  const ScopedEnv home("HOME", "/home/someone");
  {
    const ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
    const ScopedEnv db("SGEMM_DISPATCH_TUNE_DB", std::nullopt);
    EXPECT_EQ(on_use_settings_from_env().database,
              "/home/someone/.cache/sgemm-tune/tuned-on-use.db");
  }
  {
    const ScopedEnv xdg("XDG_CACHE_HOME", "/var/cache/u");
    const ScopedEnv db("SGEMM_DISPATCH_TUNE_DB", "");
    EXPECT_EQ(on_use_settings_from_env().database, "/var/cache/u/sgemm-tune/tuned-on-use.db");
  }
  const ScopedEnv db("SGEMM_DISPATCH_TUNE_DB", "/data/mine.db");
  EXPECT_EQ(on_use_settings_from_env().database, "/data/mine.db");
  const ScopedEnv no_home("HOME", std::nullopt);
  const ScopedEnv no_xdg("XDG_CACHE_HOME", std::nullopt);
  EXPECT_EQ(default_on_use_database(), "");
}

}  // namespace
}  // namespace sgt
