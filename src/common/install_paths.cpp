#include "common/install_paths.hpp"

#include <dlfcn.h>

#include <cstring>

namespace sgt {
namespace {

std::filesystem::path resolve(const std::filesystem::path& binary, const std::string& path) {
  const std::filesystem::path p(path);
  if (p.is_absolute() || binary.empty()) return p;
  return (binary.parent_path() / p).lexically_normal();
}

}  // namespace

std::filesystem::path beside_executable(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return resolve(ec ? std::filesystem::path() : self, path);
}

std::filesystem::path beside_this_library(const std::string& path) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&beside_this_library), &info) != 0 && info.dli_fname &&
      std::strchr(info.dli_fname, '/'))
    return resolve(info.dli_fname, path);
  return beside_executable(path);  // the main program, which dladdr names as it was started
}

}  // namespace sgt
