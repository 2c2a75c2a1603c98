// The dispatcher under concurrency: every route kind the families produce (one kernel, an operand
// copy then the kernel, a copy made or not per call as the call's pointer allows, the kernel then
// a split-K reduction, in-kernel split-K with tile counters, a kernel under an L2 access-policy
// window, a cuBLASLt algorithm, cuBLAS) under
// every calling pattern (calls alternating between
// two streams, eight threads on one handle and one stream, eight threads on one handle with
// streams of their own, eight threads with handles of their own, graph capture of first calls
// replayed beside calls outside the graph). Every result is compared bit for bit with the same
// call made alone, and every status must be success.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "cuda/cublaslt_gemm.hpp"
#include "cuda/driver_api.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/sgemm_kernel.hpp"
#include "jit/templates.hpp"
#include "sgemm_dispatch.h"
#include "support/gpu_support.hpp"
#include "tuner/tuner.hpp"

namespace sgt {
namespace {

constexpr int kSets = 3;      // operand sets per kind, so consecutive calls differ
constexpr int kInFlight = 8;  // calls a thread enqueues before it waits and checks
constexpr int kThreads = 8;
constexpr float kAlpha = 1.25f, kBeta = 0.0f;

// One route kind: a problem, the winner that gives it that route, operands and the results of
// each operand set computed alone.
struct KindCase {
  std::string name;
  ProblemKey p;
  std::string family;  // what sgemmDescribe must report
  WinnerRecord winner;
  std::vector<DeviceBuffer<float>> a, b;
  std::vector<int> a_offset;  // floats each set's A pointer lies past its allocation's start
  std::vector<std::vector<float>> alone;
  const float* a_of(int set) const { return a[set].get() + a_offset[set]; }
};

// The first configuration of the family's default space whose launch for p has the wanted shape.
std::optional<Knobs> pick(const Family& family, const ProblemKey& p,
                          const std::function<bool(const LaunchGeometry&)>& wanted) {
  for (const Knobs& k : testing::default_space_configs(family)) {
    if (!family.cannot_implement(k, p).empty()) continue;
    if (wanted(family.geometry(k, p, testing::gpu_limits()))) return k;
  }
  return std::nullopt;
}

WinnerRecord winner_of(const ProblemKey& p, const std::string& family, const std::string& config) {
  WinnerRecord w;
  w.problem = p;
  w.gpu = gpu_record(testing::gpu_env().device);
  w.software = software_record();
  w.family = family;
  w.config = config;
  w.time_us = 1;  // only the route matters here
  w.cublas_us = 2;
  return w;
}

WinnerRecord kernel_winner(const ProblemKey& p, const std::string& family_name,
                           const std::function<bool(const LaunchGeometry&)>& wanted) {
  const Family& family = find_family(family_name);
  const std::optional<Knobs> knobs = pick(family, p, wanted);
  if (!knobs)
    throw Error(
        ErrorKind::internal,
        family_name + " has no default configuration of the wanted route for " + p.to_string());
  WinnerRecord w = winner_of(p, family_name, knobs_to_string(*knobs));
  w.template_hash = template_hash(family_name + ".cu");
  const std::string arch = testing::gpu_env().device.arch();
  const CompileResult r = compile_template(family_name + ".cu", family.defines(*knobs, p), arch);
  if (!r.ok) throw Error(ErrorKind::compile, family_name + ": " + r.log);
  w.cubin.assign(r.cubin.begin(), r.cubin.end());
  w.cubin_arch = arch;
  return w;
}

// cuBLASLt's algorithm for p that needs the most workspace (so the workspace is exercised).
WinnerRecord lt_winner(const ProblemKey& p) {
  const CublasLtGemm lt;
  const CublasLtPlan plan = lt.plan(p);
  const LtAlgorithm* best = &plan.algorithms().front();
  for (const LtAlgorithm& a : plan.algorithms())
    if (a.workspace_bytes > best->workspace_bytes) best = &a;
  return winner_of(p, kCublasLtFamily, lt_algorithm_config(best->algo));
}

sgemmOperation_t op(Op o) { return o == Op::N ? SGEMM_OP_N : SGEMM_OP_T; }

sgemmStatus_t call_on(sgemmHandle_t h, cudaStream_t s, const KindCase& kc, int set, float* c) {
  const ProblemKey& p = kc.p;
  return sgemmSgemmOnStream(h, s, op(p.transa), op(p.transb), p.m, p.n, p.k, &kAlpha, kc.a_of(set),
                            p.lda, kc.b[set].get(), p.ldb, &kBeta, c, p.ldc);
}

sgemmStatus_t call_handle_stream(sgemmHandle_t h, const KindCase& kc, int set, float* c) {
  const ProblemKey& p = kc.p;
  return sgemmSgemm(h, op(p.transa), op(p.transb), p.m, p.n, p.k, &kAlpha, kc.a_of(set), p.lda,
                    kc.b[set].get(), p.ldb, &kBeta, c, p.ldc);
}

std::vector<float> to_host(const float* c, std::size_t count) {
  std::vector<float> host(count);
  SGT_CUDA_CHECK(cudaMemcpy(host.data(), c, count * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

void poison(float* c, std::size_t count, cudaStream_t s) {
  SGT_CUDA_CHECK(cudaMemsetAsync(c, 0xFF, count * sizeof(float), s));  // NaN in every element
}

struct Suite {
  std::string database;
  std::vector<std::unique_ptr<KindCase>> kinds;
  std::size_t max_c = 0;
};

// Builds the database (one winner per kind), the operands, and each set's result made alone on a
// fresh handle, which is also checked against pedantic cuBLAS.
Suite make_suite() {
  Suite s;
  s.database = std::filesystem::temp_directory_path() /
               ("sgemm_concurrency_" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(s.database);
  const auto nn = [](int m, int n, int k) {
    return testing::make_aligned_problem(Op::N, Op::N, m, n, k);
  };
  const auto plain = [](const LaunchGeometry& g) {
    return g.k_splits == 1 && g.workspace_floats == 0 && !g.pack_a.used && !g.pack_b.used;
  };
  const auto packed = [](const LaunchGeometry& g) { return g.pack_a.used || g.pack_b.used; };
  // Class 1 through ldb alone: F2's PACK = 1 copies B at every call and A only at a call whose A
  // pointer is not 16-byte aligned (the second operand set's, offset by one float).
  ProblemKey a_in_place = nn(256, 256, 2048 + 128);
  a_in_place.ldb += 1;
  a_in_place.align = 1;
  const std::map<std::string, std::vector<int>> a_offsets = {{"copy_per_call", {0, 1, 0}}};
  const auto reduced = [](const LaunchGeometry& g) {
    return g.has_reduce && !g.pack_a.used && !g.pack_b.used;
  };
  const auto counted = [](const LaunchGeometry& g) {
    return g.k_splits > 1 && !g.has_reduce && !g.pack_a.used && !g.pack_b.used;
  };
  // F4's ring under a streaming L2 access-policy window (a launch attribute), no split.
  const auto windowed = [](const LaunchGeometry& g) {
    return g.l2_streamed.which != L2StreamedOperand::Which::none && g.k_splits == 1;
  };
  const std::vector<std::pair<std::string, WinnerRecord>> winners = {
      {"one_kernel", kernel_winner(nn(256, 256, 2048), "f1_simt", plain)},
      {"pack_then_main", kernel_winner(nn(256, 256, 2048 + 64), "f2_tma", packed)},
      {"copy_per_call", kernel_winner(a_in_place, "f2_tma", packed)},
      {"main_then_reduce", kernel_winner(nn(256, 256, 4096), "f1_simt", reduced)},
      {"split_k_counters", kernel_winner(nn(256, 256, 4096 + 64), "f1_simt", counted)},
      {"streaming_window", kernel_winner(nn(2048, 16, 1024), "f4_skinny", windowed)},
      {"cublaslt", lt_winner(nn(320, 320, 4096))},
      {"cublas", winner_of(nn(288, 320, 1536), kCublasFamily, "")},
  };
  {
    Database db = Database::open(s.database, OpenMode::create);
    TuningStore store(db);
    for (const auto& [name, w] : winners) store.set_winner(w);
  }
  auto& env = testing::gpu_env();
  sgemmHandle_t h = nullptr;
  if (sgemmCreate(&h, s.database.c_str()) != SGEMM_STATUS_SUCCESS)
    throw Error(ErrorKind::internal, "sgemmCreate failed on the suite's database");
  std::uint64_t seed = 1000;
  for (const auto& [name, w] : winners) {
    auto kc = std::make_unique<KindCase>();
    kc->name = name;
    kc->p = w.problem;
    kc->family = w.family;
    kc->winner = w;
    const std::size_t count_c = static_cast<std::size_t>(elements_c(kc->p));
    s.max_c = std::max(s.max_c, count_c);
    DeviceBuffer<float> c(count_c), ref(count_c);
    const auto offsets = a_offsets.find(name);
    for (int set = 0; set < kSets; ++set) {
      kc->a_offset.push_back(offsets == a_offsets.end() ? 0 : offsets->second[set]);
      kc->a.emplace_back(elements_a(kc->p) + kc->a_offset.back());
      kc->b.emplace_back(elements_b(kc->p));
      env.utility.fill_uniform(env.stream.get(), kc->a.back().get(), kc->a.back().size(), seed++);
      env.utility.fill_uniform(env.stream.get(), kc->b.back().get(), kc->b.back().size(), seed++);
      poison(c.get(), count_c, env.stream.get());
      if (call_on(h, env.stream.get(), *kc, set, c.get()) != SGEMM_STATUS_SUCCESS)
        throw Error(ErrorKind::internal, name + ": the call alone failed");
      env.cublas.sgemm(env.stream.get(), kc->p, kAlpha, kc->a_of(set), kc->b.back().get(), 0.0f,
                       ref.get());
      const DiffNorms d = env.utility.diff(env.stream.get(), c.get(), kc->p.ldc, ref.get(),
                                           kc->p.ldc, kc->p.m, kc->p.n);
      if (d.nonfinite > 0 || std::sqrt(d.diff_sq / d.ref_sq) > 1e-5)
        throw Error(ErrorKind::internal, name + ": the call alone does not match cuBLAS");
      kc->alone.push_back(to_host(c.get(), count_c));
    }
    s.kinds.push_back(std::move(kc));
  }
  sgemmDestroy(h);
  return s;
}

Suite& suite() {
  static Suite s = make_suite();
  return s;
}

nlohmann::json describe(sgemmHandle_t h, const KindCase& kc) {
  char text[4096];
  const ProblemKey& p = kc.p;
  if (sgemmDescribe(h, op(p.transa), op(p.transb), p.m, p.n, p.k, p.lda, p.ldb, p.ldc, text,
                    sizeof text) != SGEMM_STATUS_SUCCESS)
    return {};
  return nlohmann::json::parse(text);
}

// What a pattern did: calls made, error statuses, results that differ from the call made alone.
struct Tally {
  std::atomic<long> calls{0}, errors{0}, wrong{0};
  std::mutex mutex;
  std::string first;  // the first failure, described
  void fail(std::atomic<long>& counter, const std::string& what) {
    ++counter;
    std::lock_guard lock(mutex);
    if (first.empty()) first = what;
  }
};

struct Issued {
  const KindCase* kind;
  int set;
  const float* c;
};

void check_outputs(Tally& t, const std::vector<Issued>& issued, const std::string& where) {
  for (const Issued& i : issued) {
    const std::vector<float>& alone = i.kind->alone[static_cast<std::size_t>(i.set)];
    const std::vector<float> got = to_host(i.c, alone.size());
    if (std::memcmp(got.data(), alone.data(), alone.size() * sizeof(float)) != 0)
      t.fail(t.wrong, where + ": " + i.kind->name + " set " + std::to_string(i.set) +
                          " differs from the call made alone");
  }
}

using Call = std::function<sgemmStatus_t(const KindCase&, int set, float* c, cudaStream_t s)>;

// Rounds of kInFlight calls (kinds round robin, sets varying), each into its own poisoned output
// on stream_of(i); then every stream used is waited for and every output compared.
void call_rounds(Tally& t, const std::vector<const KindCase*>& kinds, int rounds, int salt,
                 const std::function<cudaStream_t(int)>& stream_of, const Call& call) {
  std::vector<DeviceBuffer<float>> out;
  for (int i = 0; i < kInFlight; ++i) out.emplace_back(suite().max_c);
  for (int r = 0; r < rounds; ++r) {
    std::vector<Issued> issued;
    std::set<cudaStream_t> used;
    for (int i = 0; i < kInFlight; ++i) {
      const KindCase& kc =
          *kinds[static_cast<std::size_t>(r * kInFlight + i + salt) % kinds.size()];
      const int set = (r + i + salt) % kSets;
      const cudaStream_t s = stream_of(i);
      float* c = out[static_cast<std::size_t>(i)].get();
      poison(c, kc.alone[0].size(), s);
      if (const sgemmStatus_t st = call(kc, set, c, s); st != SGEMM_STATUS_SUCCESS)
        t.fail(t.errors, kc.name + ": " + sgemmGetStatusString(st));
      ++t.calls;
      issued.push_back({&kc, set, c});
      used.insert(s);
    }
    for (cudaStream_t s : used) SGT_CUDA_CHECK(cudaStreamSynchronize(s));
    check_outputs(t, issued, "round " + std::to_string(r));
  }
}

void on_threads(int threads, const std::function<void(int)>& body) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(body, t);
  for (auto& th : pool) th.join();
}

enum class Pattern {
  alternating_streams,
  threads_one_stream,
  threads_own_streams,
  threads_own_handles,
  graph_capture
};

std::string pattern_name(Pattern p) {
  switch (p) {
    case Pattern::alternating_streams:
      return "alternating_streams";
    case Pattern::threads_one_stream:
      return "threads_one_handle_one_stream";
    case Pattern::threads_own_streams:
      return "threads_one_handle_own_streams";
    case Pattern::threads_own_handles:
      return "threads_own_handles";
    case Pattern::graph_capture:
      return "graph_capture_of_first_calls";
  }
  return "?";
}

// Runs one pattern over the kinds on fresh handles (so first calls race as well) into the tally.
void run_pattern(Pattern pattern, const std::vector<const KindCase*>& kinds, Tally& t) {
  const std::string& db = suite().database;
  constexpr int kRounds = 7;  // per thread, for the threaded patterns
  sgemmHandle_t h = nullptr;
  ASSERT_EQ(sgemmCreate(&h, db.c_str()), SGEMM_STATUS_SUCCESS);
  switch (pattern) {
    case Pattern::alternating_streams: {
      Stream s0, s1;
      call_rounds(
          t, kinds, 50, 0, [&](int i) { return i % 2 ? s1.get() : s0.get(); },
          [&](const KindCase& kc, int set, float* c, cudaStream_t s) {
            sgemmSetStream(h, s);  // the handle's stream changes between calls
            return call_handle_stream(h, kc, set, c);
          });
      sgemmSetStream(h, nullptr);
      break;
    }
    case Pattern::threads_one_stream: {
      Stream s;
      sgemmSetStream(h, s.get());
      on_threads(kThreads, [&](int th) {
        call_rounds(
            t, kinds, kRounds, th, [&](int) { return s.get(); },
            [&](const KindCase& kc, int set, float* c, cudaStream_t) {
              return call_handle_stream(h, kc, set, c);
            });
      });
      sgemmSetStream(h, nullptr);
      break;
    }
    case Pattern::threads_own_streams:
      on_threads(kThreads, [&](int th) {
        Stream own;
        call_rounds(
            t, kinds, kRounds, th, [&](int) { return own.get(); },
            [&](const KindCase& kc, int set, float* c, cudaStream_t s) {
              return call_on(h, s, kc, set, c);
            });
      });
      break;
    case Pattern::threads_own_handles:
      on_threads(kThreads, [&](int th) {
        sgemmHandle_t mine = nullptr;
        if (sgemmCreate(&mine, db.c_str()) != SGEMM_STATUS_SUCCESS) {
          t.fail(t.errors, "sgemmCreate");
          return;
        }
        Stream own;
        sgemmSetStream(mine, own.get());
        call_rounds(
            t, kinds, kRounds, th, [&](int) { return own.get(); },
            [&](const KindCase& kc, int set, float* c, cudaStream_t) {
              return call_handle_stream(mine, kc, set, c);
            });
        if (sgemmDestroy(mine) != SGEMM_STATUS_SUCCESS) t.fail(t.errors, "sgemmDestroy");
      });
      break;
    case Pattern::graph_capture: {
      // First calls of every kind on this handle happen inside a capture in global mode: resolving
      // their routes (module loads, cuBLASLt, cuBLAS handles, scratch) must not invalidate it.
      Stream capture, outside;
      std::vector<DeviceBuffer<float>> in_graph;
      for (int i = 0; i < kInFlight; ++i) in_graph.emplace_back(suite().max_c);
      std::vector<Issued> captured;
      cudaGraph_t graph = nullptr;
      ASSERT_EQ(cudaStreamBeginCapture(capture.get(), cudaStreamCaptureModeGlobal), cudaSuccess);
      for (int i = 0; i < kInFlight; ++i) {
        const KindCase& kc = *kinds[static_cast<std::size_t>(i) % kinds.size()];
        float* c = in_graph[static_cast<std::size_t>(i)].get();
        poison(c, kc.alone[0].size(), capture.get());
        if (const sgemmStatus_t st = call_on(h, capture.get(), kc, i % kSets, c);
            st != SGEMM_STATUS_SUCCESS)
          t.fail(t.errors, kc.name + " while capturing: " + sgemmGetStatusString(st));
        captured.push_back({&kc, i % kSets, c});
      }
      ASSERT_EQ(cudaStreamEndCapture(capture.get(), &graph), cudaSuccess)
          << "the capture was invalidated by a first call";
      cudaGraphExec_t exec = nullptr;
      ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
      for (int replay = 0; replay < 50; ++replay) {
        ASSERT_EQ(cudaGraphLaunch(exec, capture.get()), cudaSuccess);
        t.calls += kInFlight;
        // The same problems outside the graph, on another stream, while the graph runs.
        call_rounds(
            t, kinds, 1, replay, [&](int) { return outside.get(); },
            [&](const KindCase& kc, int set, float* c, cudaStream_t s) {
              return call_on(h, s, kc, set, c);
            });
        SGT_CUDA_CHECK(cudaStreamSynchronize(capture.get()));
        check_outputs(t, captured, "replay " + std::to_string(replay));
      }
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
      // Resolved inside the capture, the routes are the tuned ones, not a fallback kept for good.
      for (const KindCase* kc : kinds) {
        const nlohmann::json d = describe(h, *kc);
        const std::string want = kc->family == kCublasFamily ? "cublas" : "exact";
        if (d.value("source", "") != want)
          t.fail(t.wrong, kc->name + " after capture: source " + d.value("source", "?") + " (" +
                              d.value("reason", "") + ")");
      }
      break;
    }
  }
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
}

class Concurrency : public ::testing::TestWithParam<std::tuple<std::string, Pattern>> {
 protected:
  void SetUp() override { SGT_SKIP_WITHOUT_GPU(); }
};

TEST_P(Concurrency, EveryResultMatchesTheCallMadeAlone) {
  const auto& [kind, pattern] = GetParam();
  std::vector<const KindCase*> kinds;
  for (const auto& kc : suite().kinds)
    if (kind == "mixed" || kc->name == kind) kinds.push_back(kc.get());
  ASSERT_FALSE(kinds.empty()) << kind;
  if (kind != "mixed") {
    sgemmHandle_t h = nullptr;
    ASSERT_EQ(sgemmCreate(&h, suite().database.c_str()), SGEMM_STATUS_SUCCESS);
    const nlohmann::json d = describe(h, *kinds[0]);
    EXPECT_EQ(d.value("family", ""), kinds[0]->family) << d.dump();
    sgemmDestroy(h);
  }
  Tally t;
  run_pattern(pattern, kinds, t);
  std::printf("[ calls    ] %s %s: %ld calls, %ld errors, %ld wrong\n", kind.c_str(),
              pattern_name(pattern).c_str(), t.calls.load(), t.errors.load(), t.wrong.load());
  EXPECT_GT(t.calls.load(), 300);
  EXPECT_EQ(t.errors.load(), 0) << t.first;
  EXPECT_EQ(t.wrong.load(), 0) << t.first;
}

INSTANTIATE_TEST_SUITE_P(
    RouteKinds, Concurrency,
    ::testing::Combine(::testing::Values("one_kernel", "pack_then_main", "copy_per_call",
                                         "main_then_reduce", "split_k_counters", "streaming_window",
                                         "cublaslt", "cublas", "mixed"),
                       ::testing::Values(Pattern::alternating_streams, Pattern::threads_one_stream,
                                         Pattern::threads_own_streams, Pattern::threads_own_handles,
                                         Pattern::graph_capture)),
    [](const ::testing::TestParamInfo<Concurrency::ParamType>& info) {
      return std::get<0>(info.param) + "__" + pattern_name(std::get<1>(info.param));
    });

// Streams destroyed while their calls still run, and new ones (which may get a destroyed one's
// address), more of them than a handle gives lanes of their own (the rest share one lane, its
// calls ordered by an event): no call may share scratch with one still running.
TEST(ConcurrencyStreams, ShortLivedStreamsNeverShareScratch) {
  SGT_SKIP_WITHOUT_GPU();
  std::vector<const KindCase*> kinds;
  for (const auto& kc : suite().kinds)
    if (kc->name == "main_then_reduce" || kc->name == "pack_then_main" ||
        kc->name == "copy_per_call" || kc->name == "cublaslt")
      kinds.push_back(kc.get());
  sgemmHandle_t h = nullptr;
  ASSERT_EQ(sgemmCreate(&h, suite().database.c_str()), SGEMM_STATUS_SUCCESS);
  Tally t;
  std::vector<DeviceBuffer<float>> out;
  for (int i = 0; i < 2 * kInFlight; ++i) out.emplace_back(suite().max_c);
  std::vector<Issued> issued;
  for (int r = 0; r < 100; ++r) {
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    for (int i = 0; i < kInFlight; ++i) {
      const KindCase& kc = *kinds[static_cast<std::size_t>(r + i) % kinds.size()];
      float* c = out[static_cast<std::size_t>((r % 2) * kInFlight + i)].get();
      poison(c, kc.alone[0].size(), s);
      if (const sgemmStatus_t st = call_on(h, s, kc, (r + i) % kSets, c);
          st != SGEMM_STATUS_SUCCESS)
        t.fail(t.errors, kc.name + ": " + sgemmGetStatusString(st));
      ++t.calls;
      issued.push_back({&kc, (r + i) % kSets, c});
    }
    ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);  // its calls may still be running
    if (r % 2 == 1) {
      SGT_CUDA_CHECK(cudaDeviceSynchronize());
      check_outputs(t, issued, "streams " + std::to_string(r - 1) + "-" + std::to_string(r));
      issued.clear();
    }
  }
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
  EXPECT_EQ(t.errors.load(), 0) << t.first;
  EXPECT_EQ(t.wrong.load(), 0) << t.first;
  std::printf("[ calls    ] short-lived streams: %ld calls\n", t.calls.load());
}

// A thread that has made no CUDA runtime call has no current context, and a kernel loaded through
// the driver cannot be launched from it: the launch fails with CUDA_ERROR_INVALID_CONTEXT. The
// dispatcher makes the device's primary context current on such a thread, as the runtime does.
TEST(ConcurrencyThreads, ThreadWithNoCurrentContext) {
  SGT_SKIP_WITHOUT_GPU();
  const KindCase* packed = nullptr;
  for (const auto& kc : suite().kinds)
    if (kc->name == "pack_then_main") packed = kc.get();
  ASSERT_NE(packed, nullptr);
  const Family& family = find_family(packed->winner.family);
  const Knobs knobs = parse_knobs(packed->winner.config);
  const SgemmKernel kernel(std::string(packed->winner.cubin.begin(), packed->winner.cubin.end()));
  const LaunchGeometry geometry = family.geometry(knobs, packed->p, testing::gpu_limits());
  DeviceBuffer<float> workspace(std::max<std::size_t>(geometry.workspace_floats, 1));
  sgemmHandle_t h = nullptr;
  ASSERT_EQ(sgemmCreate(&h, suite().database.c_str()), SGEMM_STATUS_SUCCESS);
  std::vector<DeviceBuffer<float>> out;
  for (std::size_t i = 0; i < suite().kinds.size(); ++i) out.emplace_back(suite().max_c);
  for (std::size_t i = 0; i < suite().kinds.size(); ++i)
    poison(out[i].get(), suite().max_c, nullptr);
  SGT_CUDA_CHECK(cudaDeviceSynchronize());

  CUcontext before = reinterpret_cast<CUcontext>(1);
  std::string direct_launch;  // what the driver says to a launch from the context-less thread
  std::vector<sgemmStatus_t> statuses;
  std::thread fresh([&] {
    driver().cuCtxGetCurrent(&before);
    const ProblemKey& p = packed->p;
    try {
      kernel.launch(geometry,
                    problem_args(p, packed->a[0].get(), packed->b[0].get(), out[0].get(),
                                 workspace.get(), kAlpha, kBeta),
                    nullptr);
      direct_launch = "launched";
    } catch (const Error& e) {
      direct_launch = e.what();
    }
    for (std::size_t i = 0; i < suite().kinds.size(); ++i)
      statuses.push_back(call_on(h, nullptr, *suite().kinds[i], 0, out[i].get()));
  });
  fresh.join();
  std::printf("[ probe    ] launch from a thread with no current context: %s\n",
              direct_launch.c_str());
  EXPECT_EQ(before, nullptr) << "a new thread already had a current context";
  EXPECT_NE(direct_launch.find("CUDA_ERROR_INVALID_CONTEXT"), std::string::npos) << direct_launch;
  SGT_CUDA_CHECK(cudaDeviceSynchronize());
  Tally t;
  std::vector<Issued> issued;
  for (std::size_t i = 0; i < suite().kinds.size(); ++i) {
    EXPECT_EQ(statuses[i], SGEMM_STATUS_SUCCESS) << suite().kinds[i]->name;
    issued.push_back({suite().kinds[i].get(), 0, out[i].get()});
  }
  check_outputs(t, issued, "context-less thread");
  EXPECT_EQ(t.wrong.load(), 0) << t.first;
  EXPECT_EQ(sgemmDestroy(h), SGEMM_STATUS_SUCCESS);
}

}  // namespace
}  // namespace sgt
