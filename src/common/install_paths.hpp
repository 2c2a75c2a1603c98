// Installed files found relative to the installed binary that looks for them, so that an installed
// tree keeps working wherever it is moved (conda, spack, a container build).
#pragma once

#include <filesystem>
#include <string>

namespace sgt {

// `path` resolved against the folder of the running executable (/proc/self/exe); an absolute
// path is returned unchanged.
std::filesystem::path beside_executable(const std::string& path);

// `path` resolved against the folder of the shared library (or executable) holding this code
// (dladdr); an absolute path is returned unchanged.
std::filesystem::path beside_this_library(const std::string& path);

}  // namespace sgt
