// sgemm-tune: tune SGEMM kernels for the local GPU, query and list what was found.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <string>

#include "cli/cli_common.hpp"
#include "common/error.hpp"
#include "report/terminal.hpp"

int main(int argc, char** argv) {
  // Log lines go to stderr, so stdout carries only results (tables, JSON, CSV).
  sgt::report::log_to_stderr();
  CLI::App app{
      "sgemm-tune: an SGEMM autotuner (NVRTC kernels, verified against cuBLAS, stored in SQLite)",
      "sgemm-tune"};
  app.require_subcommand(1);
  // --quiet and --verbose after the verb too: a verb hands options it does not know to the app.
  app.fallthrough();
  bool verbose = false, quiet = false;
  app.add_flag("-v,--verbose", verbose, "More log output");
  app.add_flag("-q,--quiet", quiet, "Only errors");
  int exit_code = sgt::cli::kExitOk;
  sgt::cli::add_tune_command(app, exit_code);
  sgt::cli::add_query_command(app, exit_code);
  sgt::cli::add_list_command(app, exit_code);
  sgt::cli::add_bench_command(app, exit_code);
  sgt::cli::add_export_commands(app, exit_code);
  sgt::cli::add_report_command(app, exit_code);
  sgt::cli::add_explain_command(app, exit_code);
  sgt::cli::add_merge_command(app, exit_code);
  app.parse_complete_callback([&] {
    spdlog::set_pattern("%^%l%$: %v");
    spdlog::set_level(quiet     ? spdlog::level::err
                      : verbose ? spdlog::level::debug
                                : spdlog::level::info);
  });
  // CLI11 reports a mistyped verb only as "a subcommand is required": name it.
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.starts_with("-")) continue;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) known |= sub->get_name() == word;
    if (!known) {
      std::fprintf(stderr, "sgemm-tune: unknown verb '%s'\n%s", word.c_str(), app.help().c_str());
      return sgt::cli::kExitUsage;
    }
    break;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : sgt::cli::kExitUsage;
  } catch (const sgt::Error& e) {
    spdlog::error("{}", e.what());
    return e.kind() == sgt::ErrorKind::invalid_value ? sgt::cli::kExitUsage : sgt::cli::kExitError;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return sgt::cli::kExitError;
  }
  return exit_code;
}
