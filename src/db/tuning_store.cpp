// Queries of the tuning store, and its rows to and from the records of a text dump (written and
// read in db/json_dump.cpp). Every value reaches SQLite as a bound parameter; every write is its
// own IMMEDIATE transaction (retried when another tuner holds it).
#include "db/tuning_store.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <map>

#include "common/error.hpp"
#include "db/json_dump.hpp"

namespace sgt {
namespace {

std::string now_utc() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  const std::time_t seconds = system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

void check_problem(const ProblemKey& p, std::string_view what) {
  const std::string reason = validate(p);
  if (!reason.empty())
    throw Error(ErrorKind::invalid_value,
                fmt::format("{} for problem {}: {}", what, p.to_string(), reason));
}

// The seed is a uint64; SQLite stores int64. Same bits both ways.
std::int64_t seed_to_db(std::uint64_t seed) { return static_cast<std::int64_t>(seed); }
std::uint64_t seed_from_db(std::int64_t value) { return static_cast<std::uint64_t>(value); }

std::optional<std::int64_t> optional_id(std::int64_t id) {
  return id == 0 ? std::nullopt : std::optional<std::int64_t>(id);
}

// ---------------------------------------------------------------------------------------------
// Reading rows. The column lists and the readers below go together: keep their order in step.

constexpr const char* problem_columns =
    "p.transa, p.transb, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.align";
constexpr int problem_column_count = 9;
constexpr const char* problem_order =
    "p.transa, p.transb, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.align";

ProblemKey read_problem(const Statement& s, int c) {
  ProblemKey p;
  const std::string transa = s.column_text(c), transb = s.column_text(c + 1);
  p.transa = parse_op(transa.empty() ? '?' : transa[0]);
  p.transb = parse_op(transb.empty() ? '?' : transb[0]);
  p.m = s.column_int(c + 2);
  p.n = s.column_int(c + 3);
  p.k = s.column_int(c + 4);
  p.lda = s.column_int(c + 5);
  p.ldb = s.column_int(c + 6);
  p.ldc = s.column_int(c + 7);
  p.align = s.column_int(c + 8);
  return p;
}

// Matches p.* against :transa ... :align.
constexpr const char* problem_match =
    "p.transa = :transa AND p.transb = :transb AND p.m = :m AND p.n = :n AND p.k = :k AND "
    "p.lda = :lda AND p.ldb = :ldb AND p.ldc = :ldc AND p.align = :align";

void bind_problem(Statement& s, const ProblemKey& p) {
  s.bind(":transa", std::string(1, op_char(p.transa)))
      .bind(":transb", std::string(1, op_char(p.transb)))
      .bind(":m", p.m)
      .bind(":n", p.n)
      .bind(":k", p.k)
      .bind(":lda", p.lda)
      .bind(":ldb", p.ldb)
      .bind(":ldc", p.ldc)
      .bind(":align", p.align);
}

// The conditions columns (version 3) of each stage: <stage>_<field>, in this order.
constexpr const char* condition_stages[] = {"screen", "final", "cublas"};
constexpr const char* condition_fields[] = {"sm_clock_min_mhz",
                                            "sm_clock_max_mhz",
                                            "nvml_sm_clock_mhz",
                                            "power_mw",
                                            "temperature_c",
                                            "clock_reasons",
                                            "cache"};
constexpr int condition_field_count = 7;

// Every conditions column through `pattern` ({0}: the column name), comma-separated.
std::string condition_columns(const char* pattern) {
  std::string out;
  for (const char* stage : condition_stages)
    for (const char* field : condition_fields)
      out += (out.empty() ? "" : ", ") +
             fmt::format(fmt::runtime(pattern), fmt::format("{}_{}", stage, field));
  return out;
}

const std::string& candidate_columns() {
  static const std::string columns =
      std::string("c.id, c.run_id, ") + problem_columns +
      ", c.family, c.config, c.template_hash, c.compile_options, c.outcome, c.message, "
      "c.registers, c.spill_bytes, c.smem_bytes, "
      "c.screen_median_us, c.screen_min_us, c.screen_mean_us, c.screen_stdev_us, "
      "c.screen_samples, c.screen_discarded, c.screen_sm_clock_mhz, "
      "c.final_median_us, c.final_min_us, c.final_mean_us, c.final_stdev_us, "
      "c.final_samples, c.final_discarded, c.final_sm_clock_mhz, c.cublas_us, c.error, " +
      condition_columns("c.{0}");
  return columns;
}
constexpr int candidate_column_count = 2 + problem_column_count + 25 + 3 * condition_field_count;

// One stage's conditions columns from column c; nullopt when every one is NULL.
std::optional<MeasureConditions> read_conditions(const Statement& s, int c) {
  bool any = false;
  for (int i = 0; i < condition_field_count; ++i) any = any || !s.column_is_null(c + i);
  if (!any) return std::nullopt;
  MeasureConditions m;
  m.sm_clock_min_mhz = s.column_optional_double(c);
  m.sm_clock_max_mhz = s.column_optional_double(c + 1);
  m.nvml_sm_clock_mhz = s.column_optional_double(c + 2);
  m.power_mw = s.column_optional_double(c + 3);
  m.temperature_c = s.column_optional_double(c + 4);
  if (const auto bits = s.column_optional_int64(c + 5))
    m.clock_reasons = static_cast<std::uint64_t>(*bits);
  m.cache = s.column_text(c + 6);
  return m;
}

// A timing group is stored whole or not at all; a NULL median means "not measured".
std::optional<TimingRecord> read_timing(const Statement& s, int c) {
  if (s.column_is_null(c)) return std::nullopt;
  TimingRecord t;
  t.median_us = s.column_double(c);
  t.min_us = s.column_double(c + 1);
  t.mean_us = s.column_double(c + 2);
  t.stdev_us = s.column_double(c + 3);
  t.samples = s.column_int(c + 4);
  t.discarded = s.column_int(c + 5);
  t.sm_clock_mhz = s.column_double(c + 6);
  return t;
}

CandidateRecord read_candidate(const Statement& s) {
  CandidateRecord r;
  r.id = s.column_int64(0);
  r.run_id = s.column_optional_int64(1).value_or(0);
  r.problem = read_problem(s, 2);
  int c = 2 + problem_column_count;
  r.family = s.column_text(c++);
  r.config = s.column_text(c++);
  r.template_hash = s.column_text(c++);
  r.compile_options = s.column_text(c++);
  r.outcome = parse_outcome(s.column_text(c++));
  r.message = s.column_text(c++);
  r.registers = s.column_int(c++);
  r.spill_bytes = s.column_int(c++);
  r.smem_bytes = s.column_int(c++);
  r.screen = read_timing(s, c);
  c += 7;
  r.final = read_timing(s, c);
  c += 7;
  r.cublas_us = s.column_optional_double(c++);
  r.error = s.column_optional_double(c++);
  if (r.screen) r.screen->conditions = read_conditions(s, c).value_or(MeasureConditions{});
  c += condition_field_count;
  if (r.final) r.final->conditions = read_conditions(s, c).value_or(MeasureConditions{});
  c += condition_field_count;
  r.cublas_conditions = read_conditions(s, c);
  return r;
}

// The cubin is read only on request: `CASE WHEN :with_cubins THEN w.cubin END`.
const std::string& winner_columns() {
  static const std::string columns =
      std::string(problem_columns) +
      ", g.name, g.uuid, g.arch, g.sm_count, g.l2_bytes, g.default_clock_mhz, "
      "s.driver, s.runtime, s.nvrtc, s.cublas, "
      "w.family, w.config, w.template_hash, w.compile_options, w.time_us, w.cublas_us, "
      "w.tie_band, w.candidate_id, CASE WHEN :with_cubins THEN w.cubin END, w.cubin_arch, "
      "w.updated_at";
  return columns;
}
constexpr int winner_column_count = problem_column_count + 21;

constexpr const char* winner_joins =
    " FROM winners w JOIN problems p ON p.id = w.problem_id JOIN gpus g ON g.id = w.gpu_id "
    "JOIN software s ON s.id = w.software_id ";
constexpr const char* winner_order =
    " ORDER BY w.gpu_arch, w.gpu_name, w.gpu_sm_count, p.transa, p.transb, p.m, p.n, p.k, "
    "p.lda, p.ldb, p.ldc, p.align";

WinnerRecord read_winner(const Statement& s) {
  WinnerRecord w;
  w.problem = read_problem(s, 0);
  int c = problem_column_count;
  w.gpu.name = s.column_text(c++);
  w.gpu.uuid = s.column_text(c++);
  w.gpu.arch = s.column_text(c++);
  w.gpu.sm_count = s.column_int(c++);
  w.gpu.l2_bytes = s.column_int64(c++);
  w.gpu.default_clock_mhz = s.column_int(c++);
  w.software.driver = s.column_text(c++);
  w.software.runtime = s.column_text(c++);
  w.software.nvrtc = s.column_text(c++);
  w.software.cublas = s.column_text(c++);
  w.family = s.column_text(c++);
  w.config = s.column_text(c++);
  w.template_hash = s.column_text(c++);
  w.compile_options = s.column_text(c++);
  w.time_us = s.column_double(c++);
  w.cublas_us = s.column_double(c++);
  w.tie_band = s.column_double(c++);
  w.candidate_id = s.column_optional_int64(c++).value_or(0);
  w.cubin = s.column_blob(c++);
  w.cubin_arch = s.column_text(c++);
  w.updated_at = s.column_text(c++);
  return w;
}

std::vector<WinnerRecord> read_winners(Statement& s) {
  std::vector<WinnerRecord> out;
  while (s.step()) out.push_back(read_winner(s));
  return out;
}

constexpr const char* run_columns =
    "r.id, r.started_at, r.host, r.command, r.clock_policy, r.seed, r.notes, r.status, "
    "r.finished_at, r.gpu_id, r.software_id";

RunRecord read_run(const Statement& s) {
  RunRecord r;
  r.id = s.column_int64(0);
  r.started_at = s.column_text(1);
  r.host = s.column_text(2);
  r.command = s.column_text(3);
  r.clock_policy = s.column_text(4);
  r.seed = seed_from_db(s.column_int64(5));
  r.notes = s.column_text(6);
  r.status = s.column_text(7);
  r.finished_at = s.column_text(8);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Writing rows: statements prepared once per transaction, reused for every record in it.

class Writer {
 public:
  explicit Writer(Database& db)
      : gpu_(db,
             "INSERT INTO gpus (name, uuid, arch, sm_count, l2_bytes, default_clock_mhz) "
             "VALUES (:name, :uuid, :arch, :sm_count, :l2_bytes, :default_clock_mhz) "
             "ON CONFLICT (name, uuid, arch, sm_count) DO UPDATE SET "
             "l2_bytes = excluded.l2_bytes, default_clock_mhz = excluded.default_clock_mhz "
             "RETURNING id"),
        find_software_(db,
                       "SELECT id FROM software WHERE driver = :driver AND runtime = :runtime "
                       "AND nvrtc = :nvrtc AND cublas = :cublas"),
        insert_software_(db,
                         "INSERT INTO software (driver, runtime, nvrtc, cublas) "
                         "VALUES (:driver, :runtime, :nvrtc, :cublas) RETURNING id"),
        find_problem_(db, std::string("SELECT p.id FROM problems p WHERE ") + problem_match),
        insert_problem_(db,
                        "INSERT INTO problems (transa, transb, m, n, k, lda, ldb, ldc, align) "
                        "VALUES (:transa, :transb, :m, :n, :k, :lda, :ldb, :ldc, :align) "
                        "RETURNING id"),
        candidate_(db, R"sql(
INSERT INTO candidates (run_id, problem_id, gpu_id, software_id, family, config, template_hash,
  compile_options, outcome, message, registers, spill_bytes, smem_bytes,
  screen_median_us, screen_min_us, screen_mean_us, screen_stdev_us, screen_samples,
  screen_discarded, screen_sm_clock_mhz,
  final_median_us, final_min_us, final_mean_us, final_stdev_us, final_samples,
  final_discarded, final_sm_clock_mhz, cublas_us, error, )sql" +
                           condition_columns("{0}") + R"sql()
VALUES (:run_id, :problem_id, :gpu_id, :software_id, :family, :config, :template_hash,
  :compile_options, :outcome, :message, :registers, :spill_bytes, :smem_bytes,
  :screen_median_us, :screen_min_us, :screen_mean_us, :screen_stdev_us, :screen_samples,
  :screen_discarded, :screen_sm_clock_mhz,
  :final_median_us, :final_min_us, :final_mean_us, :final_stdev_us, :final_samples,
  :final_discarded, :final_sm_clock_mhz, :cublas_us, :error, )sql" +
                           condition_columns(":{0}") + R"sql()
ON CONFLICT (problem_id, gpu_id, software_id, family, config, template_hash) DO UPDATE SET
  run_id = excluded.run_id, compile_options = excluded.compile_options,
  outcome = excluded.outcome, message = excluded.message, registers = excluded.registers,
  spill_bytes = excluded.spill_bytes, smem_bytes = excluded.smem_bytes,
  screen_median_us = excluded.screen_median_us, screen_min_us = excluded.screen_min_us,
  screen_mean_us = excluded.screen_mean_us, screen_stdev_us = excluded.screen_stdev_us,
  screen_samples = excluded.screen_samples, screen_discarded = excluded.screen_discarded,
  screen_sm_clock_mhz = excluded.screen_sm_clock_mhz,
  final_median_us = excluded.final_median_us, final_min_us = excluded.final_min_us,
  final_mean_us = excluded.final_mean_us, final_stdev_us = excluded.final_stdev_us,
  final_samples = excluded.final_samples, final_discarded = excluded.final_discarded,
  final_sm_clock_mhz = excluded.final_sm_clock_mhz, cublas_us = excluded.cublas_us,
  error = excluded.error, )sql" +
                           condition_columns("{0} = excluded.{0}") + " RETURNING id"),
        // keep_cubin (import of a dump without cubins): a winner that is still the same kernel
        // keeps the cubin it has rather than losing it to NULL.
        winner_(db, R"sql(
INSERT INTO winners (problem_id, gpu_name, gpu_arch, gpu_sm_count, gpu_id, software_id, family,
  config, template_hash, compile_options, time_us, cublas_us, tie_band, candidate_id,
  updated_at, cubin, cubin_arch)
VALUES (:problem_id, :gpu_name, :gpu_arch, :gpu_sm_count, :gpu_id, :software_id, :family,
  :config, :template_hash, :compile_options, :time_us, :cublas_us, :tie_band, :candidate_id,
  :updated_at, :cubin, :cubin_arch)
ON CONFLICT (problem_id, gpu_name, gpu_arch, gpu_sm_count) DO UPDATE SET
  gpu_id = excluded.gpu_id, software_id = excluded.software_id,
  cubin = CASE WHEN :keep_cubin AND excluded.cubin IS NULL AND family = excluded.family
      AND config = excluded.config AND template_hash = excluded.template_hash
      AND compile_options = excluded.compile_options THEN cubin ELSE excluded.cubin END,
  cubin_arch = CASE WHEN :keep_cubin AND excluded.cubin IS NULL AND family = excluded.family
      AND config = excluded.config AND template_hash = excluded.template_hash
      AND compile_options = excluded.compile_options THEN cubin_arch
      ELSE excluded.cubin_arch END,
  family = excluded.family, config = excluded.config, template_hash = excluded.template_hash,
  compile_options = excluded.compile_options, time_us = excluded.time_us,
  cublas_us = excluded.cublas_us, tie_band = excluded.tie_band,
  candidate_id = excluded.candidate_id, updated_at = excluded.updated_at)sql") {}

  std::int64_t gpu(const GpuRecord& g) {
    gpu_.reset();
    gpu_.bind(":name", g.name)
        .bind(":uuid", g.uuid)
        .bind(":arch", g.arch)
        .bind(":sm_count", g.sm_count)
        .bind(":l2_bytes", g.l2_bytes)
        .bind(":default_clock_mhz", g.default_clock_mhz);
    return returned_id(gpu_);
  }

  std::int64_t software(const SoftwareRecord& sw) {
    for (Statement* s : {&find_software_, &insert_software_}) {
      s->reset();
      s->bind(":driver", sw.driver)
          .bind(":runtime", sw.runtime)
          .bind(":nvrtc", sw.nvrtc)
          .bind(":cublas", sw.cublas);
    }
    if (find_software_.step()) return find_software_.column_int64(0);
    return returned_id(insert_software_);
  }

  std::int64_t problem(const ProblemKey& p) {
    find_problem_.reset();
    bind_problem(find_problem_, p);
    if (find_problem_.step()) return find_problem_.column_int64(0);
    insert_problem_.reset();
    bind_problem(insert_problem_, p);
    return returned_id(insert_problem_);
  }

  std::int64_t candidate(std::optional<std::int64_t> run_id, std::int64_t problem_id,
                         std::int64_t gpu_id, std::int64_t software_id, const CandidateRecord& c) {
    Statement& s = candidate_;
    s.reset();
    s.bind(":run_id", run_id)
        .bind(":problem_id", problem_id)
        .bind(":gpu_id", gpu_id)
        .bind(":software_id", software_id)
        .bind(":family", c.family)
        .bind(":config", c.config)
        .bind(":template_hash", c.template_hash)
        .bind(":compile_options", c.compile_options)
        .bind(":outcome", outcome_name(c.outcome))
        .bind(":message", c.message)
        .bind(":registers", c.registers)
        .bind(":spill_bytes", c.spill_bytes)
        .bind(":smem_bytes", c.smem_bytes)
        .bind(":cublas_us", c.cublas_us)
        .bind(":error", c.error);
    bind_timing(s, "screen", c.screen);
    bind_timing(s, "final", c.final);
    bind_conditions(s, "cublas", c.cublas_conditions);
    return returned_id(s);
  }

  void winner(const WinnerRecord& w, std::int64_t problem_id, std::int64_t gpu_id,
              std::int64_t software_id, std::optional<std::int64_t> candidate_id, bool keep_cubin) {
    Statement& s = winner_;
    s.reset();
    s.bind(":problem_id", problem_id)
        .bind(":gpu_name", w.gpu.name)
        .bind(":gpu_arch", w.gpu.arch)
        .bind(":gpu_sm_count", w.gpu.sm_count)
        .bind(":gpu_id", gpu_id)
        .bind(":software_id", software_id)
        .bind(":family", w.family)
        .bind(":config", w.config)
        .bind(":template_hash", w.template_hash)
        .bind(":compile_options", w.compile_options)
        .bind(":time_us", w.time_us)
        .bind(":cublas_us", w.cublas_us)
        .bind(":tie_band", w.tie_band)
        .bind(":candidate_id", candidate_id)
        .bind(":updated_at", w.updated_at.empty() ? now_utc() : w.updated_at)
        .bind(":cubin", w.cubin)
        .bind(":cubin_arch", w.cubin_arch)
        .bind(":keep_cubin", keep_cubin ? 1 : 0);
    s.run();
  }

 private:
  static void bind_conditions(Statement& s, const std::string& stage,
                              const std::optional<MeasureConditions>& m) {
    auto name = [&](const char* field) { return ":" + stage + "_" + field; };
    if (!m) {
      for (const char* field : condition_fields) s.bind(name(field).c_str(), std::nullopt);
      return;
    }
    std::optional<std::int64_t> reasons;
    if (m->clock_reasons) reasons = static_cast<std::int64_t>(*m->clock_reasons);
    s.bind(name("sm_clock_min_mhz").c_str(), m->sm_clock_min_mhz)
        .bind(name("sm_clock_max_mhz").c_str(), m->sm_clock_max_mhz)
        .bind(name("nvml_sm_clock_mhz").c_str(), m->nvml_sm_clock_mhz)
        .bind(name("power_mw").c_str(), m->power_mw)
        .bind(name("temperature_c").c_str(), m->temperature_c)
        .bind(name("clock_reasons").c_str(), reasons);
    if (m->cache.empty())
      s.bind(name("cache").c_str(), std::nullopt);
    else
      s.bind(name("cache").c_str(), m->cache);
  }

  static void bind_timing(Statement& s, const std::string& stage,
                          const std::optional<TimingRecord>& t) {
    auto name = [&](const char* field) { return ":" + stage + "_" + field; };
    bind_conditions(s, stage, t ? std::optional<MeasureConditions>(t->conditions) : std::nullopt);
    if (!t) {
      for (const char* field :
           {"median_us", "min_us", "mean_us", "stdev_us", "samples", "discarded", "sm_clock_mhz"})
        s.bind(name(field).c_str(), std::nullopt);
      return;
    }
    s.bind(name("median_us").c_str(), t->median_us)
        .bind(name("min_us").c_str(), t->min_us)
        .bind(name("mean_us").c_str(), t->mean_us)
        .bind(name("stdev_us").c_str(), t->stdev_us)
        .bind(name("samples").c_str(), t->samples)
        .bind(name("discarded").c_str(), t->discarded)
        .bind(name("sm_clock_mhz").c_str(), t->sm_clock_mhz);
  }

  // Steps an INSERT ... RETURNING id to its end and gives the id.
  static std::int64_t returned_id(Statement& s) {
    if (!s.step()) throw Error(ErrorKind::internal, "INSERT ... RETURNING gave no row");
    const std::int64_t id = s.column_int64(0);
    s.run();
    return id;
  }

  Statement gpu_, find_software_, insert_software_, find_problem_, insert_problem_, candidate_,
      winner_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Runs

std::int64_t TuningStore::begin_run(RunRecord run, const GpuRecord& gpu,
                                    const SoftwareRecord& software) {
  if (run.started_at.empty()) run.started_at = now_utc();
  return db_.write_transaction([&] {
    Writer w(db_);
    const std::int64_t gpu_id = w.gpu(gpu);
    const std::int64_t software_id = w.software(software);
    Statement s(db_,
                "INSERT INTO runs (started_at, finished_at, status, host, command, clock_policy, "
                "seed, notes, gpu_id, software_id) VALUES (:started_at, :finished_at, :status, "
                ":host, :command, :clock_policy, :seed, :notes, :gpu_id, :software_id) "
                "RETURNING id");
    s.bind(":started_at", run.started_at)
        .bind(":finished_at", run.finished_at)
        .bind(":status", run.status.empty() ? std::string("running") : run.status)
        .bind(":host", run.host)
        .bind(":command", run.command)
        .bind(":clock_policy", run.clock_policy)
        .bind(":seed", seed_to_db(run.seed))
        .bind(":notes", run.notes)
        .bind(":gpu_id", gpu_id)
        .bind(":software_id", software_id);
    s.step();
    const std::int64_t id = s.column_int64(0);
    s.run();
    return id;
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
    Statement insert_run(db_,
                         "INSERT INTO runs (started_at, finished_at, status, host, command, "
                         "clock_policy, seed, notes, gpu_id, software_id) VALUES (:started_at, "
                         ":finished_at, :status, :host, :command, :clock_policy, :seed, :notes, "
                         ":gpu_id, :software_id) RETURNING id");
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
        insert_run.reset();
        insert_run.bind(":started_at", r.started_at)
            .bind(":finished_at", r.finished_at)
            .bind(":status", r.status)
            .bind(":host", r.host)
            .bind(":command", r.command)
            .bind(":clock_policy", r.clock_policy)
            .bind(":seed", seed_to_db(r.seed))
            .bind(":notes", r.notes)
            .bind(":gpu_id", gpu_id)
            .bind(":software_id", software_id);
        insert_run.step();
        run_ids.push_back(insert_run.column_int64(0));
        insert_run.run();
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
