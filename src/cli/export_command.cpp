// `sgemm-tune export` and `import`: the database as a text dump (JSON, one record per line) and
// back, merging into an existing database. Import rebuilds winners' cubins for their
// architecture with NVRTC (no GPU needed), so the dispatcher needs no JIT on first call.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_common.hpp"
#include "common/error.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "jit/nvrtc_compiler.hpp"
#include "jit/templates.hpp"
#include "space/family.hpp"

namespace sgt::cli {
namespace {

int run_export(const std::string& db_path, const std::string& output, bool winners_only,
               bool cubins) {
  Database db = Database::open(db_path, OpenMode::read_only);
  TuningStore store(db);
  ExportOptions options;
  options.include_candidates = !winners_only;
  options.include_cubins = cubins;
  const std::string text = store.export_json(options);
  if (output.empty() || output == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::ofstream out(output, std::ios::binary);
    out << text;
    if (!out) throw Error(ErrorKind::invalid_value, fmt::format("{}: cannot write", output));
  }
  return kExitOk;
}

// Compiles each winner that has no cubin (text dumps carry none), when its template is unchanged.
int rebuild_cubins(TuningStore& store) {
  int built = 0;
  for (WinnerRecord w : store.winners("", true)) {
    if (w.family == kCublasFamily || w.family == kCublasLtFamily || !w.cubin.empty()) continue;
    const Family& family = find_family(w.family);
    if (template_hash(family.name() + ".cu") != w.template_hash) {
      spdlog::warn(
          "{}: template changed since tuning; the dispatcher serves it with cuBLAS until it is "
          "tuned again",
          w.problem.to_string());
      continue;
    }
    const CompileResult r = compile_template(
        family.name() + ".cu", family.defines(parse_knobs(w.config), w.problem), w.gpu.arch);
    if (!r.ok) {
      spdlog::warn("{}: {} no longer compiles; left for JIT", w.problem.to_string(), w.config);
      continue;
    }
    w.cubin.assign(r.cubin.begin(), r.cubin.end());
    w.cubin_arch = w.gpu.arch;
    store.set_winner(w);
    ++built;
  }
  return built;
}

int run_import(const std::string& db_path, const std::string& input, bool build_cubins, bool json) {
  std::stringstream text;
  if (input == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(input, std::ios::binary);
    if (!in) throw Error(ErrorKind::invalid_value, fmt::format("{}: cannot open", input));
    text << in.rdbuf();
  }
  const auto parent = std::filesystem::path(db_path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  Database db = Database::open(db_path, OpenMode::create);
  TuningStore store(db);
  const ImportSummary s = store.import_json(text.str());
  const int built = build_cubins ? rebuild_cubins(store) : 0;
  if (json) {
    const nlohmann::ordered_json out = {{"database", db_path},        {"gpus", s.gpus},
                                        {"software", s.software},     {"runs", s.runs},
                                        {"candidates", s.candidates}, {"winners", s.winners},
                                        {"cubins_compiled", built}};
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  spdlog::info("imported {} winners, {} candidates, {} runs into {}; {} cubins compiled", s.winners,
               s.candidates, s.runs, db_path, built);
  return kExitOk;
}

}  // namespace

void add_export_commands(CLI::App& app, int& exit_code) {
  struct Args {
    std::string db, file;
    bool winners_only = false, cubins = false, no_build = false, json = false;
  };
  auto e = std::make_shared<Args>();
  CLI::App* ex = app.add_subcommand("export", "Write the database as a text dump (JSON lines)");
  ex->add_option("--db", e->db, "Tuning database");
  ex->add_option("-o,--output", e->file, "Output file (default: standard output)");
  ex->add_flag("--winners-only", e->winners_only, "Only the winners (no runs or candidates)");
  ex->add_flag("--cubins", e->cubins, "Include winners' cubins (base64)");
  ex->callback([e, &exit_code] {
    exit_code = run_export(e->db.empty() ? default_database_path() : e->db, e->file,
                           e->winners_only, e->cubins);
  });

  auto i = std::make_shared<Args>();
  CLI::App* im = app.add_subcommand("import", "Merge a text dump into a database");
  im->add_option("file", i->file, "Dump to read ('-': standard input)")->required();
  im->add_option("--db", i->db, "Tuning database (created if missing)");
  im->add_flag("--no-cubins", i->no_build, "Do not compile winners' cubins");
  im->add_flag("--json", i->json, "Print what was imported as JSON");
  im->callback([i, &exit_code] {
    exit_code =
        run_import(i->db.empty() ? default_database_path() : i->db, i->file, !i->no_build, i->json);
  });
}

}  // namespace sgt::cli
