// libsgemm_dispatch's runtime properties on a GPU: the nearest step of the lookup chain, many
// threads on one handle and on their own handles, CUDA graph capture, and the miss log.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "sgemm_dispatch.h"
#include "support/gpu_support.hpp"
#include "support/winner_db.hpp"

namespace sgt {
namespace {

sgemmOperation_t op(Op o) { return o == Op::N ? SGEMM_OP_N : SGEMM_OP_T; }

// Problems (all small): tuned with a stored cubin; served by that one as its nearest neighbour
// (smaller, so any split-K workspace fits); far from it; untuned (no neighbour of its transposes).
const ProblemKey kTuned = testing::make_problem(Op::N, Op::N, 192, 128, 96);
const ProblemKey kNear = testing::make_problem(Op::N, Op::N, 160, 100, 72);
const ProblemKey kFar = testing::make_problem(Op::N, Op::N, 1024, 1024, 1024);
const ProblemKey kUntuned = testing::make_problem(Op::N, Op::T, 77, 33, 20, 0, 1);

// One database for the whole suite: f1_simt's first default configuration as the winner of
// kTuned, measured (as stored) twice as fast as cuBLAS.
const std::string& tuned_database() {
  static const std::string path = [] {
    const std::string p = testing::temp_db("sgemm_dispatch_runtime_");
    const Family& family = find_family("f1_simt");
    Database db = Database::open(p, OpenMode::create);
    TuningStore store(db);
    for (const Knobs& k : testing::default_space_configs(family))
      if (family.cannot_implement(k, kTuned).empty() && family.cannot_implement(k, kNear).empty()) {
        testing::store_winner(store, family, kTuned, k, true);
        return p;
      }
    ADD_FAILURE() << "no f1_simt configuration takes both problems";
    return p;
  }();
  return path;
}

nlohmann::json describe(sgemmHandle_t h, const ProblemKey& p) {
  char text[2048];
  const sgemmStatus_t s = sgemmDescribe(h, op(p.transa), op(p.transb), p.m, p.n, p.k, p.lda, p.ldb,
                                        p.ldc, text, sizeof text);
  EXPECT_EQ(s, SGEMM_STATUS_SUCCESS);
  return s == SGEMM_STATUS_SUCCESS ? nlohmann::json::parse(text) : nlohmann::json{};
}

double relative_difference(const float* x, const float* y, const ProblemKey& p) {
  auto& env = testing::gpu_env();
  const DiffNorms d = env.utility.diff(env.stream.get(), x, p.ldc, y, p.ldc, p.m, p.n);
  if (d.nonfinite > 0) return INFINITY;
  return std::sqrt(d.diff_sq / d.ref_sq);
}

// Inputs and the cuBLAS (pedantic) result alpha A B of one problem.
struct Operands {
  ProblemKey p;
  DeviceBuffer<float> a, b, ref;
  Operands(const ProblemKey& key, float alpha, std::uint64_t seed)
      : p(key), a(elements_a(key)), b(elements_b(key)), ref(elements_c(key)) {
    auto& env = testing::gpu_env();
    env.utility.fill_uniform(env.stream.get(), a.get(), a.size(), seed);
    env.utility.fill_uniform(env.stream.get(), b.get(), b.size(), seed + 1);
    env.cublas.sgemm(env.stream.get(), p, alpha, a.get(), b.get(), 0.0f, ref.get());
    SGT_CUDA_CHECK(cudaStreamSynchronize(env.stream.get()));
  }
  sgemmStatus_t run(sgemmHandle_t h, float alpha, float* c) const {
    const float beta = 0.0f;
    return sgemmSgemm(h, op(p.transa), op(p.transb), p.m, p.n, p.k, &alpha, a.get(), p.lda, b.get(),
                      p.ldb, &beta, c, p.ldc);
  }
};

class DispatcherRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    SGT_SKIP_WITHOUT_GPU();
    ASSERT_EQ(sgemmCreate(&h_, tuned_database().c_str()), SGEMM_STATUS_SUCCESS);
  }
  void TearDown() override {
    if (h_) {
      EXPECT_EQ(sgemmDestroy(h_), SGEMM_STATUS_SUCCESS);
    }
  }
  sgemmHandle_t h_ = nullptr;
};

