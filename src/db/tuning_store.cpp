// Queries of the tuning store, and its rows to and from the records of a text dump (written and
// read in db/json_dump.cpp); how a row maps to a record is db/store_rows. Every value reaches
// SQLite as a bound parameter; every write is its own IMMEDIATE transaction (retried when another
// tuner holds it).
#include "db/tuning_store.hpp"

#include <fmt/format.h>

#include <map>

#include "common/error.hpp"
#include "db/json_dump.hpp"
#include "db/store_rows.hpp"

namespace sgt {
using namespace store_rows;
namespace {

void check_problem(const ProblemKey& p, std::string_view what) {
  const std::string reason = validate(p);
  if (!reason.empty())
    throw Error(ErrorKind::invalid_value,
                fmt::format("{} for problem {}: {}", what, p.to_string(), reason));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Runs

std::int64_t TuningStore::begin_run(RunRecord run, const GpuRecord& gpu,
                                    const SoftwareRecord& software) {
  if (run.started_at.empty()) run.started_at = now_utc();
  return db_.write_transaction([&] {
    Writer w(db_);
    return w.run(run, w.gpu(gpu), w.software(software));
  });
}

void TuningStore::finish_run(std::int64_t run_id, std::string status) {
  db_.write_transaction([&] {
    Statement s(db_, "UPDATE runs SET status = :status, finished_at = :finished_at WHERE id = :id");
    s.bind(":status", status).bind(":finished_at", now_utc()).bind(":id", run_id);
    s.run();
    if (db_.changes() == 0)
      throw Error(ErrorKind::invalid_value, fmt::format("no run with id {}", run_id));
  });
}

std::optional<RunRecord> TuningStore::run(std::int64_t run_id) {
  Statement s(db_, std::string("SELECT ") + run_columns + " FROM runs r WHERE r.id = :id");
  s.bind(":id", run_id);
  if (!s.step()) return std::nullopt;
  return read_run(s);
}

std::vector<RunRecord> TuningStore::runs() {
  Statement s(db_, std::string("SELECT ") + run_columns + " FROM runs r ORDER BY r.id");
  std::vector<RunRecord> out;
  while (s.step()) out.push_back(read_run(s));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Candidates

std::int64_t TuningStore::record_candidate(std::int64_t run_id, const GpuRecord& gpu,
                                           const SoftwareRecord& software,
                                           const CandidateRecord& candidate) {
  return record_candidates(run_id, gpu, software, {candidate}).front();
}

std::vector<std::int64_t> TuningStore::record_candidates(
    std::int64_t run_id, const GpuRecord& gpu, const SoftwareRecord& software,
    const std::vector<CandidateRecord>& candidates) {
  for (const CandidateRecord& c : candidates) check_problem(c.problem, "candidate");
  return db_.write_transaction([&] {
    Writer w(db_);
    const std::int64_t gpu_id = w.gpu(gpu);
    const std::int64_t software_id = w.software(software);
    std::vector<std::int64_t> ids;
    for (const CandidateRecord& c : candidates)
      ids.push_back(w.candidate(optional_id(run_id), w.problem(c.problem), gpu_id, software_id, c));
    return ids;
  });
}

namespace {

std::vector<CandidateRecord> select_candidates(Database& db, const ProblemKey& problem,
                                               const GpuRecord& gpu, const SoftwareRecord& software,
                                               std::optional<std::string_view> template_hash) {
  Statement s(db, "SELECT " + candidate_columns() +
                      " FROM candidates c JOIN problems p ON p.id = c.problem_id "
                      "JOIN gpus g ON g.id = c.gpu_id JOIN software s ON s.id = c.software_id "
                      "WHERE " +
                      problem_match +
                      " AND g.name = :gpu_name AND g.uuid = :gpu_uuid AND g.arch = :gpu_arch "
                      "AND g.sm_count = :gpu_sm_count AND s.driver = :driver "
                      "AND s.runtime = :runtime AND s.nvrtc = :nvrtc AND s.cublas = :cublas "
                      "AND (:template_hash IS NULL OR c.template_hash = :template_hash) "
                      "ORDER BY c.family, c.config, c.template_hash");
  bind_problem(s, problem);
  s.bind(":gpu_name", gpu.name)
      .bind(":gpu_uuid", gpu.uuid)
      .bind(":gpu_arch", gpu.arch)
      .bind(":gpu_sm_count", gpu.sm_count)
      .bind(":driver", software.driver)
      .bind(":runtime", software.runtime)
      .bind(":nvrtc", software.nvrtc)
      .bind(":cublas", software.cublas)
      .bind(":template_hash", template_hash);
  std::vector<CandidateRecord> out;
  while (s.step()) out.push_back(read_candidate(s));
  return out;
}

}  // namespace

std::vector<CandidateRecord> TuningStore::candidates(const ProblemKey& problem,
                                                     const GpuRecord& gpu,
                                                     const SoftwareRecord& software) {
  return select_candidates(db_, problem, gpu, software, std::nullopt);
}

std::vector<CandidateRecord> TuningStore::candidates(const ProblemKey& problem,
                                                     const GpuRecord& gpu,
                                                     const SoftwareRecord& software,
                                                     std::string_view template_hash) {
  return select_candidates(db_, problem, gpu, software, template_hash);
}

// ---------------------------------------------------------------------------------------------
// Winners

void TuningStore::set_winner(const WinnerRecord& winner) {
  check_problem(winner.problem, "winner");
  if (winner.family.empty())
    throw Error(ErrorKind::invalid_value,
                fmt::format("winner for {} has no family", winner.problem.to_string()));
  db_.write_transaction([&] {
    Writer w(db_);
    const std::int64_t gpu_id = w.gpu(winner.gpu);
    const std::int64_t software_id = w.software(winner.software);
    const std::int64_t problem_id = w.problem(winner.problem);
    w.winner(winner, problem_id, gpu_id, software_id, optional_id(winner.candidate_id), false);
  });
}

std::optional<WinnerRecord> TuningStore::find_winner(const ProblemKey& problem,
                                                     const std::string& gpu_name,
                                                     const std::string& arch, int sm_count) {
  Statement s(db_, "SELECT " + winner_columns() + winner_joins + "WHERE " + problem_match +
                       " AND w.gpu_name = :gpu_name AND w.gpu_arch = :arch "
                       "AND (:sm_count = 0 OR w.gpu_sm_count = :sm_count) "
                       "ORDER BY w.updated_at DESC, w.id DESC LIMIT 1");
  bind_problem(s, problem);
  s.bind(":gpu_name", gpu_name).bind(":arch", arch).bind(":sm_count", sm_count);
  s.bind(":with_cubins", 1);
  if (!s.step()) return std::nullopt;
  return read_winner(s);
}

std::vector<WinnerRecord> TuningStore::winners(const std::string& arch_filter, bool with_cubins) {
  Statement s(db_, "SELECT " + winner_columns() + winner_joins +
                       "WHERE (:arch = '' OR w.gpu_arch = :arch)" + winner_order);
  s.bind(":arch", arch_filter).bind(":with_cubins", with_cubins ? 1 : 0);
  return read_winners(s);
}

std::vector<WinnerRecord> TuningStore::winners_for(Op transa, Op transb, int align,
                                                   const std::string& gpu_name,
                                                   const std::string& arch, bool with_cubins) {
  Statement s(db_, "SELECT " + winner_columns() + winner_joins +
                       "WHERE p.transa = :transa AND p.transb = :transb AND p.align = :align "
                       "AND w.gpu_name = :gpu_name AND w.gpu_arch = :arch" +
                       winner_order);
  s.bind(":transa", std::string(1, op_char(transa)))
      .bind(":transb", std::string(1, op_char(transb)))
      .bind(":align", align)
      .bind(":gpu_name", gpu_name)
      .bind(":arch", arch)
      .bind(":with_cubins", with_cubins ? 1 : 0);
  return read_winners(s);
}

// ---------------------------------------------------------------------------------------------
// Export and import

std::string TuningStore::export_json(const ExportOptions& options) {
  // One read transaction: a consistent snapshot even while a tuner is writing.
  Transaction snapshot(db_, Transaction::Kind::deferred);

  // Rows refer to each other by id; the dump by position.
  std::map<std::int64_t, std::size_t> gpu_index, software_index, run_index;
  Dump dump;

  // A winners-only dump holds just the GPUs and software its winners were tuned with (units a
  // later retune no longer refers to would otherwise pile up in a shipped file).
  const std::string gpu_filter =
      options.include_candidates ? "" : " WHERE id IN (SELECT gpu_id FROM winners)";
  const std::string software_filter =
      options.include_candidates ? "" : " WHERE id IN (SELECT software_id FROM winners)";
  Statement g(db_, "SELECT id, name, uuid, arch, sm_count, l2_bytes, default_clock_mhz FROM gpus" +
                       gpu_filter + " ORDER BY name, arch, sm_count, uuid");
  while (g.step()) {
    gpu_index[g.column_int64(0)] = dump.gpus.size();
    dump.gpus.push_back({g.column_text(1), g.column_text(2), g.column_text(3), g.column_int(4),
                         g.column_int64(5), g.column_int(6)});
  }
  Statement sw(db_, "SELECT id, driver, runtime, nvrtc, cublas FROM software" + software_filter +
                        " ORDER BY driver, runtime, nvrtc, cublas");
  while (sw.step()) {
    software_index[sw.column_int64(0)] = dump.software.size();
    dump.software.push_back(
        {sw.column_text(1), sw.column_text(2), sw.column_text(3), sw.column_text(4)});
  }

  if (options.include_candidates) {
    Statement r(db_, std::string("SELECT ") + run_columns +
                         " FROM runs r ORDER BY r.started_at, r.host, r.command, r.id");
    while (r.step()) {
      const RunRecord run = read_run(r);
      run_index[run.id] = dump.runs.size();
      dump.runs.push_back(
          {run, gpu_index.at(r.column_int64(9)), software_index.at(r.column_int64(10))});
    }

    Statement c(db_, "SELECT " + candidate_columns() +
                         ", c.gpu_id, c.software_id FROM candidates c "
                         "JOIN problems p ON p.id = c.problem_id JOIN gpus g ON g.id = c.gpu_id "
                         "JOIN software s ON s.id = c.software_id ORDER BY " +
                         problem_order +
                         ", g.name, g.arch, g.sm_count, g.uuid, s.driver, s.runtime, s.nvrtc, "
                         "s.cublas, c.family, c.config, c.template_hash");
    while (c.step()) {
      DumpCandidate d;
      d.candidate = read_candidate(c);
      d.gpu = gpu_index.at(c.column_int64(candidate_column_count));
      d.software = software_index.at(c.column_int64(candidate_column_count + 1));
      if (d.candidate.run_id != 0) d.run = run_index.at(d.candidate.run_id);
      dump.candidates.push_back(std::move(d));
    }
  }

  // Cubins are read only when asked for: the dump writes every cubin it is given.
  Statement w(db_, "SELECT " + winner_columns() + ", w.gpu_id, w.software_id" + winner_joins +
                       winner_order);
  w.bind(":with_cubins", options.include_cubins ? 1 : 0);
  while (w.step())
    dump.winners.push_back({read_winner(w), gpu_index.at(w.column_int64(winner_column_count)),
                            software_index.at(w.column_int64(winner_column_count + 1))});

  return write_dump_json(dump, Database::schema_version(), options.include_candidates);
}

ImportSummary TuningStore::import_json(std::string_view text) {
  // Checked whole before the write transaction begins: malformed input writes nothing.
  const Dump dump = read_dump_json(text);

  return db_.write_transaction([&] {
    Writer w(db_);
    std::vector<std::int64_t> gpu_ids, software_ids, run_ids;
    for (const GpuRecord& g : dump.gpus) gpu_ids.push_back(w.gpu(g));
    for (const SoftwareRecord& s : dump.software) software_ids.push_back(w.software(s));

    // Runs have no natural key in the schema; the same provenance means the same run.
    Statement find_run(db_,
                       "SELECT id FROM runs WHERE started_at = :started_at AND host = :host "
                       "AND command = :command AND clock_policy = :clock_policy AND seed = :seed "
                       "AND gpu_id = :gpu_id AND software_id = :software_id ORDER BY id LIMIT 1");
    Statement update_run(db_,
                         "UPDATE runs SET finished_at = :finished_at, status = :status, "
                         "notes = :notes WHERE id = :id");
    for (const DumpRun& d : dump.runs) {
      const RunRecord& r = d.run;
      const std::int64_t gpu_id = gpu_ids[d.gpu];
      const std::int64_t software_id = software_ids[d.software];
      find_run.reset();
      find_run.bind(":started_at", r.started_at)
          .bind(":host", r.host)
          .bind(":command", r.command)
          .bind(":clock_policy", r.clock_policy)
          .bind(":seed", seed_to_db(r.seed))
          .bind(":gpu_id", gpu_id)
          .bind(":software_id", software_id);
      if (find_run.step()) {
        const std::int64_t id = find_run.column_int64(0);
        update_run.reset();
        update_run.bind(":finished_at", r.finished_at)
            .bind(":status", r.status)
            .bind(":notes", r.notes)
            .bind(":id", id);
        update_run.run();
        run_ids.push_back(id);
      } else {
        run_ids.push_back(w.run(r, gpu_id, software_id));
      }
    }

    for (const DumpCandidate& d : dump.candidates) {
      std::optional<std::int64_t> run_id;
      if (d.run) run_id = run_ids[*d.run];
      w.candidate(run_id, w.problem(d.candidate.problem), gpu_ids[d.gpu], software_ids[d.software],
                  d.candidate);
    }

    Statement find_candidate(db_,
                             "SELECT id FROM candidates WHERE problem_id = :problem_id AND "
                             "gpu_id = :gpu_id AND software_id = :software_id AND "
                             "family = :family AND config = :config AND "
                             "template_hash = :template_hash");
    for (const DumpWinner& d : dump.winners) {
      const WinnerRecord& r = d.winner;
      const std::int64_t problem_id = w.problem(r.problem);
      // Ids differ between databases: the winner's candidate is found again by its key.
      find_candidate.reset();
      find_candidate.bind(":problem_id", problem_id)
          .bind(":gpu_id", gpu_ids[d.gpu])
          .bind(":software_id", software_ids[d.software])
          .bind(":family", r.family)
          .bind(":config", r.config)
          .bind(":template_hash", r.template_hash);
      std::optional<std::int64_t> candidate_id;
      if (find_candidate.step()) candidate_id = find_candidate.column_int64(0);
      w.winner(r, problem_id, gpu_ids[d.gpu], software_ids[d.software], candidate_id, true);
    }

    ImportSummary summary;
    summary.gpus = static_cast<int>(dump.gpus.size());
    summary.software = static_cast<int>(dump.software.size());
    summary.runs = static_cast<int>(dump.runs.size());
    summary.candidates = static_cast<int>(dump.candidates.size());
    summary.winners = static_cast<int>(dump.winners.size());
    return summary;
  });
}

}  // namespace sgt
