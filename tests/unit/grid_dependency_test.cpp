// The host launches a call's second kernel as a programmatic dependent of its first
// (src/jit/sgemm_kernel.cpp: sgemm_reduce after sgemm_main, sgemm_main after a pack kernel), so
// it may start before the first one ends. Each such kernel has to wait for it
// (wait_for_prior_grid, kernel_templates/grid_dependency.cuh) before anything else, or it reads
// partial sums or operand copies still being written.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "jit/templates.hpp"
#include "space/family.hpp"

namespace sgt {
namespace {

// The first statement of each definition of kernel `name` in `source` (a `using namespace`
// skipped), or "" where the definition has no body.
std::vector<std::string> first_statements(std::string_view source, const std::string& name) {
  std::vector<std::string> out;
  const std::string signature = name + "(SgemmArgs args";
  for (auto at = source.find(signature); at != std::string_view::npos;
       at = source.find(signature, at + 1)) {
    auto pos = source.find('{', at);
    std::string statement;
    while (pos != std::string_view::npos) {
      const auto end = source.find(';', pos + 1);
      if (end == std::string_view::npos) break;
      statement = std::string(source.substr(pos + 1, end - pos - 1));
      statement.erase(0, statement.find_first_not_of(" \n"));
      if (!statement.starts_with("using namespace")) break;
      pos = end;
    }
    out.push_back(statement);
  }
  return out;
}

TEST(GridDependency, EveryDependentKernelWaitsForTheKernelAheadFirst) {
  int checked = 0;
  for (const Family* family : families()) {
    const std::string file = family->name() + ".cu";
    SCOPED_TRACE(file);
    const std::string_view source = template_source(file);
    std::vector<std::string> dependents = {"sgemm_reduce"};
    if (source.find("sgemm_pack") != std::string_view::npos) dependents.push_back("sgemm_main");
    for (const std::string& kernel : dependents) {
      for (const std::string& statement : first_statements(source, kernel)) {
        EXPECT_EQ(statement, "wait_for_prior_grid()") << kernel;
        ++checked;
      }
    }
  }
  // sgemm_reduce of f1_simt and f4_skinny, f2_tma's sgemm_main (it has the pack kernels).
  EXPECT_GE(checked, 3);
}

TEST(GridDependency, FirstStatementSkipsUsingAndFindsEachDefinition) {
  const std::string source =
      "void sgemm_reduce(SgemmArgs args) {\n  using namespace f1;\n  wait_for_prior_grid();  // "
      "x\n}\n"
      "void sgemm_reduce(SgemmArgs args) {\n  float s = 0;\n  wait_for_prior_grid();\n}\n";
  const auto got = first_statements(source, "sgemm_reduce");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "wait_for_prior_grid()");
  EXPECT_EQ(got[1], "float s = 0");
}

}  // namespace
}  // namespace sgt