TEST_F(DispatcherRuntime, NearestPicksANeighbourAndMatchesCublas) {
  const nlohmann::json tuned = describe(h_, kTuned);
  ASSERT_EQ(tuned["source"], "exact") << tuned.dump();
  const nlohmann::json near = describe(h_, kNear);
  ASSERT_EQ(near["source"], "nearest") << near.dump();
  EXPECT_EQ(near["tuned_problem"], kTuned.to_string()) << near.dump();
  EXPECT_GT(near["distance"].get<double>(), 0.0);
  EXPECT_EQ(near["family"], "f1_simt");
  const nlohmann::json far = describe(h_, kFar);
  EXPECT_EQ(far["source"], "cublas") << far.dump();
  EXPECT_NE(far["reason"].get<std::string>().find("within a factor"), std::string::npos)
      << far.dump();
  // Misaligned leading dimension: another alignment class, so the tuned kernel is not used.
  const ProblemKey odd = testing::make_problem(Op::N, Op::N, 161, 100, 72, 0, 1);
  EXPECT_EQ(describe(h_, odd)["source"], "cublas");

  auto& env = testing::gpu_env();
  sgemmSetStream(h_, env.stream.get());
  for (const ProblemKey& p : {kNear, odd}) {
    GemmChecker checker(p, env.utility, env.cublas, env.stream.get(), 4.0);
    const GemmFn dispatched = [&](cudaStream_t, float alpha, const float* a, const float* b,
                                  float beta, float* c) {
      ASSERT_EQ(sgemmSgemm(h_, op(p.transa), op(p.transb), p.m, p.n, p.k, &alpha, a, p.lda, b,
                           p.ldb, &beta, c, p.ldc),
                SGEMM_STATUS_SUCCESS);
    };
    const CheckResult r = checker.check(dispatched, 7);
    EXPECT_TRUE(r.passed) << p.to_string() << ": " << r.message;
  }
}

// Each thread computes every problem into its own C, 1000 calls in all, then C is compared.
void hammer(sgemmHandle_t h, const std::vector<const Operands*>& ops,
            std::vector<DeviceBuffer<float>>& out, int calls, std::atomic<int>& failures) {
  for (int i = 0; i < calls; ++i) {
    const std::size_t j = static_cast<std::size_t>(i) % ops.size();
    if (ops[j]->run(h, 1.0f, out[j].get()) != SGEMM_STATUS_SUCCESS) ++failures;
  }
}

void expect_results(const std::vector<const Operands*>& ops,
                    const std::vector<std::vector<DeviceBuffer<float>>>& outputs) {
  SGT_CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t t = 0; t < outputs.size(); ++t)
    for (std::size_t j = 0; j < ops.size(); ++j)
      EXPECT_LT(relative_difference(outputs[t][j].get(), ops[j]->ref.get(), ops[j]->p), 1e-5)
          << "thread " << t << " " << ops[j]->p.to_string();
}

std::vector<std::vector<DeviceBuffer<float>>> poisoned_outputs(
    const std::vector<const Operands*>& ops, int threads) {
  std::vector<std::vector<DeviceBuffer<float>>> out(threads);
  for (auto& per_thread : out)
    for (const Operands* o : ops) {
      per_thread.emplace_back(elements_c(o->p));
      UtilityKernels::poison(testing::gpu_env().stream.get(), per_thread.back().get(),
                             per_thread.back().size());
    }
  SGT_CUDA_CHECK(cudaDeviceSynchronize());
  return out;
}

TEST_F(DispatcherRuntime, EightThreadsShareOneHandle) {
  const Operands tuned(kTuned, 1.0f, 11), near(kNear, 1.0f, 13), untuned(kUntuned, 1.0f, 17);
  const std::vector<const Operands*> ops = {&tuned, &near, &untuned};
  constexpr int kThreads = 8;
  auto outputs = poisoned_outputs(ops, kThreads);
  Stream stream;
  ASSERT_EQ(sgemmSetStream(h_, stream.get()), SGEMM_STATUS_SUCCESS);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  // No warm-up: the threads also race on the first resolution of every problem.
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] { hammer(h_, ops, outputs[t], 1000, failures); });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  expect_results(ops, outputs);
  sgemmSetStream(h_, nullptr);  // the stream is destroyed before the handle
}

