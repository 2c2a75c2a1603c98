// Database merge through the store's text dump (export_json / import_json), then a resolution
// pass over the winners each import replaced.
#include "report/merge.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "common/error.hpp"
#include "db/database.hpp"

namespace sgt::report {
namespace {

namespace fs = std::filesystem;

using WinnerKey =
    std::tuple<std::string, std::string, int, std::string>;  // arch, name, SMs, problem

WinnerKey key_of(const WinnerRecord& w) {
  return {w.gpu.arch, w.gpu.name, w.gpu.sm_count, w.problem.to_string()};
}

bool same_record(const WinnerRecord& a, const WinnerRecord& b) {
  return a.family == b.family && a.config == b.config && a.template_hash == b.template_hash &&
         a.time_us == b.time_us && a.cublas_us == b.cublas_us && a.updated_at == b.updated_at &&
         a.gpu.uuid == b.gpu.uuid;
}

std::string kernel_of(const WinnerRecord& w) {
  return w.family == kCublasFamily ? w.family : w.family + " " + w.config;
}

std::string canonical(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  return ec ? path : p.string();
}

struct Entry {
  WinnerRecord winner;
  std::string source;
};

}  // namespace

MergeSummary merge_databases(const std::string& out_path, const std::vector<std::string>& inputs) {
  if (inputs.empty()) throw Error(ErrorKind::invalid_value, "merge: no input databases");
  std::set<std::string> seen = {canonical(out_path)};
  for (const std::string& in : inputs) {
    if (!seen.insert(canonical(in)).second)
      throw Error(ErrorKind::invalid_value,
                  fmt::format("merge: {} is the output or given twice", in));
    if (!fs::exists(in))
      throw Error(ErrorKind::invalid_value, fmt::format("merge: {}: no such file", in));
  }

  const fs::path parent = fs::path(out_path).parent_path();
  if (!parent.empty()) fs::create_directories(parent);
  Database out = Database::open(out_path, OpenMode::create);
  TuningStore store(out);

  MergeSummary summary;
  std::map<WinnerKey, Entry> best;
  for (WinnerRecord& w : store.winners("", true)) best[key_of(w)] = {std::move(w), out_path};

  ExportOptions everything;
  everything.include_cubins = true;
  everything.include_candidates = true;
  for (const std::string& in : inputs) {
    std::string text;
    {
      Database source = Database::open(in, OpenMode::read_only);
      text = TuningStore(source).export_json(everything);
    }
    const ImportSummary s = store.import_json(text);
    summary.imported.gpus += s.gpus;
    summary.imported.software += s.software;
    summary.imported.runs += s.runs;
    summary.imported.candidates += s.candidates;
    summary.imported.winners += s.winners;
    ++summary.inputs;

    for (WinnerRecord& w : store.winners("", true)) {
      const WinnerKey key = key_of(w);
      auto it = best.find(key);
      if (it == best.end()) {
        best[key] = {std::move(w), in};
        continue;
      }
      Entry& previous = it->second;
      if (same_record(previous.winner, w)) continue;  // not replaced by this input
      MergeConflict c;
      c.problem = w.problem;
      c.gpu_name = w.gpu.name;
      c.arch = w.gpu.arch;
      c.sm_count = w.gpu.sm_count;
      c.same_kernel = previous.winner.family == w.family && previous.winner.config == w.config;
      if (previous.winner.time_us <= w.time_us) {
        c.kept_source = previous.source;
        c.kept_kernel = kernel_of(previous.winner);
        c.kept_us = previous.winner.time_us;
        c.dropped_source = in;
        c.dropped_kernel = kernel_of(w);
        c.dropped_us = w.time_us;
        store.set_winner(previous.winner);
      } else {
        c.kept_source = in;
        c.kept_kernel = kernel_of(w);
        c.kept_us = w.time_us;
        c.dropped_source = previous.source;
        c.dropped_kernel = kernel_of(previous.winner);
        c.dropped_us = previous.winner.time_us;
        previous = {std::move(w), in};
      }
      summary.conflicts.push_back(std::move(c));
    }
  }
  summary.winners = static_cast<int>(store.winners("", false).size());
  return summary;
}

}  // namespace sgt::report
