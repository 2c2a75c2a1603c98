// Shared pieces of the sgemm-tune verbs: default paths, exit codes, output helpers.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace sgt::cli {

// Exit codes (documented in README.md).
constexpr int kExitOk = 0;
constexpr int kExitError = 1;       // runtime failure (database, CUDA, compile)
constexpr int kExitUsage = 2;       // bad arguments or input files
constexpr int kExitNoGpu = 3;       // the verb needs a GPU and none is usable
constexpr int kExitInterrupted = 130;

// $SGEMM_TUNER_DB, else $XDG_DATA_HOME (or ~/.local/share)/sgemm-tune/tuning.db.
std::string default_database_path();
// configs/<relative> under the working directory if present, else the installed copy.
std::string default_config_path(const std::string& relative);

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
