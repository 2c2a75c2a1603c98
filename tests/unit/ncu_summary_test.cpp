// The Nsight Compute summary: CSV records, ncu's numbers, the details page of one launch (speed
// of light, occupancy, stall reasons), ncu's failures, the two commands and running them.
#include "report/ncu_summary.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "common/error.hpp"
#include "report/process.hpp"

namespace {

using namespace sgt;
using namespace sgt::report;

// Details pages printed by ncu 2025.3 (`ncu --import R --csv --page details`) on the H200 for the
// plan's sections and stall metrics: one f4_skinny sgemm_main launch (4096x16x4096) and one
// cuBLAS gemm launch (1024^3). A metric's record stops after its value (16 of the header's 20
// fields); a rule's record fills every column.
std::string fixture(const std::string& name = "f4_skinny") {
  std::ifstream in(SGEMM_SOURCE_DIR "/tests/unit/data/ncu/details_2025.3_" + name + ".csv",
                   std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kHeader =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

std::string row(const std::string& id, const std::string& kernel, const std::string& section,
                const std::string& name, const std::string& unit, const std::string& value) {
  return "\"" + id + "\",\"77\",\"sgemm-tune\",\"host\",\"" + kernel + "\",\"1\",\"7\",\"" +
         section + "\",\"" + name + "\",\"" + unit + "\",\"" + value + "\"\n";
}

const std::string kSol = "GPU Speed Of Light Throughput";

const std::string kPermissionError =
    "==PROF== Connected to process 4242 (/opt/sgemm-tune/bin/sgemm-tune)\n"
    "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
    "Performance "
    "Counters on the target device 0. For instructions on enabling permissions and to get more "
    "information see https://developer.nvidia.com/ERR_NVGPUCTRPERM\n"
    "==PROF== Disconnected from process 4242\n"
    "==WARNING== No kernels were profiled.\n";

ErrorKind kind_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.kind();
  }
  ADD_FAILURE() << "no sgt::Error thrown";
  return ErrorKind::invalid_value;
}

TEST(NcuCsv, QuotedFieldsHoldCommasQuotesAndLineBreaks) {
  const auto r = parse_csv("a,\"b, c\",\"say \"\"hi\"\"\"\r\n\"two\nlines\",,x,\n\n\"\"\n");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], (std::vector<std::string>{"a", "b, c", "say \"hi\""}));
  EXPECT_EQ(r[1], (std::vector<std::string>{"two\nlines", "", "x", ""}));
  EXPECT_EQ(r[2], (std::vector<std::string>{""}));
  EXPECT_TRUE(parse_csv("").empty());
  EXPECT_EQ(parse_csv("no,newline").back(), (std::vector<std::string>{"no", "newline"}));
}

TEST(NcuCsv, NumbersWithThousandsSeparators) {
  EXPECT_DOUBLE_EQ(*parse_ncu_number("1,234.5"), 1234.5);
  EXPECT_DOUBLE_EQ(*parse_ncu_number("1,234,567"), 1234567.0);
  EXPECT_DOUBLE_EQ(*parse_ncu_number(" 12.31 "), 12.31);
  EXPECT_DOUBLE_EQ(*parse_ncu_number("-3"), -3.0);
  EXPECT_DOUBLE_EQ(*parse_ncu_number("0"), 0.0);
  EXPECT_FALSE(parse_ncu_number("n/a"));
  EXPECT_FALSE(parse_ncu_number(""));
  EXPECT_FALSE(parse_ncu_number("1,5"));  // a decimal comma is not read as 15
  EXPECT_FALSE(parse_ncu_number("1,2345"));
  EXPECT_FALSE(parse_ncu_number("(256, 1, 1)"));
  EXPECT_FALSE(parse_ncu_number("12.3%"));
}