TEST_F(DispatcherRuntime, EightThreadsWithTheirOwnHandlesAndStreams) {
  const Operands tuned(kTuned, 1.0f, 21), near(kNear, 1.0f, 23), untuned(kUntuned, 1.0f, 27);
  const std::vector<const Operands*> ops = {&tuned, &near, &untuned};
  constexpr int kThreads = 8;
  auto outputs = poisoned_outputs(ops, kThreads);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      sgemmHandle_t h = nullptr;
      if (sgemmCreate(&h, tuned_database().c_str()) != SGEMM_STATUS_SUCCESS) {
        ++failures;
        return;
      }
      Stream stream;
      sgemmSetStream(h, stream.get());
      hammer(h, ops, outputs[t], 1000, failures);
      if (cudaStreamSynchronize(stream.get()) != cudaSuccess) ++failures;
      if (sgemmDestroy(h) != SGEMM_STATUS_SUCCESS) ++failures;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  expect_results(ops, outputs);
}

TEST_F(DispatcherRuntime, GraphOfOneHundredCallsReplaysCorrectly) {
  const Operands tuned(kTuned, 1.0f, 31), near(kNear, 1.0f, 33), untuned(kUntuned, 1.0f, 37);
  const std::vector<const Operands*> ops = {&tuned, &near, &untuned};
  auto& env = testing::gpu_env();
  Stream stream;
  ASSERT_EQ(sgemmSetStream(h_, stream.get()), SGEMM_STATUS_SUCCESS);
  constexpr int kCalls = 100;
  std::vector<DeviceBuffer<float>> c;
  for (int i = 0; i < kCalls; ++i) c.emplace_back(elements_c(ops[i % 3]->p));
  // Warm-up: one call of each problem resolves its route and loads its kernel.
  for (const Operands* o : ops) ASSERT_EQ(o->run(h_, 1.0f, c[0].get()), SGEMM_STATUS_SUCCESS);
  SGT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));

  // Global mode: any allocation or synchronization during capture, from any thread, fails it.
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal), cudaSuccess);
  int failed = 0;
  for (int i = 0; i < kCalls; ++i) {
    // alpha = 1 for every call, so the references above apply; each call has its own C.
    if (ops[i % 3]->run(h_, 1.0f, c[i].get()) != SGEMM_STATUS_SUCCESS) ++failed;
  }
  ASSERT_EQ(cudaStreamEndCapture(stream.get(), &graph), cudaSuccess);
  EXPECT_EQ(failed, 0);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 2; ++replay) {
    for (auto& buf : c) UtilityKernels::poison(env.stream.get(), buf.get(), buf.size());
    SGT_CUDA_CHECK(cudaStreamSynchronize(env.stream.get()));
    ASSERT_EQ(cudaGraphLaunch(exec, stream.get()), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
    for (int i = 0; i < kCalls; ++i)
      EXPECT_LT(relative_difference(c[i].get(), ops[i % 3]->ref.get(), ops[i % 3]->p), 1e-5)
          << "call " << i << " replay " << replay;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  sgemmSetStream(h_, nullptr);
}

TEST_F(DispatcherRuntime, MissLogCountsUntunedProblemsHeaviestFirst) {
  const std::string log = std::filesystem::temp_directory_path() /
                          ("sgemm_misses_" + std::to_string(::getpid()) + ".csv");
  std::filesystem::remove(log);
  ASSERT_EQ(sgemmSetMissLog(h_, log.c_str()), SGEMM_STATUS_SUCCESS);
  const Operands tuned(kTuned, 1.0f, 41), near(kNear, 1.0f, 43), untuned(kUntuned, 1.0f, 47);
  auto& env = testing::gpu_env();
  sgemmSetStream(h_, env.stream.get());
  DeviceBuffer<float> c(elements_c(kTuned));
  for (int i = 0; i < 5; ++i) ASSERT_EQ(tuned.run(h_, 1.0f, c.get()), SGEMM_STATUS_SUCCESS);
  for (int i = 0; i < 2; ++i) ASSERT_EQ(near.run(h_, 1.0f, c.get()), SGEMM_STATUS_SUCCESS);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(untuned.run(h_, 1.0f, c.get()), SGEMM_STATUS_SUCCESS);
  SGT_CUDA_CHECK(cudaStreamSynchronize(env.stream.get()));
  ASSERT_EQ(sgemmDestroy(h_), SGEMM_STATUS_SUCCESS);
  h_ = nullptr;
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  // kNear: 2 x 2 x 160 x 100 x 72 flop > kUntuned: 3 x 2 x 77 x 33 x 20; kTuned is not a miss.
  EXPECT_EQ(text.str(),
            "m,n,k,transa,transb,lda,ldb,ldc,calls\n"
            "160,100,72,N,N,160,72,160,2\n"
            "77,33,20,N,T,77,33,77,3\n");
  std::filesystem::remove(log);
}

}  // namespace
}  // namespace sgt
