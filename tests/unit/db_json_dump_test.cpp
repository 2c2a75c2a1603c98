// The text dump without a database: its exact layout, a round trip of every field, and the
// validator's messages naming the record and field of malformed input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "db/json_dump.hpp"
#include "db/records.hpp"
#include "support/problem_and_knobs.hpp"

namespace sgt {
namespace {

using sgt::testing::problem;

const GpuRecord h200{"NVIDIA H200", "GPU-1111", "sm_90", 132, 62914560, 1980};
const SoftwareRecord cuda13{"580.65", "13.0", "13.0.48", "13.1.0.3"};

WinnerRecord winner(const ProblemKey& p, const std::string& config) {
  WinnerRecord w;
  w.problem = p;
  w.gpu = h200;
  w.software = cuda13;
  w.family = "simt_tiled";
  w.config = config;
  w.template_hash = "0123456789abcdef";
  w.compile_options = "-O3";
  w.time_us = 12.5;
  w.cublas_us = 14;
  w.tie_band = 0.004;
  w.cubin_arch = "sm_90";
  w.updated_at = "2025-01-02T03:04:05.678Z";
  return w;
}

// Every kind of field: optional timings and conditions set and not, numbers JSON cannot hold,
// a uint64 seed past int64, a candidate outside any run, a cubin.
Dump full_dump() {
  Dump d;
  d.gpus = {h200};
  d.software = {cuda13};
  RunRecord run;
  run.started_at = "2025-01-01T00:00:00.000Z";
  run.finished_at = "2025-01-01T01:00:00.000Z";
  run.status = "done";
  run.host = "node1";
  run.command = "sgemm-tune tune";
  run.clock_policy = "lock:1980";
  run.seed = std::numeric_limits<std::uint64_t>::max();
  run.notes = R"({"nvml":true})";
  d.runs.push_back({run, 0, 0});

  CandidateRecord measured;
  measured.problem = problem(4096, 16, 4096, Op::T, Op::N, 4);
  measured.family = "simt_tiled";
  measured.config = "BM=64";
  measured.template_hash = "0123456789abcdef";
  measured.compile_options = "-O3";
  measured.message = "log";
  measured.registers = 96;
  measured.smem_bytes = 16384;
  measured.screen = TimingRecord{10, 9.5, 10.25, 0.5, 20, 1, 1980, {}};
  measured.screen->conditions.cache = "cold-flush";
  measured.final = TimingRecord{9.75, 9.5, 9.875, 0.125, 50, 2, 1975.5, {}};
  measured.final->conditions.sm_clock_min_mhz = 1900;
  measured.final->conditions.clock_reasons = 4;
  measured.cublas_us = 0.1 + 0.2;  // no short decimal: must still round-trip
  measured.cublas_conditions = MeasureConditions{};
  measured.cublas_conditions->power_mw = 412345.5;
  measured.error = std::numeric_limits<double>::infinity();
  d.candidates.push_back({measured, 0, 0, 0});

  CandidateRecord failed;
  failed.problem = measured.problem;
  failed.family = "simt_tiled";
  failed.config = "BM=128";
  failed.template_hash = "0123456789abcdef";
  failed.outcome = Outcome::compile_failed;
  failed.message = "error: too many resources";
  d.candidates.push_back({failed, 0, 0, std::nullopt});

  WinnerRecord w = winner(measured.problem, "BM=64");
  w.cubin = {0x7f, 'E', 'L', 'F', 0, 1};
  w.cublas_us = std::numeric_limits<double>::quiet_NaN();
  d.winners.push_back({w, 0, 0});
  return d;
}

TEST(JsonDump, LayoutIsOneRecordPerLine) {
  Dump d;
  d.gpus = {h200};
  d.software = {cuda13};
  d.winners.push_back({winner(problem(64, 64, 64), "BM=64"), 0, 0});
  EXPECT_EQ(write_dump_json(d, 3, false),
            R"({
"format": "sgemm-tune-db",
"version": 1,
"schema_version": 3,
"gpus": [
{"name":"NVIDIA H200","uuid":"GPU-1111","arch":"sm_90","sm_count":132,"l2_bytes":62914560,"default_clock_mhz":1980}
],
"software": [
{"driver":"580.65","runtime":"13.0","nvrtc":"13.0.48","cublas":"13.1.0.3"}
],
"winners": [
{"problem":{"transa":"N","transb":"N","m":64,"n":64,"k":64,"lda":64,"ldb":64,"ldc":64,"align":4},"gpu":0,"software":0,"family":"simt_tiled","config":"BM=64","template_hash":"0123456789abcdef","compile_options":"-O3","time_us":12.5,"cublas_us":14.0,"tie_band":0.004,"cubin_arch":"sm_90","updated_at":"2025-01-02T03:04:05.678Z"}
]
}
)");
  // With candidates, empty arrays of runs and candidates are still written.
  const std::string full = write_dump_json(d, 3, true);
  EXPECT_NE(full.find("\"runs\": [],\n\"candidates\": [],\n\"winners\": [\n"), std::string::npos)
      << full;
}

TEST(JsonDump, RoundTripsEveryField) {
  const Dump d = full_dump();
  const std::string text = write_dump_json(d, 3, true);
  EXPECT_NE(text.find(R"("seed":18446744073709551615)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("error":"inf")"), std::string::npos);
  EXPECT_NE(text.find(R"("cublas_us":"nan")"), std::string::npos);
  EXPECT_NE(text.find(R"("cubin":"f0VMRgAB")"), std::string::npos);
  EXPECT_NE(text.find(R"("run":null)"), std::string::npos);
  EXPECT_NE(text.find(R"("cublas_conditions":{"power_mw":412345.5})"), std::string::npos);
  EXPECT_NE(text.find(R"("conditions":{"sm_clock_min_mhz":1900.0,"clock_reasons":4})"),
            std::string::npos);

  const Dump back = read_dump_json(text);
  EXPECT_EQ(write_dump_json(back, 3, true), text);
  ASSERT_EQ(back.runs.size(), 1u);
  EXPECT_EQ(back.runs[0].run.seed, d.runs[0].run.seed);
  ASSERT_EQ(back.candidates.size(), 2u);
  const CandidateRecord& c = back.candidates[0].candidate;
  EXPECT_EQ(back.candidates[0].run, std::optional<std::size_t>(0));
  EXPECT_FALSE(back.candidates[1].run.has_value());
  EXPECT_EQ(c.problem, d.candidates[0].candidate.problem);
  EXPECT_EQ(*c.cublas_us, 0.1 + 0.2);
  EXPECT_TRUE(std::isinf(*c.error));
  ASSERT_TRUE(c.final.has_value());
  EXPECT_EQ(c.final->conditions, d.candidates[0].candidate.final->conditions);
  EXPECT_EQ(c.cublas_conditions, d.candidates[0].candidate.cublas_conditions);
  EXPECT_FALSE(back.candidates[1].candidate.screen.has_value());
  EXPECT_EQ(back.candidates[1].candidate.outcome, Outcome::compile_failed);
  ASSERT_EQ(back.winners.size(), 1u);
  const WinnerRecord& w = back.winners[0].winner;
  EXPECT_EQ(w.cubin, d.winners[0].winner.cubin);
  EXPECT_TRUE(std::isnan(w.cublas_us));
  // A winner's GPU and software are those its positions name.
  EXPECT_EQ(w.gpu.uuid, h200.uuid);
  EXPECT_EQ(w.software.cublas, cuda13.cublas);

  // Winners only: the runs and candidates are left out, and read back as none.
  const Dump winners_only = read_dump_json(write_dump_json(d, 3, false));
  EXPECT_TRUE(winners_only.runs.empty());
  EXPECT_TRUE(winners_only.candidates.empty());
  EXPECT_EQ(winners_only.winners.size(), 1u);
}

// The message read_dump_json throws (kind invalid_value), or "" when the text is accepted.
std::string error_of(const std::string& text) {
  try {
    read_dump_json(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_value) << e.what();
    return e.what();
  }
  return "";
}

TEST(JsonDump, MalformedInputNamesRecordAndField) {
  const std::string head = R"({"format": "sgemm-tune-db", "version": 1, )";
  const std::string units =
      R"("gpus": [{"name": "G", "uuid": "u", "arch": "sm_90", "sm_count": 1, "l2_bytes": 1,
                   "default_clock_mhz": 1}], "software": [{"driver": "d", "runtime": "r",
                   "nvrtc": "n", "cublas": "c"}], )";
  const std::string p = R"({"transa": "N", "transb": "N", "m": 8, "n": 8, "k": 8, "lda": 8,
                            "ldb": 8, "ldc": 8, "align": 4})";
  auto cand = [&](const std::string& problem_text, const std::string& outcome,
                  const std::string& extra = "") {
    return R"({"problem": )" + problem_text + R"(, "gpu": 0, "software": 0, "run": null,
      "family": "f", "config": "c", "template_hash": "h", "compile_options": "", "outcome": ")" +
           outcome + R"(", "message": "", "registers": 1, "spill_bytes": 0, "smem_bytes": 0,
      "screen": null, "final": null, "cublas_us": null, "error": null)" +
           extra + "}";
  };
  auto win = [&](const std::string& extra = "") {
    return R"({"problem": )" + p + R"(, "gpu": 0, "software": 0, "family": "simt",
      "config": "new", "template_hash": "h", "compile_options": "", "time_us": 1,
      "cublas_us": 2, "tie_band": 0, "cubin_arch": "", "updated_at": "t")" +
           extra + "}";
  };
  auto candidates = [&](const std::string& rows) {
    return head + units + R"("candidates": [)" + rows + "]}";
  };
  auto winners = [&](const std::string& rows) {
    return head + units + R"("winners": [)" + rows + "]}";
  };
  auto with_problem = [&](const std::string& field, const std::string& value) {
    std::string text = p;
    const std::size_t at = text.find("\"" + field + "\": ") + field.size() + 4;
    text.replace(at, text.find_first_of(",}", at) - at, value);
    return candidates(cand(text, "ok"));
  };

  // What is valid first: each case below breaks one thing of it.
  EXPECT_EQ(error_of(candidates(cand(p, "ok"))), "");
  EXPECT_EQ(error_of(winners(win(R"(, "cubin": "f0VMRgAB")"))), "");
  EXPECT_EQ(error_of(R"({"format": "sgemm-tune-db", "version": 1})"), "");  // no arrays: empty

  EXPECT_EQ(error_of("{not json").rfind("import: not valid JSON: ", 0), 0u);
  EXPECT_EQ(error_of("[1, 2]"), "import: dump: expected an object");
  EXPECT_EQ(error_of(R"({"version": 1})"), R"(import: dump.format: expected "sgemm-tune-db")");
  EXPECT_EQ(error_of(R"({"format": "something-else", "version": 1})"),
            R"(import: dump.format: expected "sgemm-tune-db")");
  EXPECT_EQ(error_of(R"({"format": 7, "version": 1})"), "import: dump.format: expected a string");
  EXPECT_EQ(error_of(R"({"format": "sgemm-tune-db"})"), "import: dump.version: missing");
  EXPECT_EQ(error_of(R"({"format": "sgemm-tune-db", "version": 9})"),
            "import: dump.version: version 9 is not supported (this build reads 1)");
  EXPECT_EQ(error_of(head + R"("gpus": {"name": "x"}})"), "import: gpus: expected an array");
  // The arrays' types are checked before any record.
  EXPECT_EQ(error_of(head + R"("gpus": [1], "winners": 5})"), "import: winners: expected an array");
  EXPECT_EQ(error_of(head + R"("gpus": [1]})"), "import: gpus[0]: expected an object");
  EXPECT_EQ(error_of(head + R"("gpus": [{"name": "G"}]})"), "import: gpus[0].uuid: missing");
  EXPECT_EQ(error_of(head + R"("gpus": [{"name": 5}]})"),
            "import: gpus[0].name: expected a string");
  EXPECT_EQ(
      error_of(head + R"("gpus": [{"name": "G", "uuid": "u", "arch": "a", "sm_count": -1}]})"),
      "import: gpus[0].sm_count: -1 is out of range [0, 2147483647]");
  EXPECT_EQ(error_of(head + R"("gpus": [{"name": "G", "uuid": "u", "arch": "a", "sm_count": 1,
                                          "l2_bytes": 18446744073709551615}]})"),
            "import: gpus[0].l2_bytes: out of range");
  EXPECT_EQ(error_of(head + units + R"("runs": [{"started_at": "s", "finished_at": "", "status":
      "done", "host": "h", "command": "c", "clock_policy": "observe", "seed": -1}]})"),
            "import: runs[0].seed: expected a non-negative integer");

  EXPECT_EQ(error_of(candidates(cand(p, "ok") + "," + cand(p, "okay"))),
            "import: candidates[1].outcome: unknown outcome 'okay' (expected one of ok, "
            "compile_failed, resources_exceeded, launch_failed, incorrect, timed_out, skipped, "
            "compiled)");
  EXPECT_EQ(error_of(with_problem("transa", R"("X")")),
            R"(import: candidates[0].problem.transa: 'X' is not "N" or "T")");
  EXPECT_EQ(error_of(with_problem("lda", "2")),
            "import: candidates[0].problem: lda=2 is smaller than the 8 rows of A");
  EXPECT_EQ(error_of(with_problem("m", "-8")),
            "import: candidates[0].problem.m: -8 is out of range [0, 2147483647]");
  EXPECT_EQ(error_of(with_problem("align", "3")),
            "import: candidates[0].problem: alignment class 3 is not 1, 2 or 4");
  EXPECT_EQ(error_of(candidates(cand(p, "ok", R"(, "gpu": 3)"))),
            R"(import: candidates[0].gpu: 3 is past the end of "gpus" (1 entries))");
  EXPECT_EQ(error_of(candidates(cand(p, "ok", R"(, "run": 0)"))),
            R"(import: candidates[0].run: 0 is past the end of "runs" (0 entries))");
  std::string fractional = cand(p, "ok");
  fractional.replace(fractional.find("\"registers\": 1"), 14, "\"registers\": 1.5");
  EXPECT_EQ(error_of(candidates(fractional)),
            "import: candidates[0].registers: expected an integer");
  EXPECT_EQ(error_of(candidates(cand(p, "ok", R"(, "cublas_us": "fast")"))),
            "import: candidates[0].cublas_us: expected a number");
  EXPECT_EQ(error_of(candidates(cand(p, "ok", R"(, "screen": {"median_us": 1})"))),
            "import: candidates[0].screen.min_us: missing");
  EXPECT_EQ(error_of(candidates(cand(p, "ok", R"(, "cublas_conditions": {"cache": 1})"))),
            "import: candidates[0].cublas_conditions.cache: expected a string");

  EXPECT_EQ(
      error_of(winners(win() + "," + R"({"problem": )" + p + R"(, "gpu": 4, "software": 0})")),
      R"(import: winners[1].gpu: 4 is past the end of "gpus" (1 entries))");
  EXPECT_EQ(error_of(winners(win(R"(, "family": "")"))), "import: winners[0].family: empty");
  EXPECT_EQ(error_of(winners(win(R"(, "cubin": "@@@@")"))),
            "import: winners[0].cubin: not valid base64");
  EXPECT_EQ(error_of(winners(win(R"(, "cubin": "f0VMRgA")"))),
            "import: winners[0].cubin: not valid base64");
}

}  // namespace
}  // namespace sgt
