// Tuning on use in the device state: the contenders of an untuned problem's trial, a call's turn
// in it, and storing the winner in the per-user database (docs/dispatcher.md).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "common/error.hpp"
#include "cuda/capture_mode.hpp"
#include "db/database.hpp"
#include "db/device_records.hpp"
#include "db/tuning_store.hpp"
#include "dispatch/context.hpp"
#include "measure/winner_selection.hpp"

namespace sgt {

Route& DeviceState::contender_route() {
  contender_routes_.push_back(std::make_unique<Route>());
  return *contender_routes_.back();
}

void DeviceState::start_trial(Route& r) {
  std::vector<Contender> lt, own;
  // cuBLASLt's top algorithms, each a plan of its own (a route runs its plan's first algorithm).
  try {
    if (!lt_)
      lt_ = std::make_unique<CublasLtGemm>(CublasLtGemm::CallerWorkspace{},
                                           CublasLtGemm::kDefaultWorkspaceBytes);
    const CublasLtPlan top = lt_->plan(r.key, std::max(1, on_use_.lt_algorithms));
    for (const LtAlgorithm& algorithm : top.algorithms()) {
      lt_plans_.push_back(std::make_unique<CublasLtPlan>(lt_->plan_for(r.key, algorithm.algo)));
      Route& c = contender_route();
      c.key = r.key;
      c.source = Route::Source::on_use;
      c.lt_plan = lt_plans_.back().get();
      c.scratch_bytes = kTileCounterBytes + c.lt_plan->algorithms().front().workspace_bytes;
      lt.push_back(
          {kCublasLtFamily, lt_algorithm_config(algorithm.algo), &c, nullptr, kLibraryComplexity});
    }
  } catch (const Error&) {
    // No cuBLASLt contender: the heuristic has nothing for this problem, or the library refused.
  }
  // The kernels of the nearest tuned problems of the same transposes and alignment class whose
  // cubins are at hand (no compilation on the caller's thread), each configuration once.
  struct Near {
    double distance;
    const TunedEntry* entry;
  };
  std::vector<Near> near;
  for (const TunedEntry* e : pool_entries_) {
    const ProblemKey& p = e->record.problem;
    if (!e->family || p.transa != r.key.transa || p.transb != r.key.transb ||
        p.align != r.key.align || e->record.cubin.empty() || e->record.cubin_arch != arch_)
      continue;
    near.push_back({log_distance(r.key, p), e});
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const Near& a, const Near& b) { return a.distance < b.distance; });
  std::set<std::string> seen;
  int kernels = 0;
  for (const Near& n : near) {
    if (kernels >= on_use_.kernels) break;
    const TunedEntry& e = *n.entry;
    const std::string id = e.record.family + "|" + e.record.config;
    if (seen.count(id)) continue;
    try {
      if (!e.family->cannot_implement(e.knobs, r.key).empty() ||
          e.family->defines(e.knobs, r.key) != e.family->defines(e.knobs, e.record.problem))
        continue;
      std::string why;
      bool transient = false;
      const SgemmKernel* k = kernel(e, why, transient);
      if (!k) continue;
      Route& c = contender_route();
      c.key = r.key;
      c.source = Route::Source::on_use;
      c.kernel = k;
      c.geometry = e.family->geometry(e.knobs, r.key, limits_);
      c.scratch_bytes = sizeof(float) * c.geometry.workspace_floats;
      c.entry = &e;
      own.push_back({e.record.family, e.record.config, &c, &e, 0});
      seen.insert(id);
      ++kernels;
    } catch (const Error&) {
      continue;  // this neighbour's kernel cannot serve the problem
    }
  }
  r.trial = std::make_unique<OnUseTrial>(
      trial_contenders({kCublasFamily, "", nullptr, nullptr, 0}, std::move(lt), std::move(own),
                       on_use_.max_contenders()),
      &cublas_route_, on_use_);
  r.source = Route::Source::on_use;
  r.why = r.trial->describe();
}

void DeviceState::run_trial(const Route& route, cudaStream_t stream, const GemmCall& call) {
  OnUseTrial& trial = *route.trial;
  if (const Route* decided = trial.decided()) return run(decided, stream, call);
  if (is_capturing(stream)) return run(nullptr, stream, call);  // nothing timed in a graph
  const OnUseTrial::Turn turn = trial.begin();
  if (turn.decision) trial.set_note(store_on_use(route, *turn.decision));
  const Route* contender = trial.contenders()[static_cast<std::size_t>(turn.contender)].route;
  try {
    if (turn.start) SGT_CUDA_CHECK(cudaEventRecord(turn.start, stream));
    run(contender, stream, call);
    if (turn.end) SGT_CUDA_CHECK(cudaEventRecord(turn.end, stream));
  } catch (const Error&) {
    trial.finish(turn, false);
    if (!contender) throw;
    run(nullptr, stream, call);  // the contender is dropped; this call's result comes from cuBLAS
    return;
  }
  trial.finish(turn, true);
}

std::string DeviceState::store_on_use(const Route& route, const OnUseDecision& decision) {
  if (on_use_.database.empty())
    return "not stored: no per-user database (set SGEMM_DISPATCH_TUNE_DB)";
  const Contender& c = route.trial->contenders()[static_cast<std::size_t>(decision.winner)];
  WinnerRecord w;
  w.problem = route.key;
  w.gpu = gpu_;
  w.software = software_record();
  w.family = c.family;
  w.config = c.config;
  if (c.entry) {  // the neighbour's kernel, as compiled for it (the same variant as this problem's)
    w.template_hash = c.entry->record.template_hash;
    w.compile_options = c.entry->record.compile_options;
    w.cubin = c.entry->record.cubin;
    w.cubin_arch = c.entry->record.cubin_arch;
  }
  w.time_us = decision.time_us;
  w.cublas_us = decision.cublas_us;
  w.tie_band = decision.tie_band;
  try {
    const std::filesystem::path path(on_use_.database);
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
    Database db = Database::open(on_use_.database, OpenMode::create);
    TuningStore(db).set_winner(w);
    return "stored in " + on_use_.database;
  } catch (const std::exception& e) {
    return fmt::format("not stored in {}: {}", on_use_.database, e.what());
  }
}

}  // namespace sgt
