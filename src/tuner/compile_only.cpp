#include "tuner/compile_only.hpp"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/provenance.hpp"
#include "cuda/device_info.hpp"
#include "db/tuning_store.hpp"
#include "tuner/candidate_list.hpp"
#include "tuner/compile_pool.hpp"
#include "tuner/search_strategy.hpp"
#include "tuner/static_pruning.hpp"

namespace sgt {

GpuRecord compile_only_gpu(const std::string& arch, const DeviceLimits& limits) {
  return {"compile-only", "", arch, limits.sm_count, 0, 0};
}

CompileOnly::CompileOnly(TuningStore* store, CompileOnlyOptions options)
    : store_(store),
      options_(std::move(options)),
      space_(load_search_space(options_.space_path)),
      enumeration_(enumerate(space_, options_.limits)),
      cache_(options_.cache_dir),
      gpu_(compile_only_gpu(options_.arch, options_.limits)) {
  const SoftwareInfo sw = query_software();
  software_ = {sw.driver, sw.runtime, sw.nvrtc, sw.cublas};
  if (!store_) return;
  RunRecord run;
  run.started_at = utc_timestamp();
  run.host = options_.host.empty() ? host_name() : options_.host;
  run.command = options_.command_line;
  run.clock_policy = "none";
  run.notes = nlohmann::json{{"mode", "compile-only"}, {"arch", options_.arch}}.dump();
  run_id_ = store_->begin_run(run, gpu_, software_);
}

CompileOnlyResult CompileOnly::run(const ProblemKey& problem) {
  const auto started = std::chrono::steady_clock::now();
  CandidateList list = plan_candidates(enumeration_, options_.limits, problem, options_.arch);
  if (options_.max_candidates > 0) {
    SearchOrder order(Strategy::model, space_, list.candidates, options_.max_candidates, 0);
    std::vector<PlannedCandidate> first;
    for (const std::size_t i : order.next_batch({})) first.push_back(list.candidates[i]);
    list.candidates = std::move(first);
  }
  CompileOnlyResult result;
  result.problem = problem;
  result.candidates = static_cast<int>(list.candidates.size());
  result.pruned = list.pruned;

  std::vector<CompilePool::Job> jobs;
  for (const PlannedCandidate& c : list.candidates)
    jobs.push_back(
        [this, &c] { return cache_.compile(c.template_file, c.defines, options_.arch); });
  const int threads = options_.compile_threads > 0
                          ? options_.compile_threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int hits_before = cache_.hits();
  CompilePool pool(std::move(jobs), threads);
  std::vector<CandidateRecord> records;
  for (std::size_t i = 0; i < list.candidates.size(); ++i) {
    const PlannedCandidate& c = list.candidates[i];
    const CompileResult compiled = pool.take(i);
    const ResourceVerdict resources = check_resources(
        compiled, c.candidate.family->geometry(c.candidate.knobs, problem, options_.limits),
        options_.limits);
    CandidateRecord rec = candidate_record(c, problem, run_id_);
    switch (record_compile(rec, compiled, resources)) {
      case Outcome::compile_failed:
        ++result.compile_failed;
        break;
      case Outcome::resources_exceeded:
        ++result.resources_exceeded;
        break;
      default:
        rec.outcome = Outcome::compiled;
        ++result.compiled;
    }
    records.push_back(std::move(rec));
  }
  result.cache_hits = cache_.hits() - hits_before;
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (store_) store_->record_candidates(run_id_, gpu_, software_, records);
  return result;
}

void CompileOnly::finish(const std::string& status) {
  if (store_) store_->finish_run(run_id_, status);
}

}  // namespace sgt
