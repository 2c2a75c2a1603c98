// Default locations (the per-user database, the configs shipped with the install) and the
// problem arguments of the verbs that look one up.
#include "cli/cli_common.hpp"

#include <cstdlib>
#include <filesystem>

#include "common/error.hpp"
#include "common/install_paths.hpp"

namespace sgt::cli {

std::string default_database_path() {
  if (const char* env = std::getenv("SGEMM_TUNER_DB"); env && *env) return env;
  std::filesystem::path base;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
    base = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home)
    base = std::filesystem::path(home) / ".local" / "share";
  else
    base = ".";
  return (base / "sgemm-tune" / "tuning.db").string();
}

std::string default_config_path(const std::string& relative) {
  const std::filesystem::path local = std::filesystem::path("configs") / relative;
  if (std::filesystem::exists(local)) return local.string();
  // The installed configs, found from where this executable is (the install may have moved).
  return (beside_executable(SGEMM_INSTALLED_CONFIGS) / relative).string();
}

void add_problem_options(CLI::App& cmd, ProblemArgs& p) {
  cmd.add_option("m", p.m, "Rows of C")->required()->check(CLI::PositiveNumber);
  cmd.add_option("n", p.n, "Columns of C")->required()->check(CLI::PositiveNumber);
  cmd.add_option("k", p.k, "Inner dimension")->required()->check(CLI::PositiveNumber);
  cmd.add_option("--trans", p.trans, "op(A) op(B): NN, NT, TN or TT");
  cmd.add_option("--lda", p.lda, "Leading dimension of A (default: minimal)");
  cmd.add_option("--ldb", p.ldb, "Leading dimension of B (default: minimal)");
  cmd.add_option("--ldc", p.ldc, "Leading dimension of C (default: minimal)");
  cmd.add_option("--align", p.align, "Alignment class in floats (4, 2, 1; default from the ld's)");
}

ProblemKey problem_key(const ProblemArgs& p) {
  if (p.trans.size() != 2)
    throw Error(ErrorKind::invalid_value, "--trans takes two letters, e.g. NN or TN");
  ProblemKey key = with_minimal_leading_dimensions({.transa = parse_op(p.trans[0]),
                                                    .transb = parse_op(p.trans[1]),
                                                    .m = p.m,
                                                    .n = p.n,
                                                    .k = p.k,
                                                    .lda = p.lda,
                                                    .ldb = p.ldb,
                                                    .ldc = p.ldc});
  key.align = p.align > 0 ? p.align : alignment_class(key.lda, key.ldb, key.ldc, 0, 0, 0);
  if (const std::string why = validate(key); !why.empty())
    throw Error(ErrorKind::invalid_value, why);
  return key;
}

}  // namespace sgt::cli
