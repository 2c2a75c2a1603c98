// `sgemm-tune tune --compile-only`: every candidate of every problem compiled (and cached) for an
// architecture, with no GPU; a table or JSON of counts and throughput.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_common.hpp"
#include "cli/tune_args.hpp"
#include "cuda/device_info.hpp"
#include "db/tuning_store.hpp"
#include "jit/compile_cache.hpp"
#include "tuner/compile_only.hpp"
#include "tuner/tuner.hpp"

namespace sgt::cli {
namespace {

// Limits of the target architecture: the local GPU's when it is that architecture.
DeviceLimits compile_only_limits(const std::string& arch, int device) {
  if (gpu_unavailable_reason().empty()) {
    const DeviceInfo d = query_device(device);
    if (d.arch() == arch) return device_limits(d);
  }
  DeviceLimits limits;
  limits.cc = parse_arch(arch);
  if (arch != "sm_90")
    spdlog::warn(
        "no {} GPU here: checking resources against sm_90 limits (227 KB shared memory, "
        "64K registers per SM)",
        arch);
  return limits;
}

nlohmann::json to_json(const CompileOnlyResult& r) {
  return {{"problem", r.problem.to_string()},
          {"candidates", r.candidates},
          {"compiled", r.compiled},
          {"compile_failed", r.compile_failed},
          {"resources_exceeded", r.resources_exceeded},
          {"cache_hits", r.cache_hits},
          {"seconds", r.seconds},
          {"candidates_per_second", r.per_second()}};
}

void print_row(const nlohmann::json& r) {
  std::printf("%-44s %10d %9d %7d %9d %10d %8.1f %8.1f\n",
              r.at("problem").get<std::string>().c_str(), r.at("candidates").get<int>(),
              r.at("compiled").get<int>(), r.at("compile_failed").get<int>(),
              r.at("resources_exceeded").get<int>(), r.at("cache_hits").get<int>(),
              r.at("seconds").get<double>(), r.at("candidates_per_second").get<double>());
}

}  // namespace

int compile_only(const TuneArgs& a, const std::vector<Shape>& shapes, const std::string& cmd,
                 nlohmann::json* report) {
  std::string arch = a.arch;
  if (arch.empty()) {
    if (const std::string why = gpu_unavailable_reason(); !why.empty()) {
      spdlog::error("--compile-only without a GPU needs --arch (for example --arch sm_90): {}",
                    why);
      return kExitUsage;
    }
    arch = query_device(a.device).arch();
  }
  CompileOnlyOptions options;
  options.space_path = a.space.empty() ? default_config_path("spaces") : a.space;
  options.arch = arch;
  options.limits = compile_only_limits(arch, a.device);
  options.compile_threads = a.compile_threads;
  options.cache_dir = a.no_cache ? "" : default_compile_cache_dir();
  options.command_line = cmd;
  options.host = a.host;
  options.max_candidates = std::max(a.max_candidates, 0);  // given explicitly: the first batch
  Database db = open_tuning_database(a.db);
  TuningStore store(db);
  CompileOnly compiler(&store, options);
  const int threads = a.compile_threads > 0 ? a.compile_threads
                                            : static_cast<int>(std::thread::hardware_concurrency());
  spdlog::info("compiling the candidates of {} problems for {} with {} threads{}", shapes.size(),
               arch, threads, a.no_cache ? " (no cache)" : "");
  install_interrupt_handlers();
  std::vector<CompileOnlyResult> results;
  for (const Shape& shape : shapes) {
    if (interrupt_requested()) {
      compiler.finish("interrupted");
      spdlog::warn("interrupted: compiled problems are stored");
      return kExitInterrupted;
    }
    const CompileOnlyResult& r = results.emplace_back(compiler.run(shape.problem.key));
    spdlog::info(
        "{}: {} candidates, {} compiled, {} failed, {} over resources, {} cache hits, "
        "{:.1f} s ({:.1f}/s)",
        r.problem.to_string(), r.candidates, r.compiled, r.compile_failed, r.resources_exceeded,
        r.cache_hits, r.seconds, r.per_second());
  }
  compiler.finish("finished");
  nlohmann::json problems = nlohmann::json::array();
  for (const CompileOnlyResult& r : results) problems.push_back(to_json(r));
  if (report) {
    *report = {{"arch", arch}, {"threads", threads}, {"problems", problems}};
    return kExitOk;
  }
  print_compile_report(problems, a.json);
  return kExitOk;
}

void print_compile_report(const nlohmann::json& problems, bool as_json) {
  CompileOnlyResult total;
  for (const nlohmann::json& r : problems) {
    total.candidates += r.at("candidates").get<int>();
    total.compiled += r.at("compiled").get<int>();
    total.compile_failed += r.at("compile_failed").get<int>();
    total.resources_exceeded += r.at("resources_exceeded").get<int>();
    total.cache_hits += r.at("cache_hits").get<int>();
    total.seconds += r.at("seconds").get<double>();
  }
  nlohmann::json sum = to_json(total);
  sum.erase("problem");
  if (as_json) {
    std::printf("%s\n", nlohmann::json{{"problems", problems}, {"total", sum}}.dump(2).c_str());
    return;
  }
  std::printf("\n%-44s %10s %9s %7s %9s %10s %8s %8s\n", "problem", "candidates", "compiled",
              "failed", "resources", "cache hits", "seconds", "per s");
  for (const nlohmann::json& r : problems) print_row(r);
  sum["problem"] = "total";
  print_row(sum);
}

}  // namespace sgt::cli
