// libsgemm_cublas in an application that knows nothing of it (tests/interposer/cublas_app.cpp):
// each way of calling cuBLAS's FP32 GEMM, run with and without LD_PRELOAD. Tuned problems are
// served by the dispatcher and stay within the FP32 tolerance of an FP64 product; the rest pass
// through; TF32 and device pointer mode pass through with bit-identical results; the log
// ($SGEMM_CUBLAS_LOG) says which was which.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "support/gpu_support.hpp"
#include "support/winner_db.hpp"

namespace sgt {
namespace {

constexpr double kTolerance = 4.0 / (1 << 24);  // configs/measure.yaml's tolerance_factor x 2^-24

// The built files; a GPU machine running a packed copy names them in the environment.
std::string from_env_or(const char* name, const char* built) {
  const char* v = std::getenv(name);
  return v && *v ? v : built;
}
std::string interposer() { return from_env_or("SGEMM_CUBLAS_INTERPOSER", SGEMM_CUBLAS_LIBRARY); }
std::string application() { return from_env_or("SGEMM_CUBLAS_APP", SGEMM_CUBLAS_APP_PATH); }

struct AppRun {
  int rc = -1;
  double error = -1;   // the largest normwise error the application printed
  std::string output;  // the result bytes it wrote
  std::map<std::string, std::map<std::string, long>> log;  // shape -> "action reason" -> calls
};

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Runs the application in MODE on the shapes, under the interposer when db is given.
AppRun run_app(const std::string& mode, const std::vector<std::string>& shapes,
               const std::string& db = {}) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string out = dir / ("sgemm_app_" + std::to_string(::getpid()) + ".bin");
  const std::string log = dir / ("sgemm_app_" + std::to_string(::getpid()) + ".csv");
  std::filesystem::remove(out);
  std::filesystem::remove(log);
  std::string cmd;
  if (!db.empty())
    cmd = "env LD_PRELOAD='" + interposer() + "' SGEMM_TUNER_DB='" + db + "' SGEMM_CUBLAS_LOG='" +
          log + "' ";
  cmd += "'" + application() + "' " + mode + " '" + out + "'";
  for (const std::string& s : shapes) cmd += " " + s;
  AppRun r;
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char line[512];
  while (std::fgets(line, sizeof line, p)) std::sscanf(line, "max normwise error %lf", &r.error);
  const int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.output = read_file(out);
  std::istringstream rows(read_file(log));
  std::string row;
  while (std::getline(rows, row)) {  // entry,action,reason,m,n,k,transa,transb,lda,ldb,ldc,calls
    std::vector<std::string> f;
    std::stringstream cells(row);
    for (std::string cell; std::getline(cells, cell, ',');) f.push_back(cell);
    if (f.size() != 12 || f[0] == "entry") continue;
    r.log[f[3] + "," + f[4] + "," + f[5] + "," + f[6] + "," + f[7]][f[1] + " " + f[2]] +=
        std::stol(f[11]);
  }
  return r;
}

class Interposer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!gpu_unavailable_reason().empty()) return;
    db_ = testing::temp_db("sgemm_interposer_");
    Database db = Database::open(db_, OpenMode::create);
    TuningStore store(db);
    const Family& f1 = find_family("f1_simt");
    testing::store_winner(store, f1, testing::make_problem(Op::N, Op::N, 257, 129, 300), true);
    testing::store_winner(store, f1, testing::make_problem(Op::T, Op::N, 200, 96, 64), false);
  }
  void SetUp() override { SGT_SKIP_WITHOUT_GPU(); }

  static std::string db_;
  // Two tuned problems (one cubin, one JIT) and one far from both (cuBLAS's).
  const std::vector<std::string> tuned_{"257,129,300,N,N", "200,96,64,T,N"};
  const std::string untuned_ = "1000,40,30,N,T";
  std::vector<std::string> shapes() const { return {tuned_[0], tuned_[1], untuned_}; }
};
std::string Interposer::db_;

// Every call of an FP32 mode: tuned problems served, the other passed for want of a faster route.
void expect_served(const AppRun& run, const std::vector<std::string>& tuned,
                   const std::string& untuned) {
  for (const std::string& s : tuned) {
    ASSERT_TRUE(run.log.count(s)) << s << " not in the log";
    for (const auto& [what, calls] : run.log.at(s)) EXPECT_EQ(what, "served ") << s;
  }
  ASSERT_TRUE(run.log.count(untuned)) << untuned << " not in the log";
  for (const auto& [what, calls] : run.log.at(untuned))
    EXPECT_EQ(what, "passed no faster route") << untuned;
}

TEST_F(Interposer, FP32CallsOfEveryKindAreServedWhereTunedAndCorrect) {
  for (const std::string mode :
       {"sgemm", "gemmex", "sgemmex", "beta", "streams", "threads", "graph", "recreated"}) {
    SCOPED_TRACE(mode);
    const AppRun plain = run_app(mode, shapes());
    const AppRun served = run_app(mode, shapes(), db_);
    ASSERT_EQ(plain.rc, 0);
    ASSERT_EQ(served.rc, 0);
    EXPECT_GE(plain.error, 0);
    EXPECT_LT(plain.error, kTolerance);
    EXPECT_GE(served.error, 0);
    EXPECT_LT(served.error, kTolerance);
    expect_served(served, tuned_, untuned_);
  }
}

TEST_F(Interposer, TF32AndDevicePointersPassThroughBitIdentical) {
  for (const auto& [mode, reason] :
       std::map<std::string, std::string>{{"tf32", "passed math mode allows TF32"},
                                          {"device-pointers", "passed device pointer mode"}}) {
    SCOPED_TRACE(mode);
    const AppRun plain = run_app(mode, shapes());
    const AppRun served = run_app(mode, shapes(), db_);
    ASSERT_EQ(plain.rc, 0);
    ASSERT_EQ(served.rc, 0);
    ASSERT_FALSE(plain.output.empty());
    EXPECT_TRUE(plain.output == served.output) << "results differ from the run without preload";
    ASSERT_EQ(served.log.size(), 3u);
    for (const auto& [shape, actions] : served.log) {
      ASSERT_EQ(actions.size(), 1u) << shape;
      EXPECT_EQ(actions.begin()->first, reason) << shape;
    }
  }
}

// With no tuning database the interposer serves nothing and the application runs as before.
TEST_F(Interposer, WithoutADatabaseEveryCallPassesThrough) {
  const std::string missing = testing::temp_db("sgemm_interposer_missing_");
  const AppRun plain = run_app("sgemm", shapes());
  const AppRun served = run_app("sgemm", shapes(), missing);
  ASSERT_EQ(served.rc, 0);
  EXPECT_TRUE(plain.output == served.output);
  for (const auto& [shape, actions] : served.log)
    for (const auto& [what, calls] : actions) EXPECT_EQ(what, "passed dispatcher unavailable");
}

}  // namespace
}  // namespace sgt
