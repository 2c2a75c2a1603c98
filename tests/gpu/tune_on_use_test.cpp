// Tuning on use (SGEMM_DISPATCH_TUNE=1): every call of an untuned problem is right while its
// contenders are timed (beta != 0, one thread or eight threads on streams of their own, inside a
// graph capture), the trial decides, its winner is stored in the per-user database and a later
// handle serves it as tuned; with the variable unset nothing of this happens.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "sgemm_dispatch.h"
#include "space/family.hpp"
#include "support/gpu_support.hpp"
#include "support/temp_dir.hpp"
#include "support/winner_db.hpp"

namespace sgt {
namespace {

constexpr float kAlpha = 1.5f, kBeta = 0.5f;

sgemmOperation_t op(Op o) { return o == Op::N ? SGEMM_OP_N : SGEMM_OP_T; }

// Operands of one problem on the device, and on the host in double for the reference.
struct Operands {
  ProblemKey p;
  std::vector<float> a, b, c0;
  DeviceBuffer<float> da, db;
  std::vector<double> product;  // op(A) op(B), column-major m x n

  explicit Operands(const ProblemKey& key, unsigned seed) : p(key) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1, 1);
    const auto fill = [&](std::vector<float>& v, std::size_t n) {
      v.resize(n);
      for (float& x : v) x = u(gen);
    };
    const int cols_a = p.transa == Op::N ? p.k : p.m, cols_b = p.transb == Op::N ? p.n : p.k;
    fill(a, static_cast<std::size_t>(p.lda) * cols_a);
    fill(b, static_cast<std::size_t>(p.ldb) * cols_b);
    fill(c0, static_cast<std::size_t>(p.ldc) * p.n);
    da = DeviceBuffer<float>(a.size());
    db = DeviceBuffer<float>(b.size());
    SGT_CUDA_CHECK(cudaMemcpy(da.get(), a.data(), a.size() * 4, cudaMemcpyHostToDevice));
    SGT_CUDA_CHECK(cudaMemcpy(db.get(), b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    product.assign(static_cast<std::size_t>(p.m) * p.n, 0.0);
    for (int j = 0; j < p.n; ++j)
      for (int l = 0; l < p.k; ++l) {
        const double bv = p.transb == Op::N ? b[l + static_cast<std::size_t>(j) * p.ldb]
                                            : b[j + static_cast<std::size_t>(l) * p.ldb];
        for (int i = 0; i < p.m; ++i) {
          const double av = p.transa == Op::N ? a[i + static_cast<std::size_t>(l) * p.lda]
                                              : a[l + static_cast<std::size_t>(i) * p.lda];
          product[i + static_cast<std::size_t>(j) * p.m] += av * bv;
        }
      }
  }

  // C after one more call, from C before it (in double).
  void step(std::vector<double>& c) const {
    for (int j = 0; j < p.n; ++j)
      for (int i = 0; i < p.m; ++i) {
        double& x = c[i + static_cast<std::size_t>(j) * p.ldc];
        x = kAlpha * product[i + static_cast<std::size_t>(j) * p.m] + kBeta * x;
      }
  }

  // Normwise relative error of a result against the reference; infinite on a NaN.
  double error(const std::vector<float>& got, const std::vector<double>& want) const {
    double diff = 0, norm = 0;
    for (int j = 0; j < p.n; ++j)
      for (int i = 0; i < p.m; ++i) {
        const std::size_t at = i + static_cast<std::size_t>(j) * p.ldc;
        if (!std::isfinite(got[at])) return INFINITY;
        diff += (got[at] - want[at]) * (got[at] - want[at]);
        norm += want[at] * want[at];
      }
    return std::sqrt(diff / norm);
  }

  sgemmStatus_t call(sgemmHandle_t h, cudaStream_t s, float* c) const {
    return sgemmSgemmOnStream(h, s, op(p.transa), op(p.transb), p.m, p.n, p.k, &kAlpha, da.get(),
                              p.lda, db.get(), p.ldb, &kBeta, c, p.ldc);
  }
};

// Calls the problem `calls` times on one stream, each result checked against the reference.
void call_and_check(sgemmHandle_t h, cudaStream_t s, const Operands& x, int calls,
                    const std::string& who) {
  DeviceBuffer<float> c(x.c0.size());
  SGT_CUDA_CHECK(cudaMemcpy(c.get(), x.c0.data(), x.c0.size() * 4, cudaMemcpyHostToDevice));
  std::vector<double> want(x.c0.begin(), x.c0.end());
  std::vector<float> got(x.c0.size());
  for (int i = 0; i < calls; ++i) {
    ASSERT_EQ(x.call(h, s, c.get()), SGEMM_STATUS_SUCCESS) << who << " call " << i;
    x.step(want);
    SGT_CUDA_CHECK(cudaMemcpyAsync(got.data(), c.get(), got.size() * 4, cudaMemcpyDeviceToHost, s));
    SGT_CUDA_CHECK(cudaStreamSynchronize(s));
    ASSERT_LT(x.error(got, want), 1e-5) << who << " call " << i;
  }
}

nlohmann::json describe(sgemmHandle_t h, const ProblemKey& p) {
  char buf[8192];
  EXPECT_EQ(sgemmDescribe(h, op(p.transa), op(p.transb), p.m, p.n, p.k, p.lda, p.ldb, p.ldc, buf,
                          sizeof buf),
            SGEMM_STATUS_SUCCESS);
  return nlohmann::json::parse(buf);
}

class TuneOnUse : public ::testing::Test {
 protected:
  void SetUp() override {
    SGT_SKIP_WITHOUT_GPU();
    shipped_ = dir_.file("shipped.db");
    on_use_db_ = dir_.file("user/tuned-on-use.db");
    // The shipped database: tuned neighbours (with their cubins) of the problems below.
    Database db = Database::open(shipped_, OpenMode::create);
    TuningStore store(db);
    const Family& f1 = find_family("f1_simt");
    testing::store_winner(store, f1, testing::make_aligned_problem(Op::N, Op::N, 512, 512, 512),
                          true);
    testing::store_winner(store, f1, testing::make_aligned_problem(Op::N, Op::T, 768, 768, 512),
                          true);
  }