TEST(NcuDetails, SummaryOfARealSgemmMainLaunch) {
  const NcuSummary s = parse_ncu_details(fixture(), "^sgemm_main($|\\()");
  EXPECT_EQ(s.kernel, "sgemm_main");
  EXPECT_EQ(s.launch_id, "0");
  EXPECT_EQ(s.grid_size, "(16, 1, 8)");
  EXPECT_EQ(s.block_size, "(256, 1, 1)");
  ASSERT_TRUE(s.duration_us && s.sm_throughput_pct && s.memory_throughput_pct &&
              s.dram_throughput_pct);
  EXPECT_DOUBLE_EQ(*s.duration_us, 22.40);
  EXPECT_DOUBLE_EQ(*s.sm_throughput_pct, 47.62);
  EXPECT_DOUBLE_EQ(*s.memory_throughput_pct, 64.90);
  EXPECT_DOUBLE_EQ(*s.dram_throughput_pct, 64.90);
  ASSERT_TRUE(s.achieved_occupancy_pct && s.theoretical_occupancy_pct && s.cycles_per_issue &&
              s.registers_per_thread);
  EXPECT_DOUBLE_EQ(*s.achieved_occupancy_pct, 12.49);
  EXPECT_DOUBLE_EQ(*s.theoretical_occupancy_pct, 12.5);
  EXPECT_DOUBLE_EQ(*s.cycles_per_issue, 3.60);
  EXPECT_DOUBLE_EQ(*s.registers_per_thread, 158);

  // 17 reasons summing to 2.59 warp cycles per issued instruction (3.60 less the issue itself);
  // the five largest are kept, ties in the order ncu printed them.
  ASSERT_EQ(s.stalls.size(), 5u);
  const std::vector<std::string> names = {"not_selected", "long_scoreboard", "wait",
                                          "short_scoreboard", "dispatch_stall"};
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(s.stalls[i].name, names[i]) << i;
  EXPECT_DOUBLE_EQ(s.stalls[0].cycles_per_issue, 0.72);
  EXPECT_NEAR(s.stalls[0].share_pct, 100.0 * 0.72 / 2.59, 1e-9);
  EXPECT_NEAR(s.stalls[1].share_pct, 100.0 * 0.36 / 2.59, 1e-9);
  EXPECT_NEAR(s.stalls[4].share_pct, 100.0 * 0.29 / 2.59, 1e-9);

  EXPECT_EQ(parse_ncu_details(fixture(), "sgemm_main", 2).stalls.size(), 2u);
  EXPECT_EQ(parse_ncu_details(fixture(), "sgemm_main", 100).stalls.size(), 17u);
}

TEST(NcuDetails, SummaryOfARealCublasLaunch) {
  const NcuSummary s = parse_ncu_details(fixture("cublas"), "gemm");
  EXPECT_NE(s.kernel.find("sm80_xmma_gemm_f32f32"), std::string::npos) << s.kernel;
  EXPECT_EQ(s.grid_size, "(8, 16, 1)");
  EXPECT_DOUBLE_EQ(*s.duration_us, 61.89);
  EXPECT_DOUBLE_EQ(*s.sm_throughput_pct, 64.61);
  EXPECT_DOUBLE_EQ(*s.memory_throughput_pct, 56.05);
  EXPECT_DOUBLE_EQ(*s.dram_throughput_pct, 2.84);
  EXPECT_DOUBLE_EQ(*s.achieved_occupancy_pct, 6.25);
  EXPECT_DOUBLE_EQ(*s.cycles_per_issue, 1.45);
  ASSERT_FALSE(s.stalls.empty());
  EXPECT_EQ(s.stalls.front().name, "long_scoreboard");
  EXPECT_DOUBLE_EQ(s.stalls.front().cycles_per_issue, 0.14);
}

