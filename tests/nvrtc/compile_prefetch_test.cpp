// The compile cache under concurrent requests for one configuration, and the prefetcher that
// compiles ahead of the search: a configuration is compiled once, whoever asks first.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "jit/compile_cache.hpp"
#include "tuner/compile_prefetcher.hpp"

namespace sgt {
namespace {

constexpr const char* kArch = "sm_90";

TEST(CompileCache, ConcurrentRequestsForOneConfigurationCompileItOnce) {
  CompileCache cache("");  // memory only
  std::vector<std::thread> threads;
  std::vector<CompileResult> results(4);
  for (std::size_t t = 0; t < results.size(); ++t)
    threads.emplace_back([&, t] { results[t] = cache.compile("utility.cu", {}, kArch); });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(cache.misses(), 1);
  EXPECT_EQ(cache.hits(), 3);
  for (const CompileResult& r : results) {
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_EQ(r.cubin, results[0].cubin);
  }
}

TEST(CompilePrefetcher, APrefetchedConfigurationIsACacheHitLater) {
  CompileCache cache("");
  {
    CompilePrefetcher prefetch(cache, kArch, 2);
    prefetch.want({{"utility.cu", {}}, {"utility.cu", {"-DSGEMM_UNUSED_MACRO=1"}}});
    // Asking while the prefetch may still run waits for it instead of compiling again.
    const CompileResult r = cache.compile("utility.cu", {}, kArch);
    ASSERT_TRUE(r.ok) << r.log;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!cache.has("utility.cu", {"-DSGEMM_UNUSED_MACRO=1"}, kArch) &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_GE(prefetch.started(), 1);
  }  // the prefetcher's destructor waits for compiles in flight
  EXPECT_EQ(cache.misses(), 2);
  cache.compile("utility.cu", {"-DSGEMM_UNUSED_MACRO=1"}, kArch);
  EXPECT_EQ(cache.misses(), 2);
}

TEST(CompilePrefetcher, ANewGuessReplacesTheQueue) {
  CompileCache cache("");
  {
    CompilePrefetcher prefetch(cache, kArch, 1);
    std::vector<CompileRequest> many;
    for (int i = 0; i < 20; ++i)
      many.push_back({"utility.cu", {"-DSGEMM_UNUSED_MACRO=" + std::to_string(i)}});
    prefetch.want(many);
    prefetch.want({});  // the guess changed: what was not started is dropped
  }
  // At most the one compile a single worker had begun before the queue was replaced.
  EXPECT_LE(cache.misses(), 1);
}

}  // namespace
}  // namespace sgt
