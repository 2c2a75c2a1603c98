// Writing and reading the JSON text dump: the document's layout, each record's fields, and the
// checks that name the record and field of malformed input.
#include "db/json_dump.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "db/base64.hpp"
#include "space/problem_json.hpp"

namespace sgt {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

constexpr const char* dump_format = "sgemm-tune-db";
constexpr int dump_version = 1;

// ---------------------------------------------------------------------------------------------
// Writing

// JSON has no infinities or NaN; they travel as strings.
ordered_json json_number(double v) {
  if (std::isfinite(v)) return v;
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

ordered_json json_optional(const std::optional<double>& v) {
  return v ? json_number(*v) : ordered_json(nullptr);
}

ordered_json problem_json(const ProblemKey& p) {
  ordered_json j = ordered_json::object();
  put_problem_fields(j, p);
  return j;
}

// Only the fields observed; null when nothing was (older rows).
ordered_json conditions_json(const MeasureConditions& m) {
  ordered_json out = ordered_json::object();
  auto put = [&](const char* key, const std::optional<double>& v) {
    if (v) out[key] = json_number(*v);
  };
  put("sm_clock_min_mhz", m.sm_clock_min_mhz);
  put("sm_clock_max_mhz", m.sm_clock_max_mhz);
  put("nvml_sm_clock_mhz", m.nvml_sm_clock_mhz);
  put("power_mw", m.power_mw);
  put("temperature_c", m.temperature_c);
  if (m.clock_reasons) out["clock_reasons"] = *m.clock_reasons;
  if (!m.cache.empty()) out["cache"] = m.cache;
  return out.empty() ? ordered_json(nullptr) : out;
}

ordered_json timing_json(const std::optional<TimingRecord>& t) {
  if (!t) return nullptr;
  ordered_json out = {{"median_us", json_number(t->median_us)},
                      {"min_us", json_number(t->min_us)},
                      {"mean_us", json_number(t->mean_us)},
                      {"stdev_us", json_number(t->stdev_us)},
                      {"samples", t->samples},
                      {"discarded", t->discarded},
                      {"sm_clock_mhz", json_number(t->sm_clock_mhz)}};
  if (ordered_json c = conditions_json(t->conditions); !c.is_null()) out["conditions"] = c;
  return out;
}

// Writes one array with a record per line; compact records keep a diff to the changed rows.
void append_array(std::string& out, const char* name, const std::vector<ordered_json>& rows,
                  bool last) {
  out += fmt::format("\"{}\": [", name);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out += i == 0 ? "\n" : ",\n";
    // Invalid UTF-8 (a compiler log can carry any bytes) becomes U+FFFD rather than an error.
    out += rows[i].dump(-1, ' ', false, ordered_json::error_handler_t::replace);
  }
  out += rows.empty() ? "]" : "\n]";
  out += last ? "\n" : ",\n";
}

// ---------------------------------------------------------------------------------------------
// Reading

[[noreturn]] void malformed(const std::string& where, std::string_view what) {
  throw Error(ErrorKind::invalid_value, fmt::format("import: {}: {}", where, what));
}

// One JSON object of the dump, with the path used in error messages ("candidates[3]").
class Fields {
 public:
  Fields(const json& object, std::string path) : object_(object), path_(std::move(path)) {
    if (!object_.is_object()) malformed(path_, "expected an object");
  }

  const std::string& path() const { return path_; }
  std::string where(const char* key) const { return fmt::format("{}.{}", path_, key); }

  bool has(const char* key) const {
    const auto it = object_.find(key);
    return it != object_.end() && !it->is_null();
  }

  const json& field(const char* key) const {
    const auto it = object_.find(key);
    if (it == object_.end()) malformed(where(key), "missing");
    return *it;
  }

  std::string text(const char* key) const {
    const json& v = field(key);
    if (!v.is_string()) malformed(where(key), "expected a string");
    return v.get<std::string>();
  }