TEST(NcuDetails, RawMetricNamesAndOlderLabels) {
  // Metrics asked for by name come under their own names; ncu before 2022 labelled SM "SM [%]".
  const std::string csv = kHeader +
                          row("3", "sgemm_main", "Command line profiler metrics",
                              "gpu__time_duration.sum", "nsecond", "31,490") +
                          row("3", "sgemm_main", kSol, "SM [%]", "%", "40.5") +
                          row("3", "sgemm_main", kSol, "Memory [%]", "%", "60.25") +
                          row("3", "sgemm_main", "Command line profiler metrics",
                              "sm__warps_active.avg.pct_of_peak_sustained_active", "%", "48.75");
  const NcuSummary s = parse_ncu_details(csv, "sgemm_main");
  EXPECT_DOUBLE_EQ(*s.duration_us, 31.49);
  EXPECT_DOUBLE_EQ(*s.sm_throughput_pct, 40.5);
  EXPECT_DOUBLE_EQ(*s.memory_throughput_pct, 60.25);
  EXPECT_DOUBLE_EQ(*s.achieved_occupancy_pct, 48.75);
  EXPECT_FALSE(s.dram_throughput_pct);
}

TEST(NcuDetails, DurationUnitsAndPercentUnitsAreChecked) {
  EXPECT_DOUBLE_EQ(
      *parse_ncu_details(kHeader + row("0", "k", kSol, "Duration", "msecond", "1.5"), "k")
           .duration_us,
      1500.0);
  EXPECT_DOUBLE_EQ(
      *parse_ncu_details(kHeader + row("0", "k", kSol, "Duration", "usecond", "2,048.25"), "k")
           .duration_us,
      2048.25);
  std::string message;
  EXPECT_EQ(
      kind_of(
          [] { parse_ncu_details(kHeader + row("0", "k", kSol, "Duration", "furlong", "3"), "k"); },
          &message),
      ErrorKind::internal);
  EXPECT_NE(message.find("furlong"), std::string::npos) << message;
  // A bandwidth called "Memory Throughput" elsewhere is not a percentage of peak.
  const NcuSummary s = parse_ncu_details(kHeader + row("0", "k", kSol, "Duration", "us", "9") +
                                             row("0", "k", "Memory Workload Analysis",
                                                 "Memory Throughput", "Gbyte/second", "1,903.22"),
                                         "k");
  EXPECT_FALSE(s.memory_throughput_pct);
}

TEST(NcuDetails, MissingSectionsStayMissing) {
  // Speed of light only: no occupancy, no stall reasons; nothing is filled in.
  const NcuSummary s =
      parse_ncu_details(kHeader + row("0", "sgemm_main", kSol, "Duration", "us", "12.5") +
                            row("0", "sgemm_main", kSol, "Compute (SM) Throughput", "%", "70.1"),
                        "sgemm_main");
  EXPECT_DOUBLE_EQ(*s.duration_us, 12.5);
  EXPECT_FALSE(s.achieved_occupancy_pct);
  EXPECT_FALSE(s.cycles_per_issue);
  EXPECT_TRUE(s.stalls.empty());
  const std::string text = format_ncu_summary(s, false);
  EXPECT_NE(text.find("memory not reported"), std::string::npos) << text;
  EXPECT_NE(text.find("stall reasons: not reported"), std::string::npos) << text;
  const nlohmann::ordered_json j = ncu_summary_json(s);
  EXPECT_TRUE(j["achieved_occupancy_pct"].is_null());
  EXPECT_DOUBLE_EQ(j["sm_throughput_pct"].get<double>(), 70.1);

  // No speed of light at all: no summary.
  std::string message;
  EXPECT_EQ(kind_of(
                [] {
                  parse_ncu_details(kHeader + row("0", "sgemm_main", "Occupancy",
                                                  "Achieved Occupancy", "%", "50"),
                                    "sgemm_main");
                },
                &message),
            ErrorKind::internal);
  EXPECT_NE(message.find("SpeedOfLight"), std::string::npos) << message;
}

