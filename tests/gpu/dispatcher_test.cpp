// libsgemm_dispatch on a GPU: tuned problems run the tuned kernel (from a stored cubin or by JIT)
// and match cuBLAS; untuned ones go to cuBLAS; cuBLAS's edge-case semantics hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cuda/cublaslt_gemm.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/templates.hpp"
#include "sgemm_dispatch.h"
#include "support/gpu_support.hpp"
#include "support/winner_db.hpp"
#include "tuner/tuner.hpp"

namespace sgt {
namespace {

using testing::store_winner;
using testing::temp_db;

// f1_simt winners of two problems in a new database at `path`: the first with its cubin, the
// second for the dispatcher to JIT. A non-empty `stale_hash` replaces the build's, as if both
// were tuned with another version of the template.
void store_f1_winners(const std::string& path, const ProblemKey& with_cubin,
                      const ProblemKey& for_jit, const std::string& stale_hash = {}) {
  Database db = Database::open(path, OpenMode::create);
  TuningStore store(db);
  store_winner(store, find_family("f1_simt"), with_cubin, true);
  store_winner(store, find_family("f1_simt"), for_jit, false);
  if (stale_hash.empty()) return;
  for (WinnerRecord w : store.winners()) {
    w.template_hash = stale_hash;
    store.set_winner(w);
  }
}

double relative_difference(const float* x, const float* y, const ProblemKey& p) {
  auto& env = testing::gpu_env();
  const DiffNorms d = env.utility.diff(env.stream.get(), x, p.ldc, y, p.ldc, p.m, p.n);
  if (d.nonfinite > 0) return INFINITY;
  return std::sqrt(d.diff_sq / d.ref_sq);
}

sgemmOperation_t op_of(Op o) { return o == Op::N ? SGEMM_OP_N : SGEMM_OP_T; }

// A handle on the database at `path`, calling on the GPU environment's stream; null on failure.
sgemmHandle_t open_on_test_stream(const std::string& path) {
  sgemmHandle_t h = nullptr;
  EXPECT_EQ(sgemmCreate(&h, path.c_str()), SGEMM_STATUS_SUCCESS);
  if (h && sgemmSetStream(h, testing::gpu_env().stream.get()) != SGEMM_STATUS_SUCCESS) {
    ADD_FAILURE() << "sgemmSetStream";
    sgemmDestroy(h);
    return nullptr;
  }
  return h;
}

// sgemmDescribe of the problem, parsed.
nlohmann::json describe(sgemmHandle_t h, const ProblemKey& p) {
  char text[2048];
  EXPECT_EQ(sgemmDescribe(h, op_of(p.transa), op_of(p.transb), p.m, p.n, p.k, p.lda, p.ldb, p.ldc,
                          text, sizeof text),
            SGEMM_STATUS_SUCCESS);
  return nlohmann::json::parse(text);
}

// The problem through sgemmSgemm, as a checker's GEMM (on the handle's stream).
GemmFn dispatched_by(sgemmHandle_t h, const ProblemKey& p) {
  return [h, p](cudaStream_t, float alpha, const float* a, const float* b, float beta, float* c) {
    ASSERT_EQ(sgemmSgemm(h, op_of(p.transa), op_of(p.transb), p.m, p.n, p.k, &alpha, a, p.lda, b,
                         p.ldb, &beta, c, p.ldc),
              SGEMM_STATUS_SUCCESS);
  };
}

class Dispatcher : public ::testing::Test {
 protected:
  void SetUp() override { SGT_SKIP_WITHOUT_GPU(); }
};

TEST_F(Dispatcher, TunedAndUntunedProblemsMatchCublas) {
  const std::string path = temp_db("sgemm_dispatch_");
  const ProblemKey tuned_cubin = testing::make_problem(Op::N, Op::N, 1000, 1300, 700);
  const ProblemKey tuned_jit = testing::make_problem(Op::T, Op::N, 257, 511, 129);
  const ProblemKey untuned = testing::make_problem(Op::N, Op::T, 300, 200, 100);
  store_f1_winners(path, tuned_cubin, tuned_jit);
  sgemmHandle_t h = open_on_test_stream(path);
  ASSERT_NE(h, nullptr);
  auto& env = testing::gpu_env();

  for (const auto& [p, source] : {std::pair{tuned_cubin, "exact"}, std::pair{tuned_jit, "exact"},
                                  std::pair{untuned, "cublas"}}) {
    const nlohmann::json j = describe(h, p);
    EXPECT_EQ(j["source"], source) << j.dump();

    GemmChecker checker(p, env.utility, env.cublas, env.stream.get(), 4.0);
    const CheckResult r = checker.check(dispatched_by(h, p), 99);
    EXPECT_TRUE(r.passed) << p.to_string() << ": " << r.message;
    EXPECT_LT(std::max(r.error_beta_zero, r.error_beta), 1e-6) << p.to_string();
  }
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
}

// Winners tuned with another version of their template go to cuBLAS, with a stored cubin (its
// parameters follow the old template) or without (JIT would build a kernel nobody measured).
TEST_F(Dispatcher, WinnersOfAnotherTemplateVersionGoToCublas) {
  const std::string path = temp_db("sgemm_dispatch_stale_");
  const ProblemKey with_cubin = testing::make_problem(Op::N, Op::N, 1000, 1300, 700);
  const ProblemKey without_cubin = testing::make_problem(Op::T, Op::N, 257, 511, 129);
  store_f1_winners(path, with_cubin, without_cubin, "0123456789abcdef");
  sgemmHandle_t h = open_on_test_stream(path);
  ASSERT_NE(h, nullptr);
  auto& env = testing::gpu_env();
  for (const ProblemKey& p : {with_cubin, without_cubin}) {
    const nlohmann::json j = describe(h, p);
    EXPECT_EQ(j["source"], "cublas") << j.dump();
    EXPECT_NE(j["reason"].get<std::string>().find("another version of f1_simt.cu"),
              std::string::npos)
        << j.dump();
    GemmChecker checker(p, env.utility, env.cublas, env.stream.get(), 4.0);
    const CheckResult r = checker.check(dispatched_by(h, p), 11);
    EXPECT_TRUE(r.passed) << p.to_string() << ": " << r.message;
  }
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
}

// One handle, one workspace: an F2 winner on packed copies, one on transposed copies (TN: both
// operands) and an F2 split-K winner called in turn. The copies must never land on the tile
// counters the split-K kernel expects at zero.
TEST_F(Dispatcher, PackedAndSplitKWinnersShareTheHandleWorkspace) {
  const std::string path = temp_db("sgemm_dispatch_pack_");
  const Family& f2 = find_family("f2_tma");
  const Knobs tile = {{"BM", 64}, {"BN", 64}, {"BK", 16},    {"WM", 32},    {"WN", 64},
                      {"TM", 8},  {"TN", 8},  {"STAGES", 3}, {"RASTER", 1}, {"STREAMK", 0}};
  Knobs packed = tile, split = tile, transposed = tile;
  packed["PACK"] = 1;
  packed["SPLITK"] = 1;
  transposed["PACK"] = 2;
  transposed["SPLITK"] = 1;
  split["PACK"] = 0;
  split["SPLITK"] = 2;
  const ProblemKey odd = testing::make_problem(Op::N, Op::N, 1023, 1025, 1027);
  const ProblemKey aligned = testing::make_problem(Op::N, Op::N, 512, 384, 1024);
  const ProblemKey tn = testing::make_aligned_problem(Op::T, Op::N, 300, 260, 100);
  ASSERT_TRUE(f2.geometry(transposed, tn, testing::gpu_limits()).pack_a.used &&
              f2.geometry(transposed, tn, testing::gpu_limits()).pack_b.used);
  ASSERT_GT(f2.geometry(split, aligned, testing::gpu_limits()).k_splits, 1);
  {
    Database db = Database::open(path, OpenMode::create);
    TuningStore store(db);
    store_winner(store, f2, odd, packed, true);
    store_winner(store, f2, aligned, split, true);
    store_winner(store, f2, tn, transposed, false);  // JIT-compiled by the dispatcher
  }
  sgemmHandle_t h = open_on_test_stream(path);
  ASSERT_NE(h, nullptr);
  auto& env = testing::gpu_env();
  std::uint64_t seed = 5;
  for (int round = 0; round < 2; ++round)
    for (const ProblemKey& p : {odd, aligned, tn}) {
      EXPECT_EQ(describe(h, p)["source"], "exact") << p.to_string();
      GemmChecker checker(p, env.utility, env.cublas, env.stream.get(), 4.0);
      const CheckResult r = checker.check(dispatched_by(h, p), seed++);
      EXPECT_TRUE(r.passed) << "round " << round << " " << p.to_string() << ": " << r.message;
    }
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
}

// A "cublaslt" winner runs its stored cuBLASLt algorithm and matches cuBLAS; one this cuBLAS
// cannot read, or one tuned with another cuBLAS, goes to cuBLAS.
TEST_F(Dispatcher, CublasLtWinnersRunTheirAlgorithm) {
  const std::string path = temp_db("sgemm_dispatch_lt_");
  const ProblemKey with_lt = testing::make_problem(Op::N, Op::N, 1024, 1024, 1024);
  const ProblemKey transposed = testing::make_problem(Op::T, Op::T, 1000, 1300, 700);
  const ProblemKey garbled = testing::make_problem(Op::N, Op::T, 300, 200, 100);
  const ProblemKey other_cublas = testing::make_problem(Op::T, Op::N, 257, 511, 129);
  const CublasLtGemm lt;
  {
    Database db = Database::open(path, OpenMode::create);
    TuningStore store(db);
    const auto store_lt = [&](const ProblemKey& p, const std::string& config,
                              const std::string& cublas) {
      WinnerRecord w;
      w.problem = p;
      w.gpu = gpu_record(query_device(0));
      w.software = software_record();
      if (!cublas.empty()) w.software.cublas = cublas;
      w.family = kCublasLtFamily;
      w.config = config;
      w.time_us = 1;
      w.cublas_us = 2;
      store.set_winner(w);
    };
    // The heuristic's last algorithm: not the one cublasSgemm would pick first.
    for (const ProblemKey& p : {with_lt, transposed}) {
      const CublasLtPlan plan = lt.plan(p);
      store_lt(p, lt_algorithm_config(plan.algorithms().back().algo), "");
    }
    store_lt(garbled, "id=1,algo=12", "");
    store_lt(other_cublas, lt_algorithm_config(lt.plan(other_cublas).algorithms().front().algo),
             "0.0.0");
  }
  sgemmHandle_t h = open_on_test_stream(path);
  ASSERT_NE(h, nullptr);
  auto& env = testing::gpu_env();
  for (const auto& [p, family] :
       {std::pair{with_lt, "cublaslt"}, std::pair{transposed, "cublaslt"},
        std::pair{garbled, "cublas"}, std::pair{other_cublas, "cublas"}}) {
    const nlohmann::json j = describe(h, p);
    EXPECT_EQ(j["family"], family) << j.dump();
    EXPECT_EQ(j["source"], std::string(family) == "cublaslt" ? "exact" : "cublas") << j.dump();

    GemmChecker checker(p, env.utility, env.cublas, env.stream.get(), 4.0);
    const CheckResult r = checker.check(dispatched_by(h, p), 7);
    EXPECT_TRUE(r.passed) << p.to_string() << ": " << r.message;
  }
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
}

TEST_F(Dispatcher, EdgeCasesBehaveAsCublas) {
  const std::string path = temp_db("sgemm_edge_");
  { Database::open(path, OpenMode::create); }
  sgemmHandle_t h = nullptr;
  ASSERT_EQ(sgemmCreate(&h, path.c_str()), SGEMM_STATUS_SUCCESS);
  auto& env = testing::gpu_env();
  sgemmSetStream(h, env.stream.get());
  const ProblemKey p = testing::make_problem(Op::N, Op::N, 64, 48, 32);
  DeviceBuffer<float> a(64 * 32), b(32 * 48), c(64 * 48), ref(64 * 48);
  env.utility.fill_uniform(env.stream.get(), a.get(), a.size(), 1);
  env.utility.fill_uniform(env.stream.get(), b.get(), b.size(), 2);

  // beta = 0 with NaN in C: C is overwritten, never read.
  const float one = 1.0f, zero = 0.0f, half = 0.5f;
  UtilityKernels::poison(env.stream.get(), c.get(), c.size());
  ASSERT_EQ(sgemmSgemm(h, SGEMM_OP_N, SGEMM_OP_N, 64, 48, 32, &one, a.get(), 64, b.get(), 32, &zero,
                       c.get(), 64),
            SGEMM_STATUS_SUCCESS);
  env.cublas.sgemm(env.stream.get(), p, 1.0f, a.get(), b.get(), 0.0f, ref.get());
  EXPECT_LT(relative_difference(c.get(), ref.get(), p), 1e-6);

  // k = 0 and alpha = 0: C = beta C.
  env.utility.fill_uniform(env.stream.get(), c.get(), c.size(), 3);
  SGT_CUDA_CHECK(
      cudaMemcpyAsync(ref.get(), c.get(), c.bytes(), cudaMemcpyDeviceToDevice, env.stream.get()));
  ASSERT_EQ(sgemmSgemm(h, SGEMM_OP_N, SGEMM_OP_N, 64, 48, 0, &one, a.get(), 64, b.get(), 1, &half,
                       c.get(), 64),
            SGEMM_STATUS_SUCCESS);
  ProblemKey k0 = p;
  k0.k = 0;
  k0.ldb = 1;
  env.cublas.sgemm(env.stream.get(), k0, 1.0f, a.get(), b.get(), 0.5f, ref.get());
  EXPECT_LT(relative_difference(c.get(), ref.get(), p), 1e-7);
  ASSERT_EQ(sgemmSgemm(h, SGEMM_OP_N, SGEMM_OP_N, 64, 48, 32, &zero, a.get(), 64, b.get(), 32,
                       &half, c.get(), 64),
            SGEMM_STATUS_SUCCESS);
  env.cublas.sgemm(env.stream.get(), p, 0.0f, a.get(), b.get(), 0.5f, ref.get());
  EXPECT_LT(relative_difference(c.get(), ref.get(), p), 1e-7);
  sgemmDestroy(h);
}

TEST(TunerGpu, TunesStoresAndServesAProblem) {
  SGT_SKIP_WITHOUT_GPU();
  const std::string path = temp_db("sgemm_tuner_");
  TuneOptions options;
  options.space_path = testing::source_path("configs/spaces");
  options.max_candidates = 6;
  options.settings.measure.screen_samples = 10;
  options.settings.measure.screen_warmup_ms = 5;
  options.settings.measure.min_rounds = 5;
  options.settings.measure.min_round_time_s = 0.05;
  Problem problem;
  problem.key = testing::make_problem(Op::N, Op::N, 1000, 1300, 700);
  ProblemResult result;
  {
    Database db = Database::open(path, OpenMode::create);
    TuningStore store(db);
    Tuner tuner(store, options);
    result = tuner.tune(problem, 0, 1, nullptr);
    tuner.finish("finished");
    const auto tried = store.candidates(problem.key, gpu_record(tuner.device()), software_record());
    // The own candidates, and every correct cuBLASLt algorithm screened (family "cublaslt").
    const auto lt_rows = std::count_if(tried.begin(), tried.end(), [](const CandidateRecord& c) {
      return c.family == kCublasLtFamily;
    });
    EXPECT_EQ(static_cast<int>(tried.size() - lt_rows), result.candidates);
    EXPECT_GT(lt_rows, 0);
    for (const CandidateRecord& c : tried) {
      if (c.family != kCublasLtFamily) continue;
      ASSERT_TRUE(c.screen.has_value()) << c.config;
      EXPECT_GT(c.screen->median_us, 0) << c.config;
      EXPECT_NO_THROW(parse_lt_algorithm_config(c.config)) << c.config;
    }
    EXPECT_GT(result.ok, 0);
    EXPECT_GT(result.cublas_us, 0);
    EXPECT_TRUE(
        store.find_winner(problem.key, tuner.device().name, tuner.device().arch()).has_value());
    EXPECT_EQ(db.integrity_check(), "ok");

    // The same problem again resumes from the database: nothing is measured twice.
    Tuner again(store, options);
    const ProblemResult second = again.tune(problem, 0, 1, nullptr);
    EXPECT_TRUE(second.already_tuned);
  }
  sgemmHandle_t h = nullptr;
  ASSERT_EQ(sgemmCreate(&h, path.c_str()), SGEMM_STATUS_SUCCESS);
  char text[1024];
  const ProblemKey& p = problem.key;
  ASSERT_EQ(sgemmDescribe(h, SGEMM_OP_N, SGEMM_OP_N, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, text,
                          sizeof text),
            SGEMM_STATUS_SUCCESS);
  const auto json = nlohmann::json::parse(text);
  EXPECT_EQ(json["family"], result.family) << text;
  EXPECT_EQ(json["source"], result.family == "cublas" ? "cublas" : "exact") << text;
  sgemmDestroy(h);
}

}  // namespace
}  // namespace sgt