  long long integer(const char* key, long long min = std::numeric_limits<int>::min(),
                    long long max = std::numeric_limits<int>::max()) const {
    const json& v = field(key);
    if (!v.is_number_integer()) malformed(where(key), "expected an integer");
    if (v.is_number_unsigned() &&
        v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<long long>::max()))
      malformed(where(key), "out of range");
    const long long value = v.get<long long>();
    if (value < min || value > max)
      malformed(where(key), fmt::format("{} is out of range [{}, {}]", value, min, max));
    return value;
  }

  std::uint64_t unsigned_integer(const char* key) const {
    const json& v = field(key);
    if (!v.is_number_unsigned()) malformed(where(key), "expected a non-negative integer");
    return v.get<std::uint64_t>();
  }

  double number(const char* key) const { return number_value(field(key), where(key)); }

  std::optional<double> optional_number(const char* key) const {
    if (!has(key)) return std::nullopt;
    return number(key);
  }

  // A position in one of the dump's arrays.
  std::size_t index(const char* key, std::size_t size, const char* array) const {
    const long long i = integer(key, 0, std::numeric_limits<int>::max());
    if (static_cast<std::size_t>(i) >= size)
      malformed(where(key),
                fmt::format("{} is past the end of \"{}\" ({} entries)", i, array, size));
    return static_cast<std::size_t>(i);
  }

  ProblemKey problem(const char* key) const {
    const Fields p(field(key), where(key));
    const auto count = [&](const char* name, long long least) {
      return static_cast<int>(p.integer(name, least));
    };
    const ProblemKey out{.transa = p.op("transa"),
                         .transb = p.op("transb"),
                         .m = count("m", 0),
                         .n = count("n", 0),
                         .k = count("k", 0),
                         .lda = count("lda", 1),
                         .ldb = count("ldb", 1),
                         .ldc = count("ldc", 1),
                         .align = static_cast<int>(p.integer("align"))};
    const std::string reason = validate(out);
    if (!reason.empty()) malformed(where(key), reason);
    return out;
  }

  std::optional<TimingRecord> timing(const char* key) const {
    if (!has(key)) return std::nullopt;
    const Fields t(field(key), where(key));
    return TimingRecord{.median_us = t.number("median_us"),
                        .min_us = t.number("min_us"),
                        .mean_us = t.number("mean_us"),
                        .stdev_us = t.number("stdev_us"),
                        .samples = static_cast<int>(t.integer("samples", 0)),
                        .discarded = static_cast<int>(t.integer("discarded", 0)),
                        .sm_clock_mhz = t.number("sm_clock_mhz"),
                        .conditions = t.conditions("conditions").value_or(MeasureConditions{})};
  }

  // Every field optional: dumps written before version 3, or without NVML, lack some.
  std::optional<MeasureConditions> conditions(const char* key) const {
    if (!has(key)) return std::nullopt;
    const Fields f(field(key), where(key));
    return MeasureConditions{
        .sm_clock_min_mhz = f.optional_number("sm_clock_min_mhz"),
        .sm_clock_max_mhz = f.optional_number("sm_clock_max_mhz"),
        .nvml_sm_clock_mhz = f.optional_number("nvml_sm_clock_mhz"),
        .power_mw = f.optional_number("power_mw"),
        .temperature_c = f.optional_number("temperature_c"),
        .clock_reasons = f.has("clock_reasons")
                             ? std::optional<std::uint64_t>(f.unsigned_integer("clock_reasons"))
                             : std::nullopt,
        .cache = f.has("cache") ? f.text("cache") : std::string()};
  }

 private:
  static double number_value(const json& v, const std::string& where) {
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
      const auto& s = v.get_ref<const std::string&>();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    }
    malformed(where, "expected a number");
  }

  Op op(const char* key) const {
    const std::string s = text(key);
    if (s != "N" && s != "T") malformed(where(key), fmt::format("'{}' is not \"N\" or \"T\"", s));
    return parse_op(s[0]);
  }

  const json& object_;
  std::string path_;
};

// The fields a candidate and a winner share: the problem, the positions of its GPU and software
// in their arrays, and the kernel.
ordered_json kernel_row(const ProblemKey& problem, std::size_t gpu, std::size_t software,
                        const std::string& family, const std::string& config,
                        const std::string& template_hash, const std::string& compile_options) {
  return {{"problem", problem_json(problem)},
          {"gpu", gpu},
          {"software", software},
          {"family", family},
          {"config", config},
          {"template_hash", template_hash},
          {"compile_options", compile_options}};
}

