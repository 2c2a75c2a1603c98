// Shared pieces of the sgemm-tune verbs: default paths, exit codes, the problem arguments.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "space/problem.hpp"

namespace sgt::cli {

// Exit codes (documented in README.md).
constexpr int kExitOk = 0;
constexpr int kExitError = 1;  // runtime failure (database, CUDA, compile)
constexpr int kExitUsage = 2;  // bad arguments or input files
constexpr int kExitNoGpu = 3;  // the verb needs a GPU and none is usable
constexpr int kExitInterrupted = 130;

// $SGEMM_TUNER_DB, else $XDG_DATA_HOME (or ~/.local/share)/sgemm-tune/tuning.db.
std::string default_database_path();
// configs/<relative> under the working directory if present, else the installed copy.
std::string default_config_path(const std::string& relative);

// A problem as `query` and `explain` take it: M N K, --trans, --lda/--ldb/--ldc, --align.
struct ProblemArgs {
  int m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0, align = 0;
  std::string trans = "NN";
};
void add_problem_options(CLI::App& cmd, ProblemArgs& p);
// The database key: minimal leading dimensions where none are given, the alignment class from
// them unless --align says. Throws Error(invalid_value) for a malformed problem.
ProblemKey problem_key(const ProblemArgs& p);

// Registers each verb on the app; each returns the callback's exit code through `exit_code`.
void add_tune_command(CLI::App& app, int& exit_code);
void add_query_command(CLI::App& app, int& exit_code);
void add_list_command(CLI::App& app, int& exit_code);
void add_bench_command(CLI::App& app, int& exit_code);
void add_export_commands(CLI::App& app, int& exit_code);
void add_report_command(CLI::App& app, int& exit_code);
void add_explain_command(CLI::App& app, int& exit_code);
void add_merge_command(CLI::App& app, int& exit_code);

}  // namespace sgt::cli
