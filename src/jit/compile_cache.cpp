// On disk: <key>.cubin (the machine code) and <key>.json (ok flag, log, resources). Files are
// written to a temporary name and renamed, so a reader never sees half a file.
#include "jit/compile_cache.hpp"

#include <fmt/format.h>
#include <nvrtc.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/hash.hpp"
#include "jit/templates.hpp"

namespace sgt {
namespace fs = std::filesystem;

std::string default_compile_cache_dir() {
  if (const char* env = std::getenv("SGEMM_CACHE_DIR"); env && *env) return env;
  fs::path base;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    base = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home)
    base = fs::path(home) / ".cache";
  else
    return {};
  return (base / "sgemm-tune" / "cubins").string();
}

CompileCache::CompileCache(std::string directory) : directory_(std::move(directory)) {}

std::string CompileCache::key(const std::string& file_name, const std::vector<std::string>& defines,
                              const std::string& arch) const {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  std::string options;
  for (const std::string& o : base_compile_options(arch)) options += o + ' ';
  for (const std::string& d : defines) options += d + ' ';
  return hash_parts_hex({template_hash(file_name), file_name, options, arch,
                         fmt::format("nvrtc {}.{}", major, minor)});
}

bool CompileCache::load(const std::string& k, CompileResult& out) const {
  if (directory_.empty()) return false;
  std::ifstream meta(fs::path(directory_) / (k + ".json"));
  if (!meta) return false;
  try {
    const nlohmann::json j = nlohmann::json::parse(meta);
    out.ok = j.at("ok");
    out.log = j.at("log");
    out.resources.registers = j.at("registers");
    out.resources.spill_store_bytes = j.at("spill_store_bytes");
    out.resources.spill_load_bytes = j.at("spill_load_bytes");
    out.resources.stack_bytes = j.at("stack_bytes");
    out.resources.static_smem_bytes = j.at("static_smem_bytes");
    if (out.ok) {
      std::ifstream bin(fs::path(directory_) / (k + ".cubin"), std::ios::binary);
      if (!bin) return false;
      std::stringstream bytes;
      bytes << bin.rdbuf();
      out.cubin = bytes.str();
      if (out.cubin.size() != j.at("cubin_bytes").get<std::size_t>()) return false;
    }
    out.compile_ms = 0;
    return true;
  } catch (const std::exception&) {
    return false;  // a damaged entry is a miss; it is rewritten
  }
}

void CompileCache::store(const std::string& k, const CompileResult& r) const {
  if (directory_.empty()) return;
  std::error_code ec;
  fs::create_directories(directory_, ec);
  if (ec) return;
  const std::string tmp = fmt::format(".{}.{}", ::getpid(), k);
  const auto write = [&](const std::string& name, const std::string& data) {
    const fs::path t = fs::path(directory_) / (tmp + name),
                   final = fs::path(directory_) / (k + name);
    {
      std::ofstream f(t, std::ios::binary);
      f << data;
      if (!f) return false;
    }
    fs::rename(t, final, ec);
    return !ec;
  };
  if (r.ok && !write(".cubin", r.cubin)) return;
  const nlohmann::json j = {{"ok", r.ok},
                            {"log", r.log},
                            {"registers", r.resources.registers},
                            {"spill_store_bytes", r.resources.spill_store_bytes},
                            {"spill_load_bytes", r.resources.spill_load_bytes},
                            {"stack_bytes", r.resources.stack_bytes},
                            {"static_smem_bytes", r.resources.static_smem_bytes},
                            {"cubin_bytes", r.cubin.size()}};
  write(".json", j.dump());
}

CompileResult CompileCache::compile(const std::string& file_name,
                                    const std::vector<std::string>& defines,
                                    const std::string& arch) {
  const std::string k = key(file_name, defines, arch);
  {
    std::unique_lock lock(mutex_);
    // A configuration another thread is compiling (a prefetch, say) is waited for, not compiled
    // twice.
    done_.wait(lock, [&] { return !in_flight_.contains(k); });
    if (const auto it = memory_.find(k); it != memory_.end()) {
      ++hits_;
      return it->second;
    }
    in_flight_.insert(k);
  }
  CompileResult r;
  bool from_disk = false;
  try {
    from_disk = load(k, r);
    if (!from_disk) {
      r = compile_template(file_name, defines, arch);
      store(k, r);
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    in_flight_.erase(k);
    done_.notify_all();
    throw;
  }
  {
    std::lock_guard lock(mutex_);
    from_disk ? ++hits_ : ++misses_;
    memory_.emplace(k, r);
    in_flight_.erase(k);
  }
  done_.notify_all();
  return r;
}

bool CompileCache::has(const std::string& file_name, const std::vector<std::string>& defines,
                       const std::string& arch) const {
  const std::string k = key(file_name, defines, arch);
  std::lock_guard lock(mutex_);
  return memory_.contains(k) || in_flight_.contains(k);
}

int CompileCache::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}

int CompileCache::misses() const {
  std::lock_guard lock(mutex_);
  return misses_;
}

}  // namespace sgt