// kernel_row's fields, read into a dump row `d` and its record `r`.
template <class Row, class Record>
void read_kernel_fields(const Fields& f, const Dump& dump, Row& d, Record& r) {
  r.problem = f.problem("problem");
  d.gpu = f.index("gpu", dump.gpus.size(), "gpus");
  d.software = f.index("software", dump.software.size(), "software");
  r.family = f.text("family");
  r.config = f.text("config");
  r.template_hash = f.text("template_hash");
  r.compile_options = f.text("compile_options");
}

// An optional top-level array of the dump; missing means empty.
const json& dump_array(const json& doc, const char* key) {
  static const json empty = json::array();
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return empty;
  if (!it->is_array()) malformed(key, "expected an array");
  return *it;
}

}  // namespace

std::string write_dump_json(const Dump& dump, int schema_version, bool with_candidates) {
  std::vector<ordered_json> gpus, software, runs, candidates, winners;
  for (const GpuRecord& g : dump.gpus)
    gpus.push_back({{"name", g.name},
                    {"uuid", g.uuid},
                    {"arch", g.arch},
                    {"sm_count", g.sm_count},
                    {"l2_bytes", g.l2_bytes},
                    {"default_clock_mhz", g.default_clock_mhz}});
  for (const SoftwareRecord& s : dump.software)
    software.push_back(
        {{"driver", s.driver}, {"runtime", s.runtime}, {"nvrtc", s.nvrtc}, {"cublas", s.cublas}});

  if (with_candidates) {
    for (const DumpRun& r : dump.runs)
      runs.push_back({{"started_at", r.run.started_at},
                      {"finished_at", r.run.finished_at},
                      {"status", r.run.status},
                      {"host", r.run.host},
                      {"command", r.run.command},
                      {"clock_policy", r.run.clock_policy},
                      {"seed", r.run.seed},
                      {"notes", r.run.notes},
                      {"gpu", r.gpu},
                      {"software", r.software}});
    for (const DumpCandidate& d : dump.candidates) {
      const CandidateRecord& rec = d.candidate;
      ordered_json row = kernel_row(rec.problem, d.gpu, d.software, rec.family, rec.config,
                                    rec.template_hash, rec.compile_options);
      row.update(ordered_json{{"run", d.run ? ordered_json(*d.run) : ordered_json(nullptr)},
                              {"outcome", outcome_name(rec.outcome)},
                              {"message", rec.message},
                              {"registers", rec.registers},
                              {"spill_bytes", rec.spill_bytes},
                              {"smem_bytes", rec.smem_bytes},
                              {"screen", timing_json(rec.screen)},
                              {"final", timing_json(rec.final)},
                              {"cublas_us", json_optional(rec.cublas_us)},
                              {"error", json_optional(rec.error)}});
      if (rec.cublas_conditions) {
        if (ordered_json cc = conditions_json(*rec.cublas_conditions); !cc.is_null())
          row["cublas_conditions"] = cc;
      }
      candidates.push_back(std::move(row));
    }
  }

  for (const DumpWinner& d : dump.winners) {
    const WinnerRecord& rec = d.winner;
    ordered_json row = kernel_row(rec.problem, d.gpu, d.software, rec.family, rec.config,
                                  rec.template_hash, rec.compile_options);
    row.update(ordered_json{{"time_us", json_number(rec.time_us)},
                            {"cublas_us", json_number(rec.cublas_us)},
                            {"tie_band", json_number(rec.tie_band)},
                            {"cubin_arch", rec.cubin_arch},
                            {"updated_at", rec.updated_at}});
    if (!rec.cubin.empty()) row["cubin"] = base64_encode(rec.cubin);
    winners.push_back(std::move(row));
  }

  std::string out = "{\n";
  out += fmt::format("\"format\": \"{}\",\n\"version\": {},\n\"schema_version\": {},\n",
                     dump_format, dump_version, schema_version);
  append_array(out, "gpus", gpus, false);
  append_array(out, "software", software, false);
  if (with_candidates) {
    append_array(out, "runs", runs, false);
    append_array(out, "candidates", candidates, false);
  }
  append_array(out, "winners", winners, true);
  out += "}\n";
  return out;
}