TEST(NcuDetails, EmptyOrForeignInputIsAnError) {
  std::string message;
  EXPECT_EQ(kind_of([] { parse_ncu_details("", "sgemm_main"); }, &message), ErrorKind::internal);
  EXPECT_NE(message.find("nothing"), std::string::npos) << message;
  EXPECT_EQ(kind_of([] { parse_ncu_details("m,n,k\n1,2,3\n", "sgemm_main"); }, &message),
            ErrorKind::internal);
  EXPECT_NE(message.find("no CSV header"), std::string::npos) << message;
  EXPECT_EQ(
      kind_of([] { parse_ncu_details("\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n", "k"); }, &message),
      ErrorKind::internal);
  EXPECT_NE(message.find("Metric Value"), std::string::npos) << message;
  // Header only: ncu printed no launch.
  EXPECT_EQ(kind_of([] { parse_ncu_details(kHeader, "sgemm_main"); }, &message),
            ErrorKind::internal);
  EXPECT_NE(message.find("holds no kernel"), std::string::npos) << message;
}

TEST(NcuDetails, PermissionErrorIsNamed) {
  std::string message;
  EXPECT_EQ(kind_of([] { parse_ncu_details(kPermissionError, "sgemm_main"); }, &message),
            ErrorKind::not_supported);
  EXPECT_NE(message.find("ERR_NVGPUCTRPERM"), std::string::npos) << message;
  EXPECT_NE(message.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos) << message;
  EXPECT_NE(ncu_failure_reason(kPermissionError).find("performance counters"), std::string::npos);
}

TEST(NcuDetails, FailureReasonsFromTheLog) {
  EXPECT_EQ(
      ncu_failure_reason("==PROF== Connected to process 1\n==PROF== Disconnected from process 1\n"),
      "");
  EXPECT_EQ(ncu_failure_reason("==ERROR== Failed to find metric smsp__x\r\n==ERROR== The "
                               "application returned an error code (1).\n"),
            "ncu: Failed to find metric smsp__x; The application returned an error code (1).");
  EXPECT_NE(ncu_failure_reason("==WARNING== No kernels were profiled.\n").find("no kernel"),
            std::string::npos);
}

TEST(NcuDetails, PicksTheMatchingKernelAndNamesTheOthers) {
  const std::string cublas =
      "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x64_8x5_nn_align1>(T1::Params)";
  const std::string csv = "==PROF== Connected to process 77\n" + kHeader +
                          row("0", cublas, kSol, "Duration", "us", "88.3") +
                          row("1", "sgemm_main", kSol, "Duration", "us", "31.6") +
                          row("1", "sgemm_main", kSol, "Memory Throughput", "%", "1,00.0") +
                          "==PROF== Disconnected from process 77\n";
  const NcuSummary s = parse_ncu_details(csv, "^sgemm_main($|\\()");
  EXPECT_EQ(s.launch_id, "1");
  EXPECT_DOUBLE_EQ(*s.duration_us, 31.6);
  EXPECT_FALSE(s.memory_throughput_pct);  // "1,00.0" is no number
  EXPECT_EQ(parse_ncu_details(csv, "gemm").launch_id, "0");

  std::string message;
  EXPECT_EQ(kind_of(
                [&] {
                  parse_ncu_details(kHeader + row("0", cublas, kSol, "Duration", "us", "88.3"),
                                    "^sgemm_main($|\\()");
                },
                &message),
            ErrorKind::internal);
  EXPECT_NE(message.find("no kernel matching"), std::string::npos) << message;
  EXPECT_NE(message.find("cutlass_80_simt_sgemm"), std::string::npos) << message;
}

