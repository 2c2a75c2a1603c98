// `sgemm-tune query M N K` and `sgemm-tune list`: what the database holds, without a GPU when
// the architecture is given.
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/cli_common.hpp"
#include "common/error.hpp"
#include "cuda/device_info.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "dispatch/lookup.hpp"
#include "jit/templates.hpp"
#include "space/family.hpp"
#include "space/problem_json.hpp"

namespace sgt::cli {
namespace {

struct QueryArgs {
  ProblemArgs problem;
  std::string arch, gpu, db;
  bool json = false;
};

std::string local_arch_or_throw() {
  if (const std::string why = gpu_unavailable_reason(); !why.empty())
    throw Error(ErrorKind::invalid_value,
                fmt::format("{}; give --arch (for example --arch sm_90)", why));
  return query_device(0).arch();
}

// False for a kernel winner tuned with another version of its family's template (or a family
// this build lacks): the dispatcher serves such a problem with cuBLAS.
bool tuned_with_this_template(const WinnerRecord& w) {
  if (w.family == kCublasFamily || w.family == kCublasLtFamily) return true;
  // Each family's template is hashed once, not once per winner listed.
  static std::map<std::string, std::string> hashes;
  auto it = hashes.find(w.family);
  if (it == hashes.end()) {
    try {
      it = hashes.emplace(w.family, template_hash(find_family(w.family).name() + ".cu")).first;
    } catch (const Error&) {
      return false;
    }
  }
  return it->second == w.template_hash;
}

nlohmann::json winner_json(const WinnerRecord& w) {
  nlohmann::json j = {{"problem", w.problem.to_string()},
                      {"gpu", w.gpu.name},
                      {"arch", w.gpu.arch},
                      {"family", w.family},
                      {"config", w.config},
                      {"time_us", w.time_us},
                      {"cublas_us", w.cublas_us},
                      {"speedup", w.time_us > 0 ? w.cublas_us / w.time_us : 0.0},
                      {"tie_band", w.tie_band},
                      {"template_hash", w.template_hash},
                      {"template_current", tuned_with_this_template(w)},
                      {"has_cubin", !w.cubin.empty()},
                      {"updated_at", w.updated_at}};
  put_problem_fields(j, w.problem);
  return j;
}

// An untuned problem on one GPU model: the dispatcher's nearest step (docs/dispatcher.md, the
// lookup chain) over that model's winners, with the rules of this environment. The dispatcher's
// own check also loads the neighbour's kernel; here a kernel tuned with another template version
// is skipped, as the dispatcher would find it unavailable.
struct UntunedRoute {
  const WinnerRecord* neighbour = nullptr;  // null: cuBLAS
  NearestChoice choice;
};

UntunedRoute nearest_route(const ProblemKey& key, const std::string& gpu,
                           const std::vector<WinnerRecord>& winners) {
  struct Entry {
    const WinnerRecord* record;
    const Family* family;  // null: cuBLAS or cuBLASLt won there
    Knobs knobs;
  };
  std::vector<Entry> entries;
  std::vector<Neighbour> pool;
  for (const WinnerRecord& w : winners) {
    if (w.gpu.name != gpu) continue;
    Entry e{&w, nullptr, {}};
    if (w.family != kCublasFamily && w.family != kCublasLtFamily) {
      try {
        e.family = &find_family(w.family);
        e.knobs = parse_knobs(w.config);
        if (!e.family->cannot_implement(e.knobs, w.problem).empty()) continue;
      } catch (const Error&) {
        continue;  // a family or knob this build does not know: the dispatcher skips it too
      }
    }
    pool.push_back({w.problem, e.family != nullptr, w.time_us, w.cublas_us});
    entries.push_back(std::move(e));
  }
  const auto check = [&](std::size_t i) -> std::string {
    const Entry& e = entries[i];
    if (!tuned_with_this_template(*e.record)) return "tuned with another template version";
    try {
      return kernel_cannot_serve(*e.family, e.knobs, e.record->problem, key);
    } catch (const Error& ex) {
      return ex.what();
    }
  };
  UntunedRoute route;
  route.choice = choose_nearest(key, pool, nearest_rules_from_env(), check);
  if (route.choice.index >= 0) route.neighbour = entries[route.choice.index].record;
  return route;
}

// The GPU models of this architecture that the database holds winners of (or only `gpu`).
std::set<std::string> gpu_models(const std::vector<WinnerRecord>& winners, const std::string& gpu) {
  std::set<std::string> models;
  for (const WinnerRecord& w : winners)
    if (gpu.empty() || w.gpu.name == gpu) models.insert(w.gpu.name);
  return models;
}

void print_untuned(const ProblemKey& key, const std::string& arch,
                   const std::vector<WinnerRecord>& winners, const std::string& gpu, bool json) {
  nlohmann::json out = nlohmann::json::array();
  const std::set<std::string> models = gpu_models(winners, gpu);
  if (models.empty() && !json)
    std::printf("%s on %s: not tuned (the dispatcher uses cuBLAS)\n", key.to_string().c_str(),
                arch.c_str());
  for (const std::string& model : models) {
    const UntunedRoute r = nearest_route(key, model, winners);
    if (json) {
      nlohmann::json j = {{"problem", key.to_string()},
                          {"gpu", model},
                          {"arch", arch},
                          {"tuned", false},
                          {"route", r.neighbour ? "nearest" : "cublas"},
                          {"why", r.choice.why}};
      if (r.neighbour) j["neighbour"] = winner_json(*r.neighbour);
      out.push_back(std::move(j));
    } else if (r.neighbour) {
      std::printf(
          "%s on %s (%s): not tuned; the dispatcher serves it with the %s: %s %s (not "
          "measured on this problem)\n",
          key.to_string().c_str(), model.c_str(), arch.c_str(), r.choice.why.c_str(),
          r.neighbour->family.c_str(), r.neighbour->config.c_str());
    } else {
      std::printf("%s on %s (%s): %s (the dispatcher uses cuBLAS)\n", key.to_string().c_str(),
                  model.c_str(), arch.c_str(), r.choice.why.c_str());
    }
  }
  if (json) std::printf("%s\n", out.dump(2).c_str());
}

int run_query(const QueryArgs& a) {
  const ProblemKey key = problem_key(a.problem);
  const std::string arch = a.arch.empty() ? local_arch_or_throw() : a.arch;
  parse_arch(arch);

  Database db = Database::open(a.db, OpenMode::read_only);
  TuningStore store(db);
  const std::vector<WinnerRecord> winners = store.winners(arch);
  std::vector<const WinnerRecord*> matches;
  for (const WinnerRecord& w : winners)
    if (w.problem == key && (a.gpu.empty() || w.gpu.name == a.gpu)) matches.push_back(&w);
  if (matches.empty()) {
    print_untuned(key, arch, winners, a.gpu, a.json);
    return kExitError;
  }
  if (a.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const WinnerRecord* w : matches) out.push_back(winner_json(*w));
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  for (const WinnerRecord* w : matches)
    std::printf("%s on %s (%s): %s %s  %.2f us, cuBLAS %.2f us, %.2fx%s\n", key.to_string().c_str(),
                w->gpu.name.c_str(), arch.c_str(), w->family.c_str(), w->config.c_str(), w->time_us,
                w->cublas_us, w->time_us > 0 ? w->cublas_us / w->time_us : 0.0,
                tuned_with_this_template(*w) ? ""
                                             : "  (tuned with another template version: the "
                                               "dispatcher uses cuBLAS until it is tuned again)");
  return kExitOk;
}

int run_list(const std::string& db_path, const std::string& arch, bool json) {
  Database db = Database::open(db_path, OpenMode::read_only);
  TuningStore store(db);
  const std::vector<WinnerRecord> all = store.winners(arch);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const WinnerRecord& w : all) out.push_back(winner_json(w));
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%-44s %-14s %-7s %-9s %10s %10s %8s  %s\n", "problem", "gpu", "arch", "family", "us",
              "cuBLAS us", "speedup", "config");
  for (const WinnerRecord& w : all)
    std::printf("%-44s %-14s %-7s %-9s %10.2f %10.2f %7.2fx  %s\n", w.problem.to_string().c_str(),
                w.gpu.name.c_str(), w.gpu.arch.c_str(), w.family.c_str(), w.time_us, w.cublas_us,
                w.time_us > 0 ? w.cublas_us / w.time_us : 0.0, w.config.c_str());
  std::printf("%zu tuned problems\n", all.size());
  return kExitOk;
}

}  // namespace

void add_query_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<QueryArgs>();
  CLI::App* cmd = app.add_subcommand("query", "Best known configuration for a problem");
  add_problem_options(*cmd, a->problem);
  cmd->add_option("--arch", a->arch, "Architecture, e.g. sm_90 (default: the local GPU's)");
  cmd->add_option("--gpu", a->gpu, "Only this GPU model, e.g. \"NVIDIA H200\"");
  cmd->add_option("--db", a->db, "Tuning database");
  cmd->add_flag("--json", a->json, "JSON output");
  cmd->callback([a, &exit_code] {
    if (a->db.empty()) a->db = default_database_path();
    exit_code = run_query(*a);
  });
}

void add_list_command(CLI::App& app, int& exit_code) {
  auto db = std::make_shared<std::string>();
  auto arch = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("list", "Every tuned problem in the database");
  cmd->add_option("--db", *db, "Tuning database");
  cmd->add_option("--arch", *arch, "Only this architecture");
  cmd->add_flag("--json", *json, "JSON output");
  cmd->callback([db, arch, json, &exit_code] {
    exit_code = run_list(db->empty() ? default_database_path() : *db, *arch, *json);
  });
}

}  // namespace sgt::cli
