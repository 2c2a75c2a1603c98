// The C API's argument checks, table-driven: every invalid combination returns
// SGEMM_STATUS_INVALID_VALUE (or NOT_INITIALIZED for a null handle) before touching a GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "sgemm_dispatch.h"

namespace sgt {
namespace {

std::string empty_database() {
  const std::string path =
      std::filesystem::temp_directory_path() / ("sgemm_api_" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(path);
  Database::open(path, OpenMode::create);
  return path;
}

struct Call {
  const char* what;
  sgemmOperation_t ta, tb;
  int m, n, k, lda, ldb, ldc;
  bool null_alpha, null_beta, null_a, null_c;
};

TEST(DispatchApi, InvalidArgumentsReturnInvalidValue) {
  sgemmHandle_t h = nullptr;
  ASSERT_EQ(sgemmCreate(&h, empty_database().c_str()), SGEMM_STATUS_SUCCESS);
  float buf[64] = {};
  const float one = 1.0f;
  const Call calls[] = {
      {"negative m", SGEMM_OP_N, SGEMM_OP_N, -1, 4, 4, 4, 4, 4, false, false, false, false},
      {"negative n", SGEMM_OP_N, SGEMM_OP_N, 4, -1, 4, 4, 4, 4, false, false, false, false},
      {"negative k", SGEMM_OP_N, SGEMM_OP_N, 4, 4, -1, 4, 4, 4, false, false, false, false},
      {"lda < m (N)", SGEMM_OP_N, SGEMM_OP_N, 4, 4, 4, 3, 4, 4, false, false, false, false},
      {"lda < k (T)", SGEMM_OP_T, SGEMM_OP_N, 4, 4, 8, 4, 8, 4, false, false, false, false},
      {"ldb < k (N)", SGEMM_OP_N, SGEMM_OP_N, 4, 4, 8, 4, 7, 4, false, false, false, false},
      {"ldb < n (T)", SGEMM_OP_N, SGEMM_OP_T, 4, 8, 4, 4, 7, 4, false, false, false, false},
      {"lda < k (C)", SGEMM_OP_C, SGEMM_OP_N, 4, 4, 8, 4, 8, 4, false, false, false, false},
      {"ldb < n (C)", SGEMM_OP_N, SGEMM_OP_C, 4, 8, 4, 4, 7, 4, false, false, false, false},
      {"ldc < m", SGEMM_OP_N, SGEMM_OP_N, 4, 4, 4, 4, 4, 3, false, false, false, false},
      {"lda 0 with m 0", SGEMM_OP_N, SGEMM_OP_N, 0, 4, 4, 0, 4, 1, false, false, false, false},
      {"bad transa", static_cast<sgemmOperation_t>(7), SGEMM_OP_N, 4, 4, 4, 4, 4, 4, false, false,
       false, false},
      {"bad transa 3", static_cast<sgemmOperation_t>(3), SGEMM_OP_N, 4, 4, 4, 4, 4, 4, false, false,
       false, false},
      {"bad transb", SGEMM_OP_N, static_cast<sgemmOperation_t>(-1), 4, 4, 4, 4, 4, 4, false, false,
       false, false},
      {"null alpha", SGEMM_OP_N, SGEMM_OP_N, 4, 4, 4, 4, 4, 4, true, false, false, false},
      {"null beta", SGEMM_OP_N, SGEMM_OP_N, 4, 4, 4, 4, 4, 4, false, true, false, false},
      {"null A", SGEMM_OP_N, SGEMM_OP_N, 4, 4, 4, 4, 4, 4, false, false, true, false},
      {"null C", SGEMM_OP_N, SGEMM_OP_N, 4, 4, 4, 4, 4, 4, false, false, false, true},
  };
  for (const Call& c : calls) {
    EXPECT_EQ(sgemmSgemm(h, c.ta, c.tb, c.m, c.n, c.k, c.null_alpha ? nullptr : &one,
                         c.null_a ? nullptr : buf, c.lda, buf, c.ldb, c.null_beta ? nullptr : &one,
                         c.null_c ? nullptr : buf, c.ldc),
              SGEMM_STATUS_INVALID_VALUE)
        << c.what;
  }
  char text[256];
  EXPECT_EQ(sgemmDescribe(h, SGEMM_OP_N, SGEMM_OP_N, -1, 4, 4, 4, 4, 4, text, sizeof text),
            SGEMM_STATUS_INVALID_VALUE);
  EXPECT_EQ(sgemmDescribe(h, SGEMM_OP_N, SGEMM_OP_N, 4, 4, 4, 4, 4, 4, nullptr, 10),
            SGEMM_STATUS_INVALID_VALUE);
  EXPECT_EQ(sgemmDescribe(h, SGEMM_OP_N, SGEMM_OP_N, 4, 4, 4, 4, 4, 4, text, 0),
            SGEMM_STATUS_INVALID_VALUE);
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
}

TEST(DispatchApi, NullHandles) {
  const float one = 1.0f;
  float buf[4];
  EXPECT_EQ(sgemmCreate(nullptr, nullptr), SGEMM_STATUS_INVALID_VALUE);
  EXPECT_EQ(sgemmDestroy(nullptr), SGEMM_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(sgemmSetStream(nullptr, nullptr), SGEMM_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(
      sgemmSgemm(nullptr, SGEMM_OP_N, SGEMM_OP_N, 1, 1, 1, &one, buf, 1, buf, 1, &one, buf, 1),
      SGEMM_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(sgemmSgemmOnStream(nullptr, nullptr, SGEMM_OP_N, SGEMM_OP_N, 1, 1, 1, &one, buf, 1, buf,
                               1, &one, buf, 1),
            SGEMM_STATUS_NOT_INITIALIZED);
  char text[8];
  EXPECT_EQ(sgemmDescribe(nullptr, SGEMM_OP_N, SGEMM_OP_N, 1, 1, 1, 1, 1, 1, text, 8),
            SGEMM_STATUS_NOT_INITIALIZED);
}

TEST(DispatchApi, EmptyProblemsSucceedWithoutWork) {
  sgemmHandle_t h = nullptr;
  ASSERT_EQ(sgemmCreate(&h, empty_database().c_str()), SGEMM_STATUS_SUCCESS);
  const float one = 1.0f;
  // m == 0 or n == 0: nothing to do, as cuBLAS (no device needed).
  EXPECT_EQ(sgemmSgemm(h, SGEMM_OP_N, SGEMM_OP_N, 0, 4, 4, &one, nullptr, 1, nullptr, 4, &one,
                       nullptr, 1),
            SGEMM_STATUS_SUCCESS);
  EXPECT_EQ(sgemmSgemm(h, SGEMM_OP_N, SGEMM_OP_N, 4, 0, 4, &one, nullptr, 4, nullptr, 4, &one,
                       nullptr, 4),
            SGEMM_STATUS_SUCCESS);
  // CUBLAS_OP_C (2) is the transpose for real data, as in cuBLAS: op(A) is m x k, so lda >= k.
  EXPECT_EQ(sgemmSgemm(h, SGEMM_OP_C, SGEMM_OP_C, 0, 4, 8, &one, nullptr, 8, nullptr, 4, &one,
                       nullptr, 1),
            SGEMM_STATUS_SUCCESS);
  EXPECT_EQ(sgemmSgemmOnStream(h, nullptr, SGEMM_OP_N, SGEMM_OP_N, 4, 0, 4, &one, nullptr, 4,
                               nullptr, 4, &one, nullptr, 4),
            SGEMM_STATUS_SUCCESS);
  sgemmDestroy(h);
}

TEST(DispatchApi, DatabaseProblemsAreReported) {
  sgemmHandle_t h = nullptr;
  EXPECT_EQ(sgemmCreate(&h, "/nonexistent/dir/tuning.db"), SGEMM_STATUS_DATABASE_ERROR);
  EXPECT_EQ(h, nullptr);
  const std::string junk = std::filesystem::temp_directory_path() / "sgemm_api_junk.db";
  {
    std::FILE* f = std::fopen(junk.c_str(), "wb");
    std::fputs("this is not an SQLite database, and it must stay as it is", f);
    std::fclose(f);
  }
  const auto size = std::filesystem::file_size(junk);
  EXPECT_EQ(sgemmCreate(&h, junk.c_str()), SGEMM_STATUS_DATABASE_ERROR);
  EXPECT_EQ(std::filesystem::file_size(junk), size);
  // Named through the environment is named too: a database that cannot be opened is an error.
  ::setenv("SGEMM_TUNER_DB", junk.c_str(), 1);
  EXPECT_EQ(sgemmCreate(&h, nullptr), SGEMM_STATUS_DATABASE_ERROR);
  ::setenv("SGEMM_TUNER_DB", "/nonexistent/dir/tuning.db", 1);
  EXPECT_EQ(sgemmCreate(&h, nullptr), SGEMM_STATUS_DATABASE_ERROR);
  ::unsetenv("SGEMM_TUNER_DB");
  EXPECT_EQ(std::filesystem::file_size(junk), size);
  std::filesystem::remove(junk);
}

TEST(DispatchApi, MissLogIsWrittenAtDestroy) {
  EXPECT_EQ(sgemmSetMissLog(nullptr, "x.csv"), SGEMM_STATUS_NOT_INITIALIZED);
  const std::string log = std::filesystem::temp_directory_path() /
                          ("sgemm_api_misses_" + std::to_string(::getpid()) + ".csv");
  std::filesystem::remove(log);
  sgemmHandle_t h = nullptr;
  ASSERT_EQ(sgemmCreate(&h, empty_database().c_str()), SGEMM_STATUS_SUCCESS);
  ASSERT_EQ(sgemmSetMissLog(h, log.c_str()), SGEMM_STATUS_SUCCESS);
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
  std::FILE* f = std::fopen(log.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  char line[128] = {};
  ASSERT_NE(std::fgets(line, sizeof line, f), nullptr);
  std::fclose(f);
  EXPECT_STREQ(line, "m,n,k,transa,transb,lda,ldb,ldc,calls\n");
  std::filesystem::remove(log);

  // Turned off again: nothing written. An unwritable path: reported, and the handle released.
  ASSERT_EQ(sgemmCreate(&h, empty_database().c_str()), SGEMM_STATUS_SUCCESS);
  ASSERT_EQ(sgemmSetMissLog(h, log.c_str()), SGEMM_STATUS_SUCCESS);
  ASSERT_EQ(sgemmSetMissLog(h, nullptr), SGEMM_STATUS_SUCCESS);
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
  EXPECT_FALSE(std::filesystem::exists(log));
  ASSERT_EQ(sgemmCreate(&h, empty_database().c_str()), SGEMM_STATUS_SUCCESS);
  ASSERT_EQ(sgemmSetMissLog(h, "/nonexistent/dir/misses.csv"), SGEMM_STATUS_SUCCESS);
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_INVALID_VALUE);
}

TEST(DispatchApi, MissLogFromEnvironment) {
  const std::string log = std::filesystem::temp_directory_path() /
                          ("sgemm_api_env_misses_" + std::to_string(::getpid()) + ".csv");
  std::filesystem::remove(log);
  ::setenv("SGEMM_DISPATCH_MISS_LOG", log.c_str(), 1);
  sgemmHandle_t h = nullptr;
  const sgemmStatus_t created = sgemmCreate(&h, empty_database().c_str());
  ::unsetenv("SGEMM_DISPATCH_MISS_LOG");
  ASSERT_EQ(created, SGEMM_STATUS_SUCCESS);
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
  EXPECT_TRUE(std::filesystem::exists(log));
  std::filesystem::remove(log);
}

TEST(DispatchApi, StatusStrings) {
  EXPECT_STREQ(sgemmGetStatusString(SGEMM_STATUS_SUCCESS), "SGEMM_STATUS_SUCCESS");
  EXPECT_STREQ(sgemmGetStatusString(SGEMM_STATUS_INTERNAL_ERROR), "SGEMM_STATUS_INTERNAL_ERROR");
  EXPECT_STREQ(sgemmGetStatusString(static_cast<sgemmStatus_t>(99)), "unknown sgemmStatus_t");
}

}  // namespace
}  // namespace sgt
