#include "db/store_rows.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>

#include "common/error.hpp"

namespace sgt::store_rows {

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

ProblemKey read_problem(const Statement& s, int c) {
  const std::string transa = s.column_text(c), transb = s.column_text(c + 1);
  const auto column = [&](int i) { return s.column_int(c + i); };
  return {.transa = parse_op(transa.empty() ? '?' : transa[0]),
          .transb = parse_op(transb.empty() ? '?' : transb[0]),
          .m = column(2),
          .n = column(3),
          .k = column(4),
          .lda = column(5),
          .ldb = column(6),
          .ldc = column(7),
          .align = column(8)};
}

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
  const auto column = [&](int i) { return s.column_double(c + i); };
  return TimingRecord{.median_us = column(0),
                      .min_us = column(1),
                      .mean_us = column(2),
                      .stdev_us = column(3),
                      .samples = s.column_int(c + 4),
                      .discarded = s.column_int(c + 5),
                      .sm_clock_mhz = column(6)};
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

Writer::Writer(Database& db)
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
      run_(db,
           "INSERT INTO runs (started_at, finished_at, status, host, command, clock_policy, "
           "seed, notes, gpu_id, software_id) VALUES (:started_at, :finished_at, :status, "
           ":host, :command, :clock_policy, :seed, :notes, :gpu_id, :software_id) RETURNING id"),
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

std::int64_t Writer::gpu(const GpuRecord& g) {
  gpu_.reset();
  gpu_.bind(":name", g.name)
      .bind(":uuid", g.uuid)
      .bind(":arch", g.arch)
      .bind(":sm_count", g.sm_count)
      .bind(":l2_bytes", g.l2_bytes)
      .bind(":default_clock_mhz", g.default_clock_mhz);
  return returned_id(gpu_);
}

std::int64_t Writer::software(const SoftwareRecord& sw) {
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

std::int64_t Writer::problem(const ProblemKey& p) {
  find_problem_.reset();
  bind_problem(find_problem_, p);
  if (find_problem_.step()) return find_problem_.column_int64(0);
  insert_problem_.reset();
  bind_problem(insert_problem_, p);
  return returned_id(insert_problem_);
}

std::int64_t Writer::run(const RunRecord& r, std::int64_t gpu_id, std::int64_t software_id) {
  run_.reset();
  run_.bind(":started_at", r.started_at)
      .bind(":finished_at", r.finished_at)
      .bind(":status", r.status.empty() ? std::string("running") : r.status)
      .bind(":host", r.host)
      .bind(":command", r.command)
      .bind(":clock_policy", r.clock_policy)
      .bind(":seed", seed_to_db(r.seed))
      .bind(":notes", r.notes)
      .bind(":gpu_id", gpu_id)
      .bind(":software_id", software_id);
  return returned_id(run_);
}

std::int64_t Writer::candidate(std::optional<std::int64_t> run_id, std::int64_t problem_id,
                               std::int64_t gpu_id, std::int64_t software_id,
                               const CandidateRecord& c) {
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

void Writer::winner(const WinnerRecord& w, std::int64_t problem_id, std::int64_t gpu_id,
                    std::int64_t software_id, std::optional<std::int64_t> candidate_id,
                    bool keep_cubin) {
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

void Writer::bind_conditions(Statement& s, const std::string& stage,
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

void Writer::bind_timing(Statement& s, const std::string& stage,
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
std::int64_t Writer::returned_id(Statement& s) {
  if (!s.step()) throw Error(ErrorKind::internal, "INSERT ... RETURNING gave no row");
  const std::int64_t id = s.column_int64(0);
  s.run();
  return id;
}

}  // namespace sgt::store_rows