TEST(NcuPlan, ClocksLeftAloneOneLaunchAndTheStallMetrics) {
  const NcuPlan p =
      ncu_plan("/opt/bin/sgemm-tune", "/tmp/d/s.csv", "/tmp/x.db", "/tmp/d/r.ncu-rep", false);
  const auto at = [&](const std::string& flag) {
    const auto it = std::find(p.profile.begin(), p.profile.end(), flag);
    return it == p.profile.end() || it + 1 == p.profile.end() ? std::string("(missing)")
                                                              : *(it + 1);
  };
  EXPECT_EQ(p.profile.front(), "ncu");
  EXPECT_EQ(at("--clock-control"), "none");
  EXPECT_EQ(at("--kernel-name"), "regex:^sgemm_main$");
  EXPECT_EQ(at("--launch-count"), "1");
  EXPECT_EQ(at("-o"), "/tmp/d/r.ncu-rep");
  EXPECT_NE(at("--metrics")
                .find("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"),
            std::string::npos);
  EXPECT_EQ(at("--metrics").find("stalled_selected"), std::string::npos);
  for (const char* section : {"SpeedOfLight", "Occupancy", "WarpStateStats"})
    EXPECT_NE(std::find(p.profile.begin(), p.profile.end(), section), p.profile.end()) << section;
  const std::vector<std::string> tail(p.profile.end() - 8, p.profile.end());
  EXPECT_EQ(tail,
            (std::vector<std::string>{"/opt/bin/sgemm-tune", "bench", "--shapes", "/tmp/d/s.csv",
                                      "--lt-algos", "0", "--db", "/tmp/x.db"}));
  EXPECT_EQ(p.print, (std::vector<std::string>{"ncu", "--import", "/tmp/d/r.ncu-rep", "--csv",
                                               "--page", "details"}));

  const NcuPlan c = ncu_plan("sgemm-tune", "s.csv", "", "r.ncu-rep", true);
  EXPECT_NE(std::find(c.profile.begin(), c.profile.end(), "regex:gemm"), c.profile.end());
  EXPECT_EQ(c.profile.back(), "0");  // no --db: bench's default database
  EXPECT_EQ(c.kernel_regex, "gemm");
}

class NcuRun : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "sgt_ncu_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  // A stand-in for ncu: writes `profile_log` and returns `profile_rc` for the profiling
  // command, writes `csv` and returns `print_rc` for the import.
  CommandRunner fake() {
    return [this](const std::vector<std::string>& argv, const std::string& out) {
      commands.push_back(argv);
      const bool import = std::find(argv.begin(), argv.end(), "--import") != argv.end();
      std::ofstream(out, std::ios::app) << (import ? csv : profile_log);
      return import ? print_rc : profile_rc;
    };
  }
  // The message of the error profile_with_ncu throws, with the logs of earlier calls removed.
  std::string failure(ErrorKind expected) {
    std::filesystem::remove(dir + "/ncu-profile.log");
    std::filesystem::remove(dir + "/ncu-details.csv");
    std::string message;
    EXPECT_EQ(kind_of([&] { profile_with_ncu(plan, dir, fake()); }, &message), expected);
    return message;
  }
  std::string dir,
      profile_log = "==PROF== Connected to process 9\n==PROF== Disconnected from process 9\n",
      csv = fixture();
  int profile_rc = 0, print_rc = 0;
  std::vector<std::vector<std::string>> commands;
  NcuPlan plan = ncu_plan("sgemm-tune", "s.csv", "t.db", "r.ncu-rep", false);
};

TEST_F(NcuRun, ProfilesThenPrintsThenSummarises) {
  const NcuSummary s = profile_with_ncu(plan, dir, fake());
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0], plan.profile);
  EXPECT_EQ(commands[1], plan.print);
  EXPECT_DOUBLE_EQ(*s.sm_throughput_pct, 47.62);
  EXPECT_EQ(s.stalls.front().name, "not_selected");
  const std::string text = format_ncu_summary(s, false);
  EXPECT_NE(text.find("compute (SM) 47.6%, memory 64.9%, DRAM 64.9%; duration 22.40 us"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("achieved 12.5%, theoretical 12.5%; 158 registers/thread"), std::string::npos)
      << text;
  EXPECT_NE(text.find("| not_selected     |   0.72 | 27.8% |"), std::string::npos) << text;
  EXPECT_EQ(text.find("\033["), std::string::npos);
  EXPECT_NE(format_ncu_summary(s, true).find("\033["), std::string::npos);
  const nlohmann::ordered_json j = ncu_summary_json(s);
  EXPECT_DOUBLE_EQ(j["duration_us"].get<double>(), 22.40);
  EXPECT_DOUBLE_EQ(j["registers_per_thread"].get<double>(), 158);
  EXPECT_EQ(j["stalls"][0]["reason"], "not_selected");
  EXPECT_NEAR(j["stalls"][0]["share_pct"].get<double>(), 100.0 * 0.72 / 2.59, 1e-9);
}