Dump read_dump_json(std::string_view text) {
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    throw Error(ErrorKind::invalid_value, fmt::format("import: not valid JSON: {}", e.what()));
  }
  const Fields top(doc, "dump");
  if (!top.has("format") || top.text("format") != dump_format)
    malformed("dump.format", fmt::format("expected \"{}\"", dump_format));
  const long long version = top.integer("version");
  if (version != dump_version)
    malformed("dump.version", fmt::format("version {} is not supported (this build reads {})",
                                          version, dump_version));
  const json& gpus = dump_array(doc, "gpus");
  const json& software = dump_array(doc, "software");
  const json& runs = dump_array(doc, "runs");
  const json& candidates = dump_array(doc, "candidates");
  const json& winners = dump_array(doc, "winners");

  Dump dump;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const Fields f(gpus[i], fmt::format("gpus[{}]", i));
    dump.gpus.push_back(
        {.name = f.text("name"),
         .uuid = f.text("uuid"),
         .arch = f.text("arch"),
         .sm_count = static_cast<int>(f.integer("sm_count", 0)),
         .l2_bytes = f.integer("l2_bytes", 0, std::numeric_limits<long long>::max()),
         .default_clock_mhz = static_cast<int>(f.integer("default_clock_mhz", 0))});
  }
  for (std::size_t i = 0; i < software.size(); ++i) {
    const Fields f(software[i], fmt::format("software[{}]", i));
    dump.software.push_back(
        {f.text("driver"), f.text("runtime"), f.text("nvrtc"), f.text("cublas")});
  }

  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Fields f(runs[i], fmt::format("runs[{}]", i));
    dump.runs.push_back({.run = {.started_at = f.text("started_at"),
                                 .host = f.text("host"),
                                 .command = f.text("command"),
                                 .clock_policy = f.text("clock_policy"),
                                 .seed = f.unsigned_integer("seed"),
                                 .notes = f.text("notes"),
                                 .status = f.text("status"),
                                 .finished_at = f.text("finished_at")},
                         .gpu = f.index("gpu", dump.gpus.size(), "gpus"),
                         .software = f.index("software", dump.software.size(), "software")});
  }

  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Fields f(candidates[i], fmt::format("candidates[{}]", i));
    DumpCandidate d;
    CandidateRecord& c = d.candidate;
    read_kernel_fields(f, dump, d, c);
    if (f.has("run")) d.run = f.index("run", dump.runs.size(), "runs");
    try {
      c.outcome = parse_outcome(f.text("outcome"));
    } catch (const Error& e) {
      malformed(f.where("outcome"), e.what());
    }
    c.message = f.text("message");
    c.registers = static_cast<int>(f.integer("registers", 0));
    c.spill_bytes = static_cast<int>(f.integer("spill_bytes", 0));
    c.smem_bytes = static_cast<int>(f.integer("smem_bytes", 0));
    c.screen = f.timing("screen");
    c.final = f.timing("final");
    c.cublas_us = f.optional_number("cublas_us");
    c.error = f.optional_number("error");
    c.cublas_conditions = f.conditions("cublas_conditions");
    dump.candidates.push_back(std::move(d));
  }

  for (std::size_t i = 0; i < winners.size(); ++i) {
    const Fields f(winners[i], fmt::format("winners[{}]", i));
    DumpWinner d;
    WinnerRecord& r = d.winner;
    read_kernel_fields(f, dump, d, r);
    if (r.family.empty()) malformed(f.where("family"), "empty");
    r.gpu = dump.gpus[d.gpu];
    r.software = dump.software[d.software];
    r.time_us = f.number("time_us");
    r.cublas_us = f.number("cublas_us");
    r.tie_band = f.number("tie_band");
    r.cubin_arch = f.text("cubin_arch");
    r.updated_at = f.text("updated_at");
    if (f.has("cubin") && !base64_decode(f.text("cubin"), r.cubin))
      malformed(f.where("cubin"), "not valid base64");
    dump.winners.push_back(std::move(d));
  }
  return dump;
}

}  // namespace sgt
