// Bad input, table-driven: shape lists (CSV, YAML), search spaces and settings files are each
// rejected with FILE:LINE and the reason; misuse of the sgemm-tune command exits 2 with usage,
// and a GPU verb on a machine without a usable GPU exits 3 with one line.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "config/search_space.hpp"
#include "config/shape_list.hpp"
#include "config/tuning_settings.hpp"
#include "cuda/device_info.hpp"
#include "support/gpu_support.hpp"

namespace sgt {
namespace {

namespace fs = std::filesystem;

struct BadInput {
  const char* what;
  std::string text;
  std::string expected;  // a fragment of the message, starting with FILE:LINE where there is one
};

// The invalid_value message parse(text) throws, or a test failure naming the case.
std::string error_of(const BadInput& c, const std::function<void(const std::string&)>& parse) {
  try {
    parse(c.text);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_value) << c.what;
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << c.what << ": not an sgt::Error: " << e.what();
    return {};
  }
  ADD_FAILURE() << c.what << ": accepted";
  return {};
}

void expect_all_rejected(const std::vector<BadInput>& cases,
                         const std::function<void(const std::string&)>& parse) {
  for (const BadInput& c : cases) {
    const std::string message = error_of(c, parse);
    EXPECT_NE(message.find(c.expected), std::string::npos)
        << c.what << ": '" << c.expected << "' not in: " << message.substr(0, 300);
  }
}

TEST(BadInput, ShapeCsvIsRejectedWithLineAndReason) {
  const std::string huge(1 << 20, '9');
  const std::vector<BadInput> cases = {
      {"empty file", "", "s.csv:1: no header line"},
      {"only comments and blank lines", "# shapes\n\n", "s.csv:2: no header line"},
      {"header only", "m,n,k\n", "s.csv:1: no shapes"},
      {"missing column k", "m,n\n1,2\n", "s.csv:1: header lacks the column 'k'"},
      {"unknown column", "m,n,k,colour\n1,2,3,red\n", "s.csv:1: unknown column 'colour'"},
      {"repeated column", "m,n,k,m\n1,2,3,4\n", "s.csv:1: column 'm' appears twice"},
      {"trailing comma in the header", "m,n,k,\n1,2,3,\n", "s.csv:1: unknown column ''"},
      {"trailing comma in a row", "m,n,k\n1,2,3,\n", "s.csv:2: 4 fields, the header has 3"},
      {"missing field", "m,n,k\n1,2\n", "s.csv:2: 2 fields, the header has 3"},
      {"empty size", "m,n,k\n1,2,\n", "s.csv:2: k '' is not an integer"},
      {"non-number", "m,n,k\n1,abc,3\n", "s.csv:2: n 'abc' is not an integer"},
      {"fraction", "m,n,k\n1.5,2,3\n", "s.csv:2: m '1.5' is not an integer"},
      {"hexadecimal", "m,n,k\n0x10,2,3\n", "s.csv:2: m '0x10' is not an integer"},
      {"plus sign", "m,n,k\n+8,2,3\n", "s.csv:2: m '+8' is not an integer"},
      {"embedded NUL", std::string("m,n,k\n1,2\0,3\n", 13), "s.csv:2: n '2"},
      {"negative size on line 3", "m,n,k\n1,2,3\n-4,5,6\n", "s.csv:3: m = -4 must be positive"},
      {"zero size", "m,n,k\n0,5,6\n", "s.csv:2: m = 0 must be positive"},
      {"zero leading dimension", "m,n,k,lda\n4,4,4,0\n", "s.csv:2: lda = 0 must be positive"},
      {"size beyond int", "m,n,k\n3000000000,1,1\n",
       "s.csv:2: m = 3000000000 exceeds 32-bit range"},
      {"size beyond long long", "m,n,k\n99999999999999999999,1,1\n",
       "s.csv:2: m '99999999999999999999' is not an integer"},
      {"A spans 2^32 floats", "m,n,k\n65536,16,65536\n",
       "s.csv:2: an operand spans more than 2^31 - 1"},
      {"C spans 2^32 floats", "m,n,k\n65536,65536,16\n",
       "s.csv:2: an operand spans more than 2^31 - 1"},
      {"B spans past 2^31 (TT)", "m,n,k,transa,transb\n16,46341,46341,T,T\n",
       "s.csv:2: an operand spans more than 2^31 - 1"},
      {"ldc makes C overflow", "m,n,k,ldc\n16,16,16,200000000\n",
       "s.csv:2: an operand spans more than 2^31 - 1"},
      {"lda below m", "m,n,k,lda\n64,64,64,10\n",
       "s.csv:2: lda=10 is smaller than the 64 rows of A"},
      {"ldb below n (T)", "m,n,k,transb,ldb\n8,64,8,T,10\n",
       "s.csv:2: ldb=10 is smaller than the 64 rows of B"},
      {"bad transpose letter", "m,n,k,transa\n4,4,4,X\n", "s.csv:2: transpose 'X' is not N or T"},
      {"transpose word", "m,n,k,transb\n4,4,4,NT\n", "s.csv:2: transb 'NT' is not N or T"},
      {"alpha not a number", "m,n,k,alpha\n4,4,4,one\n", "s.csv:2: alpha 'one' is not a number"},
      {"alpha NaN", "m,n,k,alpha\n4,4,4,nan\n", "s.csv:2: alpha 'nan' is not a finite float"},
      {"beta infinite", "m,n,k,beta\n4,4,4,inf\n", "s.csv:2: beta 'inf' is not a finite float"},
      {"beta overflows float", "m,n,k,beta\n4,4,4,1e39\n",
       "s.csv:2: beta '1e39' is not a finite float"},
      {"duplicate", "m,n,k\n8,8,8\n8,8,8\n", "s.csv:3: duplicate of line 2"},
      {"duplicate once minimal ld filled in", "m,n,k,lda\n8,8,8,\n# again\n8,8,8,8\n",
       "s.csv:4: duplicate of line 2"},
      {"duplicate differing only in label", "m,n,k,name\n8,8,8,a\n16,8,8,b\n8,8,8,c\n",
       "s.csv:4: duplicate of line 2"},
      {"CRLF, bad value on line 3", "m,n,k\r\n1,2,3\r\n1,x,3\r\n",
       "s.csv:3: n 'x' is not an integer"},
      {"BOM, then a bad header", "\xEF\xBB\xBFm,n\r\n1,2\r\n",
       "s.csv:1: header lacks the column 'k'"},
      {"huge line", "m,n,k\n1,2," + huge + "\n", "s.csv:2: k '9999"},
      {"huge header", "m,n,k," + huge + "\n", "s.csv:1: unknown column '9999"},
  };
  expect_all_rejected(cases, [](const std::string& text) { parse_shape_csv(text, "s.csv"); });
}

TEST(BadInput, ShapeCsvEdgeCasesThatAreValid) {
  // A UTF-8 BOM, CRLF line ends, spaces around cells, comments and blank lines.
  const auto shapes = parse_shape_csv(
      "\xEF\xBB\xBF# from a spreadsheet\r\n m , n ,k,transa,name\r\n\r\n 8 , 16 ,32, t ,x\r\n"
      "2147483647,1,1,N,largest\r\n",
      "s.csv");
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_EQ(shapes[0].problem.key.m, 8);
  EXPECT_EQ(shapes[0].problem.key.n, 16);
  EXPECT_EQ(shapes[0].problem.key.transa, Op::T);
  EXPECT_EQ(shapes[0].problem.key.lda, 32);
  EXPECT_EQ(shapes[0].label, "x");
  EXPECT_EQ(shapes[0].line, 4);
  EXPECT_EQ(shapes[1].problem.key.m, 2147483647);
  EXPECT_EQ(validate(shapes[1].problem.key), "");
  // Many distinct shapes parse quickly (the duplicate check is not quadratic).
  std::string many = "m,n,k\n";
  for (int i = 1; i <= 50000; ++i) many += std::to_string(i) + ",1,1\n";
  EXPECT_EQ(parse_shape_csv(many, "many.csv").size(), 50000u);
}

TEST(BadInput, ShapeYamlIsRejectedWithLineAndReason) {
  const std::vector<BadInput> cases = {
      {"empty file", "", "s.yaml:1: expected a top-level 'shapes:' sequence"},
      {"scalar document", "hello\n", "s.yaml:1: expected a top-level 'shapes:' sequence"},
      {"list document", "- {m: 1, n: 1, k: 1}\n",
       "s.yaml:1: expected a top-level 'shapes:' sequence"},
      {"shapes is a map", "shapes: {m: 1}\n", "s.yaml:1: expected a top-level 'shapes:' sequence"},
      {"empty list", "shapes: []\n", "s.yaml:1: no shapes"},
      {"not YAML", "shapes:\n  - {m: 1, n: 2\n", "s.yaml:3: "},
      {"item is a list", "shapes:\n  - [1, 2, 3]\n", "s.yaml:2: each shape must be a mapping"},
      {"missing k", "shapes:\n  - {m: 4, n: 4}\n", "s.yaml:2: missing value for k"},
      {"unknown key", "shapes:\n  - {m: 4, n: 4, k: 4, colour: red}\n",
       "s.yaml:2: unknown column 'colour'"},
      // A NUL in a quoted key is shown as \0 instead of cutting the message short (fuzz finding).
      {"NUL in a key", "shapes:\n  - {\"m\\0x\": 4, n: 4, k: 4}\n",
       "s.yaml:2: unknown column 'm\\0x'"},
      {"repeated key", "shapes:\n  - {m: 4, m: 8, n: 4, k: 4}\n", "s.yaml:2: m given twice"},
      {"list value", "shapes:\n  - {m: [4], n: 4, k: 4}\n", "s.yaml:2: m must be a scalar"},
      {"null value", "shapes:\n  - {m: ~, n: 4, k: 4}\n", "s.yaml:2: m must be a scalar"},
      {"non-scalar key", "shapes:\n  - {? [m] : 4, n: 4, k: 4}\n",
       "s.yaml:2: keys must be column names"},
      {"non-number", "shapes:\n  - {m: four, n: 4, k: 4}\n",
       "s.yaml:2: m 'four' is not an integer"},
      {"negative, line 3", "shapes:\n  - {m: 4, n: 4, k: 4}\n  - {m: 4, n: -4, k: 4}\n",
       "s.yaml:3: n = -4 must be positive"},
      {"block style, line of the item", "shapes:\n  - m: 4\n    n: 4\n    k: 0\n",
       "s.yaml:2: k = 0 must be positive"},
      {"overflow", "shapes:\n  - {m: 65536, n: 65536, k: 1}\n",
       "s.yaml:2: an operand spans more than 2^31 - 1"},
      {"beyond int", "shapes:\n  - {m: 4294967296, n: 1, k: 1}\n",
       "s.yaml:2: m = 4294967296 exceeds 32-bit range"},
      {"alpha NaN", "shapes:\n  - {m: 4, n: 4, k: 4, alpha: .nan}\n",
       "s.yaml:2: alpha '.nan' is not a number"},
      {"duplicate, keys reordered", "shapes:\n  - {m: 8, n: 8, k: 8}\n  - {k: 8, n: 8, m: 8}\n",
       "s.yaml:3: duplicate of line 2"},
  };
  expect_all_rejected(cases, [](const std::string& text) { parse_shape_yaml(text, "s.yaml"); });
}

TEST(BadInput, SearchSpaceIsRejectedWithLineAndReason) {
  const std::vector<BadInput> cases = {
      {"empty file", "", "x.yaml:1: expected a mapping"},
      {"list document", "- family\n", "x.yaml:1: expected a mapping"},
      {"not YAML", "family: f1_simt\nknobs: {BM: [64}\n", "x.yaml:2: "},
      {"missing family", "knobs:\n  BM: [64]\n", "x.yaml:1: missing 'family: NAME'"},
      {"family is a list", "family: [f1_simt]\nknobs: {}\n", "x.yaml:1: missing 'family: NAME'"},
      {"unknown family", "family: f9_magic\nknobs: {}\n", "x.yaml:1: "},
      {"unknown top-level key", "family: f1_simt\ncolour: red\nknobs: {}\n",
       "x.yaml:2: unknown key 'colour' (expected family, knobs, description)"},
      {"non-scalar top-level key", "family: f1_simt\n? [a]\n: 1\n", "x.yaml:2: keys must be names"},
      {"no knobs", "family: f1_simt\n", "x.yaml:1: missing 'knobs:' mapping"},
      {"knobs is a list", "family: f1_simt\nknobs: [BM, BN]\n", "missing 'knobs:' mapping"},
      {"unknown knob", "family: f1_simt\nknobs:\n  COLOUR: [1]\n",
       "x.yaml:3: family f1_simt has no knob 'COLOUR'"},
      {"knob of another family", "family: f1_simt\nknobs:\n  BM: [64]\n  WARPS: [4]\n",
       "x.yaml:4: family f1_simt has no knob 'WARPS'"},
      {"non-scalar knob name", "family: f1_simt\nknobs:\n  ? [BM]\n  : [64]\n",
       "x.yaml:3: knob names must be scalars"},
      {"empty list", "family: f1_simt\nknobs:\n  BM: []\n",
       "x.yaml:3: knob BM needs a non-empty list of integers"},
      {"scalar instead of list", "family: f1_simt\nknobs:\n  BM: 64\n",
       "x.yaml:3: knob BM needs a non-empty list of integers"},
      {"null list", "family: f1_simt\nknobs:\n  BM:\n",
       "knob BM needs a non-empty list of integers"},
      {"word value", "family: f1_simt\nknobs:\n  BM: [64, sixty]\n",
       "x.yaml:3: knob BM: 'sixty' is not an integer"},
      {"fraction value", "family: f1_simt\nknobs:\n  BK: [8.5]\n",
       "x.yaml:3: knob BK: '8.5' is not an integer"},
      {"value beyond int", "family: f1_simt\nknobs:\n  BM: [99999999999]\n",
       "x.yaml:3: knob BM: '99999999999' is not an integer"},
      {"nested list value", "family: f1_simt\nknobs:\n  BM: [[64]]\n",
       "x.yaml:3: knob BM: '' is not an integer"},
      {"knob without values", "family: f4_skinny\nknobs:\n  BS: [16]\n", "x.yaml:3: knob "},
  };
  expect_all_rejected(cases, [](const std::string& text) { parse_family_space(text, "x.yaml"); });
}

TEST(BadInput, SearchSpacePathsThatHoldNoSpace) {
  const fs::path dir = fs::temp_directory_path() / ("sgt_bad_space_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "notes.txt") << "not a space\n";
  try {
    load_search_space(dir.string());
    ADD_FAILURE() << "a folder without *.yaml was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir.string() + ": no search-space files"),
              std::string::npos)
        << e.what();
  }
  std::ofstream(dir / "bad.yaml") << "family: f1_simt\nknobs:\n  BM: [x]\n";
  try {
    load_search_space(dir.string());
    ADD_FAILURE() << "a bad space file in a folder was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "bad.yaml").string() + ":3: knob BM"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(load_search_space((dir / "absent.yaml").string()), Error);
  fs::remove_all(dir);
}

TEST(BadInput, SettingsAreRejectedWithLineAndReason) {
  const std::vector<BadInput> cases = {
      {"list document", "- min_samples\n", "m.yaml:1: expected a mapping"},
      {"not YAML", "min_samples: [\n", "m.yaml:2: "},
      {"unknown setting", "min_samples: 20\nmin_sample: 20\n",
       "m.yaml:2: unknown setting 'min_sample'"},
      {"retired setting", "min_samples: 20\nscreen_budget_ms: 100\n",
       "m.yaml:2: setting 'screen_budget_ms' is no longer read: screening is sized by "
       "screen_samples and screen_max_ms"},
      {"non-scalar key", "? [min_samples]\n: 20\n", "m.yaml:1: setting names must be scalars"},
      {"word for a count", "min_samples: many\n",
       "m.yaml:1: setting 'min_samples' has an invalid value 'many'"},
      {"fraction for a count", "finalists: 2.5\n",
       "m.yaml:1: setting 'finalists' has an invalid value '2.5'"},
      {"count beyond int", "min_rounds: 99999999999\n",
       "m.yaml:1: setting 'min_rounds' has an invalid value"},
      {"word for a duration", "timeout_s: long\n",
       "m.yaml:1: setting 'timeout_s' has an invalid value 'long'"},
      {"list for a duration", "timeout_s: [1, 2]\n",
       "m.yaml:1: setting 'timeout_s' has an invalid value '(not a scalar)'"},
      {"list for a string", "clock_policy: [observe]\n",
       "m.yaml:1: setting 'clock_policy' has an invalid value"},
      {"negative duration", "timeout_s: -1\n",
       "m.yaml:1: setting 'timeout_s' has an invalid value '-1' (must be finite and >= 0)"},
      {"negative count", "min_samples: -5\n",
       "m.yaml:1: setting 'min_samples' has an invalid value '-5' (must be"},
      {"NaN", "max_noise: .nan\n",
       "m.yaml:1: setting 'max_noise' has an invalid value '.nan' (must be"},
      {"infinite", "\n\ntimeout_s: .inf\n",
       "m.yaml:3: setting 'timeout_s' has an invalid value '.inf' (must be"},
      {"negative tolerance", "tolerance_factor: -4\n",
       "m.yaml:1: setting 'tolerance_factor' has an invalid value"},
  };
  expect_all_rejected(cases,
                      [](const std::string& text) { parse_tuning_settings(text, "m.yaml"); });
  EXPECT_NO_THROW(parse_tuning_settings("", "m.yaml"));  // empty: every default
  EXPECT_NO_THROW(parse_tuning_settings("# only a comment\n", "m.yaml"));
  EXPECT_THROW(load_tuning_settings("/nonexistent/measure.yaml"), Error);
}

// ---- The sgemm-tune command ----

struct CliRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

CliRun run_cli(const std::vector<std::string>& args) {
  std::string command = shell_quote(SGEMM_BINARY_DIR "/src/sgemm-tune");
  for (const std::string& a : args) command += " " + shell_quote(a);
  command += " 2>&1 </dev/null";
  CliRun r;
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer;
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    r.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(SGEMM_BINARY_DIR "/src/sgemm-tune")) GTEST_SKIP() << "sgemm-tune not built";
    dir_ = fs::temp_directory_path() / ("sgt_cli_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string db() const { return (dir_ / "cli.db").string(); }
  fs::path dir_;
};

TEST_F(Cli, MisuseExitsTwoWithUsage) {
  const std::string good = write("good.csv", "m,n,k\n64,64,64\n");
  struct Misuse {
    const char* what;
    std::vector<std::string> args;
    const char* expected;
  };
  const std::vector<Misuse> cases = {
      {"no verb", {}, "subcommand"},
      {"unknown verb", {"frobnicate"}, "unknown verb 'frobnicate'"},
      {"unknown flag", {"--frobnicate", "list"}, "frobnicate"},
      {"tune without --shapes", {"tune"}, "--shapes"},
      {"tune with an unknown option", {"tune", "--shapes", good, "--colour", "red"}, "colour"},
      {"tune with a bad clock policy",
       {"tune", "--shapes", good, "--clocks", "sometimes"},
       "sometimes"},
      {"tune with a non-number", {"tune", "--shapes", good, "--max-candidates", "lots"}, "lots"},
      {"tune with a negative budget", {"tune", "--shapes", good, "--max-candidates", "-3"}, "-3"},
      {"tune with an unknown strategy",
       {"tune", "--shapes", good, "--strategy", "greedy"},
       "greedy"},
      {"tune exhaustive with a candidate budget",
       {"tune", "--shapes", good, "--strategy", "exhaustive", "--max-candidates", "10"},
       "exhaustive"},
      {"tune with --arch but no --compile-only",
       {"tune", "--shapes", good, "--arch", "sm_90"},
       "--compile-only"},
      {"tune with a negative time budget", {"tune", "--shapes", good, "--time-budget", "-1"}, "-1"},
      {"tune with a bad device list", {"tune", "--shapes", good, "--devices", "0,x"}, "0,x"},
      {"query with two sizes", {"query", "64", "64"}, "k"},
      {"query with a word", {"query", "64", "sixty", "64"}, "sixty"},
      {"query with a zero size", {"query", "0", "64", "64"}, "0"},
      {"query with a negative size", {"query", "64", "-64", "64"}, "-64"},
      {"query with an extra argument", {"query", "64", "64", "64", "64"}, "64"},
      {"bench without --shapes", {"bench"}, "--shapes"},
  };
  for (const Misuse& c : cases) {
    const CliRun r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.what << ":\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.what << ":\n" << r.output;
    EXPECT_TRUE(r.output.find("--help") != std::string::npos ||
                r.output.find("Usage") != std::string::npos ||
                r.output.find("usage") != std::string::npos)
        << c.what << ": no usage hint:\n"
        << r.output;
  }
}

// Bad input files exit 2 with the file:line message, before any GPU or database work.
TEST_F(Cli, BadInputFilesExitTwoNamingFileAndLine) {
  const std::string bad = write("bad.csv", "m,n,k\n64,64,64\n64,x,64\n");
  const std::string overflow = write("big.yaml", "shapes:\n  - {m: 65536, n: 65536, k: 2}\n");
  struct BadFileRun {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<BadFileRun> cases = {
      {{"tune", "--shapes", bad, "--db", db()}, bad + ":3: n 'x' is not an integer"},
      {{"tune", "--shapes", overflow, "--db", db()},
       overflow + ":2: an operand spans more than 2^31 - 1"},
      {{"tune", "--shapes", (dir_ / "absent.csv").string(), "--db", db()},
       "absent.csv: cannot open shape list"},
      {{"bench", "--shapes", bad, "--db", db()}, bad + ":3: n 'x'"},
  };
  for (const BadFileRun& c : cases) {
    const CliRun r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(db())) << "a rejected input must not create the database";
}

TEST_F(Cli, GpuVerbWithoutGpuExitsThreeWithOneLine) {
  if (gpu_unavailable_reason().empty())
    GTEST_SKIP() << "a GPU is usable here: this checks GPU-less machines";
  const std::string good = write("good.csv", "m,n,k\n64,64,64\n");
  const std::vector<std::vector<std::string>> commands = {
      {"tune", "--shapes", good, "--db", db()},
      {"tune", "--shapes", good, "--db", db(), "--devices", "all"},
      {"tune", "--shapes", good, "--db", db(), "--devices", "0,1"},
      {"bench", "--shapes", good, "--db", db()}};
  for (const std::vector<std::string>& args : commands) {
    const CliRun r = run_cli(args);
    const std::string what = args[0] + (args.size() > 5 ? " " + args[5] + " " + args[6] : "");
    EXPECT_EQ(r.exit_code, 3) << what << ":\n" << r.output;
    ASSERT_FALSE(r.output.empty()) << what;
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << what << ": not one line:\n" << r.output;
    EXPECT_NE(r.output.find("needs a GPU"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(fs::exists(db())) << "a GPU-less tune must not create the database";
}

}  // namespace
}  // namespace sgt
