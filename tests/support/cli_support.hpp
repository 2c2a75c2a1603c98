// Tests of the built sgemm-tune binary: a fresh temporary folder with the small database of
// report_store_test.cpp in it, and the binary's exit status and outputs for a command line.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "db/records.hpp"

namespace sgt::report_testing {
// Defined in report_store_test.cpp: 2048^3 won by f1_simt (300 us vs cuBLAS 342 us) and 1024^3
// won by cuBLAS, on an NVIDIA H200 (uuid GPU-aaaa).
void write_small_database(const std::string& path, const GpuRecord& gpu, const std::string& host);
}  // namespace sgt::report_testing

namespace sgt::testing {

inline const std::string kSgemmTune = SGEMM_BINARY_DIR "/src/sgemm-tune";

struct CliResult {
  int rc = -1;
  std::string out, err;
};

std::string slurp(const std::filesystem::path& path);

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  // `sgemm-tune ARGS` (a shell fragment) after an optional environment prefix ("NO_COLOR=1").
  CliResult run(const std::string& args, const std::string& env = "") const;
  std::filesystem::path dir;
  std::string db;  // dir/small.db
};

}  // namespace sgt::testing
