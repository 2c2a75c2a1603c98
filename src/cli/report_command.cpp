// `sgemm-tune report`: every tuned problem against cuBLAS and the hardware (Markdown, CSV or
// JSON), and with --plot the roofline and speedup pictures drawn by gnuplot. No GPU needed.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <fstream>

#include "cli/cli_common.hpp"
#include "common/error.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "report/format.hpp"
#include "report/plot.hpp"
#include "report/problem_report.hpp"
#include "report/terminal.hpp"

namespace sgt::cli {
namespace {

struct ReportArgs {
  std::string db, arch, format = "markdown", output, plot;
  bool json = false;
  double bandwidth_tbps = report::kDefaultBandwidthTbps;
};

int run_report(const ReportArgs& a) {
  Database db = Database::open(a.db, OpenMode::read_only);
  TuningStore store(db);
  report::ReportOptions options;
  options.arch = a.arch;
  options.bandwidth_tbps = a.bandwidth_tbps;
  const std::vector<report::ProblemReport> reports = report::build_report(store, options);

  const std::string format = a.json ? "json" : a.format;
  const bool to_stdout = a.output.empty() || a.output == "-";
  std::string text;
  if (format == "csv")
    text = report::format_csv(reports);
  else if (format == "json")
    text = report::format_json(reports);
  else
    text = report::format_markdown(reports, to_stdout && report::colour_enabled(stdout));
  if (to_stdout) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::ofstream out(a.output, std::ios::binary);
    out << text;
    if (!out) throw Error(ErrorKind::invalid_value, fmt::format("{}: cannot write", a.output));
    spdlog::info("wrote the report of {} problems to {}", reports.size(), a.output);
  }

  if (!a.plot.empty()) {
    if (reports.empty()) {
      spdlog::error("--plot: no tuned problems in {}{}", a.db,
                    a.arch.empty() ? "" : " for " + a.arch);
      return kExitError;
    }
    const std::vector<std::string> pictures = report::draw_plots(reports, a.plot);
    spdlog::info("wrote {} pictures to {} (gnuplot scripts and data beside them)", pictures.size(),
                 a.plot);
  }
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ReportArgs>();
  CLI::App* cmd =
      app.add_subcommand("report", "Tuned vs cuBLAS and the roofline, per problem (no GPU needed)");
  cmd->add_option("--db", a->db, "Tuning database");
  cmd->add_option("--arch", a->arch, "Only this architecture, e.g. sm_90");
  cmd->add_option("--format", a->format, "markdown (default), csv or json")
      ->check(CLI::IsMember({"markdown", "csv", "json"}));
  cmd->add_flag("--json", a->json, "Same as --format json");
  cmd->add_option("-o,--output", a->output,
                  "Write the report to this file (default: standard output)");
  cmd->add_option("--plot", a->plot,
                  "Also draw roofline and speedup charts (PNG, SVG) into this folder");
  cmd->add_option("--bandwidth-tbps", a->bandwidth_tbps,
                  "Memory ceiling in TB/s (default 4.3, H200 HBM3e)")
      ->check(CLI::PositiveNumber);
  cmd->callback([a, &exit_code] {
    report::log_to_stderr();
    if (a->db.empty()) a->db = default_database_path();
    exit_code = run_report(*a);
  });
}

}  // namespace sgt::cli