  // A handle made with tuning on use switched on (or not); the variables are read at creation.
  sgemmHandle_t create(bool on) {
    if (on) {
      setenv("SGEMM_DISPATCH_TUNE", "1", 1);
      setenv("SGEMM_DISPATCH_TUNE_DB", on_use_db_.c_str(), 1);
    }
    sgemmHandle_t h = nullptr;
    EXPECT_EQ(sgemmCreate(&h, shipped_.c_str()), SGEMM_STATUS_SUCCESS);
    unsetenv("SGEMM_DISPATCH_TUNE");
    unsetenv("SGEMM_DISPATCH_TUNE_DB");
    return h;
  }

  testing::TempDir dir_{"tune_on_use"};
  std::string shipped_, on_use_db_;
};

TEST_F(TuneOnUse, EveryCallIsRightThenTheWinnerIsStoredAndReadBack) {
  const Operands x(testing::make_aligned_problem(Op::N, Op::N, 520, 500, 700), 1);
  sgemmHandle_t h = create(true);
  const cudaStream_t s = testing::gpu_env().stream.get();
  // Contenders: cuBLAS, cuBLASLt's top algorithms, the neighbour's f1 kernel.
  const nlohmann::json before = describe(h, x.p);
  EXPECT_EQ(before["source"], "on_use") << before.dump();
  EXPECT_GE(before["contenders"].get<int>(), 3) << before.dump();
  call_and_check(h, s, x, 30, "one stream");
  const nlohmann::json after = describe(h, x.p);
  EXPECT_NE(after["reason"].get<std::string>().find("tuned on use"), std::string::npos)
      << after.dump();
  EXPECT_NE(after["reason"].get<std::string>().find("stored in"), std::string::npos)
      << after.dump();
  EXPECT_GT(after["cublas_us"].get<double>(), 0) << after.dump();
  ASSERT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);