TEST_F(NcuRun, PermissionErrorStopsBeforeTheImport) {
  profile_log = kPermissionError;
  const std::string message = failure(ErrorKind::not_supported);
  EXPECT_NE(message.find("ERR_NVGPUCTRPERM"), std::string::npos) << message;
  EXPECT_NE(message.find("ncu-profile.log"), std::string::npos) << message;
  EXPECT_EQ(commands.size(), 1u);
}

TEST_F(NcuRun, NonZeroExitsAndEmptyOutputAreErrors) {
  profile_rc = 2;
  profile_log = "sgemm-tune bench needs a GPU\n";
  std::string message = failure(ErrorKind::internal);
  EXPECT_NE(message.find("status 2"), std::string::npos) << message;
  EXPECT_NE(message.find("needs a GPU"), std::string::npos) << message;

  profile_rc = 0;
  profile_log = "==WARNING== No kernels were profiled.\n";
  message = failure(ErrorKind::internal);
  EXPECT_NE(message.find("no kernel"), std::string::npos) << message;

  profile_log = "";
  print_rc = 1;
  csv = "==ERROR== Could not open r.ncu-rep\n";
  message = failure(ErrorKind::internal);
  EXPECT_NE(message.find("--import exited with status 1"), std::string::npos) << message;

  print_rc = 0;
  csv = "";
  message = failure(ErrorKind::internal);
  EXPECT_NE(message.find("printed nothing"), std::string::npos) << message;
}

TEST_F(NcuRun, ThroughChildProcessesWithAStandInNcu) {
  // A shell script in ncu's place: the profiling command logs bench's table and ncu's lines, the
  // import prints the fixture; both run as child processes with their output in files.
  const std::string ncu = dir + "/ncu";
  std::ofstream(ncu) << "#!/bin/sh\ncase \" $* \" in *\" --import \"*) cat '" SGEMM_SOURCE_DIR
                        "/tests/unit/data/ncu/details_2025.3_f4_skinny.csv' ;;\n"
                        "*) echo 'problem path tuned us'; echo '==PROF== Disconnected from process "
                        "1' >&2 ;; esac\n";
  std::filesystem::permissions(ncu, std::filesystem::perms::owner_all);
  plan.profile.front() = ncu;
  plan.print.front() = ncu;
  const NcuSummary s =
      profile_with_ncu(plan, dir, [](const std::vector<std::string>& argv, const std::string& out) {
        return run_command(argv, out);
      });
  EXPECT_DOUBLE_EQ(*s.duration_us, 22.40);
  EXPECT_EQ(read_tail(dir + "/ncu-profile.log", 1000),
            "problem path tuned us\n==PROF== Disconnected from process 1\n");
}

TEST(Process, ExitStatusOutputAndMissingPrograms) {
  std::string pattern = (std::filesystem::temp_directory_path() / "sgt_process_XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const std::string log = pattern + "/out.log";
  EXPECT_EQ(run_command({"sh", "-c", "echo one; echo two >&2; exit 3"}, log), 3);
  EXPECT_EQ(run_command({"sh", "-c", "pwd"}, log, "/"), 0);
  EXPECT_EQ(read_tail(log, 100), "one\ntwo\n/\n");  // appended, stderr included
  EXPECT_EQ(read_tail(log, 2), ".../\n");
  EXPECT_EQ(read_tail(pattern + "/none.log", 100), "");
  EXPECT_EQ(run_command({"surely-no-such-program-sgemm"}, log), 127);
  EXPECT_EQ(run_command({"sh", "-c", "kill -9 $$"}, log), 128 + 9);
  std::filesystem::remove_all(pattern);
}

}  // namespace
