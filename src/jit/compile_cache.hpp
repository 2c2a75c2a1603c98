// Compile results kept in memory and on disk, keyed by the template's hash, the options, the
// architecture and the NVRTC version: a configuration is compiled once across problems and runs.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "jit/nvrtc_compiler.hpp"

namespace sgt {

class CompileCache {
 public:
  // directory empty: memory only. Otherwise created on demand.
  explicit CompileCache(std::string directory);

  // compile_template through the cache; thread-safe. Failures are cached too. A configuration
  // being compiled by another thread is waited for.
  CompileResult compile(const std::string& file_name, const std::vector<std::string>& defines,
                        const std::string& arch);
  // Whether it is in memory or being compiled now (a prefetch need not start it again).
  bool has(const std::string& file_name, const std::vector<std::string>& defines,
           const std::string& arch) const;

  int hits() const;
  int misses() const;

 private:
  std::string key(const std::string& file_name, const std::vector<std::string>& defines,
                  const std::string& arch) const;
  bool load(const std::string& key, CompileResult& out) const;
  void store(const std::string& key, const CompileResult& result) const;

  std::string directory_;
  mutable std::mutex mutex_;
  std::condition_variable done_;  // an in-flight compile finished
  std::map<std::string, CompileResult> memory_;
  std::set<std::string> in_flight_;
  int hits_ = 0, misses_ = 0;
};

// $SGEMM_CACHE_DIR, else $XDG_CACHE_HOME (or ~/.cache)/sgemm-tune/cubins.
std::string default_compile_cache_dir();

}  // namespace sgt
