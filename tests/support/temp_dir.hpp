// A temporary folder removed with everything in it when the test is done, and whole-file reads
// and writes for tests that compare or damage files byte by byte.
#pragma once

#include <filesystem>
#include <string>

namespace sgt::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "sgt_test");  // throws when mkdtemp fails
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string read_bytes(const std::string& path);
void write_bytes(const std::string& path, const std::string& bytes);

}  // namespace sgt::testing
