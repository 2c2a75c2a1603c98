// The pkg-config file the build installs resolves to the header and library of its prefix.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

namespace {

std::string run(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe) return {};
  std::string out;
  std::array<char, 256> chunk;
  while (std::fgets(chunk.data(), chunk.size(), pipe.get())) out += chunk.data();
  return out;
}

TEST(DispatchPackage, PkgConfigFileNamesHeaderAndLibrary) {
  namespace fs = std::filesystem;
  const fs::path pc = fs::path(SGEMM_BINARY_DIR) / "sgemm_dispatch.pc";
  ASSERT_TRUE(fs::exists(pc)) << pc;
  if (run("command -v pkg-config").empty()) GTEST_SKIP() << "no pkg-config";
  // Laid out as an installed prefix; --define-prefix makes pkg-config take the prefix from there.
  const fs::path prefix = fs::temp_directory_path() / ("sgemm_pc_" + std::to_string(::getpid()));
  fs::remove_all(prefix);
  fs::create_directories(prefix / "lib" / "pkgconfig");
  fs::copy_file(pc, prefix / "lib" / "pkgconfig" / "sgemm_dispatch.pc");
  const std::string flags = run("PKG_CONFIG_PATH=" + (prefix / "lib" / "pkgconfig").string() +
                                " pkg-config --define-prefix --cflags --libs sgemm_dispatch 2>&1");
  fs::remove_all(prefix);
  EXPECT_NE(flags.find("-I" + (prefix / "include").string()), std::string::npos) << flags;
  EXPECT_NE(flags.find("-L" + (prefix / "lib").string()), std::string::npos) << flags;
  EXPECT_NE(flags.find("-lsgemm_dispatch"), std::string::npos) << flags;
  // The public header includes cuda_runtime_api.h: the CUDA include directory must be there too.
  EXPECT_NE(flags.find("cuda"), std::string::npos) << flags;
}

}  // namespace
