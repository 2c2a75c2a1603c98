// The tuning database as the tuner, the dispatcher and the CLI use it: runs, every candidate
// tried (for resume and reports), winners per problem per GPU model, and text export/import.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "db/database.hpp"
#include "db/records.hpp"
#include "space/problem.hpp"

namespace sgt {

struct ExportOptions {
  bool include_cubins = false;     // winners' cubins as base64 (large, and not diffable)
  bool include_candidates = true;  // runs and every candidate tried; false: winners only
};

// Records read from a dump (each inserted or merged into an existing row).
struct ImportSummary {
  int gpus = 0;
  int software = 0;
  int runs = 0;
  int candidates = 0;
  int winners = 0;
};

// Not thread-safe: give each thread its own Database and TuningStore (SQLite and WAL make
// concurrent connections, also from other processes, safe).
class TuningStore {
 public:
  explicit TuningStore(Database& db) : db_(db) {}

  // Records a run (started_at defaults to now) and returns its id.
  std::int64_t begin_run(RunRecord run, const GpuRecord& gpu, const SoftwareRecord& software);
  // Sets status and finished_at (now). Throws Error(invalid_value) for an unknown id.
  void finish_run(std::int64_t run_id, std::string status);
  std::optional<RunRecord> run(std::int64_t run_id);
  std::vector<RunRecord> runs();  // oldest first

  // Inserts or replaces (same problem, GPU, software, family, config, template hash) one
  // candidate, committed at once so an interrupted run keeps everything finished. run_id 0:
  // no run. Returns the row id, which stays the same when a row is replaced.
  std::int64_t record_candidate(std::int64_t run_id, const GpuRecord& gpu,
                                const SoftwareRecord& software, const CandidateRecord& candidate);
  // Many candidates in one transaction (compile-only runs record a problem at a time); their
  // row ids in order.
  std::vector<std::int64_t> record_candidates(std::int64_t run_id, const GpuRecord& gpu,
                                              const SoftwareRecord& software,
                                              const std::vector<CandidateRecord>& candidates);

  // Every candidate tried for the problem on this GPU (name, uuid, arch, SM count) and this
  // software, ordered by family, config, template hash: what resume skips.
  std::vector<CandidateRecord> candidates(const ProblemKey& problem, const GpuRecord& gpu,
                                          const SoftwareRecord& software);
  // The same, only those built from this template source hash.
  std::vector<CandidateRecord> candidates(const ProblemKey& problem, const GpuRecord& gpu,
                                          const SoftwareRecord& software,
                                          std::string_view template_hash);

  // Inserts or replaces the winner of (problem, GPU model = name, arch, SM count).
  // updated_at defaults to now; candidate_id 0 means none (a cuBLAS winner).
  void set_winner(const WinnerRecord& winner);
  // Exact problem on the GPU model; sm_count 0 matches any (then the latest updated).
  std::optional<WinnerRecord> find_winner(const ProblemKey& problem, const std::string& gpu_name,
                                          const std::string& arch, int sm_count = 0);
  // All winners, or those of one arch ("sm_90"), ordered by arch, GPU name, SM count, problem.
  std::vector<WinnerRecord> winners(const std::string& arch_filter = "", bool with_cubins = true);
  // Winners of one problem class on one GPU model: the pool for nearest-neighbour lookup.
  std::vector<WinnerRecord> winners_for(Op transa, Op transb, int align,
                                        const std::string& gpu_name, const std::string& arch,
                                        bool with_cubins = true);

  // JSON text, one record per line in a stable order so dumps diff well. Ids stay out: rows
  // refer to GPUs, software and runs by position in the dump.
  std::string export_json(const ExportOptions& options = {});
  // Merges a dump (rows with the same key are replaced) in one transaction: malformed input
  // throws Error(invalid_value) naming the record and field, and leaves the database unchanged.
  ImportSummary import_json(std::string_view text);

 private:
  Database& db_;
};

}  // namespace sgt