  // The next process (here: handle) reads the winner back and serves it as tuned.
  ASSERT_TRUE(std::filesystem::exists(on_use_db_));
  Database db = Database::open(on_use_db_, OpenMode::read_only);
  ASSERT_EQ(TuningStore(db).winners().size(), 1u);
  sgemmHandle_t again = create(true);
  const nlohmann::json read_back = describe(again, x.p);
  EXPECT_EQ(read_back["source"], after["family"] == "cublas" ? "cublas" : "exact")
      << read_back.dump();
  EXPECT_EQ(read_back["family"], after["family"]) << read_back.dump();
  call_and_check(again, s, x, 2, "read back");
  EXPECT_EQ(sgemmDestroy(again), SGEMM_STATUS_SUCCESS);
}

TEST_F(TuneOnUse, EightThreadsOnStreamsOfTheirOwnAreRightDuringTheTrial) {
  const Operands x(testing::make_aligned_problem(Op::N, Op::T, 700, 640, 500), 2);
  sgemmHandle_t h = create(true);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      cudaStream_t s = nullptr;
      SGT_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      call_and_check(h, s, x, 6, "thread " + std::to_string(t));
      SGT_CUDA_CHECK(cudaStreamDestroy(s));
    });
  for (std::thread& t : threads) t.join();
  const nlohmann::json d = describe(h, x.p);
  EXPECT_NE(d["reason"].get<std::string>().find("tuned on use"), std::string::npos) << d.dump();
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
}

TEST_F(TuneOnUse, CallsAlternatingBetweenTwoStreamsAreRightDuringTheTrial) {
  // One thread, two streams, each with its own C; nothing waits between calls, so the trial's
  // samples are in flight on both streams at once.
  const Operands x(testing::make_aligned_problem(Op::T, Op::T, 610, 330, 450), 5);
  sgemmHandle_t h = create(true);
  cudaStream_t s[2];
  DeviceBuffer<float> c[2] = {DeviceBuffer<float>(x.c0.size()), DeviceBuffer<float>(x.c0.size())};
  for (int i = 0; i < 2; ++i) {
    SGT_CUDA_CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    SGT_CUDA_CHECK(cudaMemcpy(c[i].get(), x.c0.data(), x.c0.size() * 4, cudaMemcpyHostToDevice));
  }
  constexpr int kCalls = 30;
  for (int call = 0; call < kCalls; ++call)
    ASSERT_EQ(x.call(h, s[call % 2], c[call % 2].get()), SGEMM_STATUS_SUCCESS) << call;
  std::vector<double> want(x.c0.begin(), x.c0.end());
  for (int i = 0; i < kCalls / 2; ++i) x.step(want);
  for (int i = 0; i < 2; ++i) {
    std::vector<float> got(x.c0.size());
    SGT_CUDA_CHECK(cudaStreamSynchronize(s[i]));
    SGT_CUDA_CHECK(cudaMemcpy(got.data(), c[i].get(), got.size() * 4, cudaMemcpyDeviceToHost));
    EXPECT_LT(x.error(got, want), 1e-5) << "stream " << i;
    SGT_CUDA_CHECK(cudaStreamDestroy(s[i]));
  }
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
}

TEST_F(TuneOnUse, NothingIsTimedInsideAGraphCapture) {
  const Operands x(testing::make_aligned_problem(Op::T, Op::N, 300, 260, 420), 3);
  sgemmHandle_t h = create(true);
  cudaStream_t s = nullptr;
  SGT_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  DeviceBuffer<float> c(x.c0.size());
  SGT_CUDA_CHECK(cudaMemcpy(c.get(), x.c0.data(), x.c0.size() * 4, cudaMemcpyHostToDevice));
  cudaGraph_t graph = nullptr;
  SGT_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  const sgemmStatus_t captured = x.call(h, s, c.get());
  SGT_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  ASSERT_EQ(captured, SGEMM_STATUS_SUCCESS);
  EXPECT_NE(describe(h, x.p)["reason"].get<std::string>().find(" 0 of "), std::string::npos);
  cudaGraphExec_t exec = nullptr;
  SGT_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  SGT_CUDA_CHECK(cudaGraphLaunch(exec, s));
  std::vector<float> got(x.c0.size());
  SGT_CUDA_CHECK(cudaMemcpyAsync(got.data(), c.get(), got.size() * 4, cudaMemcpyDeviceToHost, s));
  SGT_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> want(x.c0.begin(), x.c0.end());
  x.step(want);
  EXPECT_LT(x.error(got, want), 1e-5);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  SGT_CUDA_CHECK(cudaStreamDestroy(s));
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
}

TEST_F(TuneOnUse, OffByDefault) {
  const Operands x(testing::make_aligned_problem(Op::N, Op::N, 520, 500, 700), 4);
  sgemmHandle_t h = create(false);
  EXPECT_NE(describe(h, x.p)["source"], "on_use");
  call_and_check(h, testing::gpu_env().stream.get(), x, 25, "off");
  EXPECT_FALSE(std::filesystem::exists(on_use_db_));
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
}

}  // namespace
}  // namespace sgt
