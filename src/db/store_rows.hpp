// The tuning store's rows in SQL: the column lists of its SELECTs with the readers that turn a
// row into a record (keep each list and its reader in step), and the Writer that binds records to
// its prepared INSERTs. Used by db/tuning_store.cpp only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "db/database.hpp"
#include "db/records.hpp"

namespace sgt::store_rows {

// The seed is a uint64; SQLite stores int64. Same bits both ways.
inline std::int64_t seed_to_db(std::uint64_t seed) { return static_cast<std::int64_t>(seed); }
inline std::uint64_t seed_from_db(std::int64_t value) { return static_cast<std::uint64_t>(value); }

inline std::optional<std::int64_t> optional_id(std::int64_t id) {
  return id == 0 ? std::nullopt : std::optional<std::int64_t>(id);
}

// UTC now as ISO 8601 with milliseconds: the store's timestamps.
std::string now_utc();

inline constexpr const char* problem_columns =
    "p.transa, p.transb, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.align";
inline constexpr int problem_column_count = 9;
inline constexpr const char* problem_order =
    "p.transa, p.transb, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.align";
// Matches p.* against :transa ... :align.
inline constexpr const char* problem_match =
    "p.transa = :transa AND p.transb = :transb AND p.m = :m AND p.n = :n AND p.k = :k AND "
    "p.lda = :lda AND p.ldb = :ldb AND p.ldc = :ldc AND p.align = :align";
// The conditions columns (version 3) of each stage: <stage>_<field>, in this order.
inline constexpr const char* condition_stages[] = {"screen", "final", "cublas"};
inline constexpr const char* condition_fields[] = {"sm_clock_min_mhz",
                                                   "sm_clock_max_mhz",
                                                   "nvml_sm_clock_mhz",
                                                   "power_mw",
                                                   "temperature_c",
                                                   "clock_reasons",
                                                   "cache"};
inline constexpr int condition_field_count = 7;
inline constexpr int candidate_column_count =
    2 + problem_column_count + 25 + 3 * condition_field_count;
inline constexpr int winner_column_count = problem_column_count + 21;
inline constexpr const char* winner_joins =
    " FROM winners w JOIN problems p ON p.id = w.problem_id JOIN gpus g ON g.id = w.gpu_id "
    "JOIN software s ON s.id = w.software_id ";
inline constexpr const char* winner_order =
    " ORDER BY w.gpu_arch, w.gpu_name, w.gpu_sm_count, p.transa, p.transb, p.m, p.n, p.k, "
    "p.lda, p.ldb, p.ldc, p.align";
inline constexpr const char* run_columns =
    "r.id, r.started_at, r.host, r.command, r.clock_policy, r.seed, r.notes, r.status, "
    "r.finished_at, r.gpu_id, r.software_id";

ProblemKey read_problem(const Statement& s, int c);
void bind_problem(Statement& s, const ProblemKey& p);
// Every conditions column through `pattern` ({0}: the column name), comma-separated.
std::string condition_columns(const char* pattern);
const std::string& candidate_columns();
// One stage's conditions columns from column c; nullopt when every one is NULL.
std::optional<MeasureConditions> read_conditions(const Statement& s, int c);
// A timing group is stored whole or not at all; a NULL median means "not measured".
std::optional<TimingRecord> read_timing(const Statement& s, int c);
CandidateRecord read_candidate(const Statement& s);
// The cubin is read only on request: `CASE WHEN :with_cubins THEN w.cubin END`.
const std::string& winner_columns();
WinnerRecord read_winner(const Statement& s);
std::vector<WinnerRecord> read_winners(Statement& s);
RunRecord read_run(const Statement& s);

// Writing rows: statements prepared once per transaction, reused for every record in it.
class Writer {
 public:
  explicit Writer(Database& db);

  std::int64_t gpu(const GpuRecord& g);
  std::int64_t software(const SoftwareRecord& sw);
  std::int64_t problem(const ProblemKey& p);
  // A new run row (an empty status is "running").
  std::int64_t run(const RunRecord& r, std::int64_t gpu_id, std::int64_t software_id);
  std::int64_t candidate(std::optional<std::int64_t> run_id, std::int64_t problem_id,
                         std::int64_t gpu_id, std::int64_t software_id, const CandidateRecord& c);
  void winner(const WinnerRecord& w, std::int64_t problem_id, std::int64_t gpu_id,
              std::int64_t software_id, std::optional<std::int64_t> candidate_id, bool keep_cubin);

 private:
  static void bind_conditions(Statement& s, const std::string& stage,
                              const std::optional<MeasureConditions>& m);
  static void bind_timing(Statement& s, const std::string& stage,
                          const std::optional<TimingRecord>& t);
  // Steps an INSERT ... RETURNING id to its end and gives the id.
  static std::int64_t returned_id(Statement& s);

  Statement gpu_, find_software_, insert_software_, find_problem_, insert_problem_, run_,
      candidate_, winner_;
};

}  // namespace sgt::store_rows
