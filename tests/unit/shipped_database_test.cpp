// The shipped tuning dumps (tuner_db/*.json): they import, and every own-kernel winner was tuned
// with this build's templates and knobs. The dispatcher serves a winner of another template
// version with cuBLAS, so a template edit without a retune would quietly give up the tuning.
#include <gtest/gtest.h>

#include <filesystem>

#include "db/database.hpp"
#include "db/records.hpp"
#include "db/tuning_store.hpp"
#include "jit/templates.hpp"
#include "space/family.hpp"
#include "space/knobs.hpp"
#include "support/gpu_support.hpp"
#include "support/temp_dir.hpp"

namespace sgt {
namespace {

std::vector<std::filesystem::path> shipped_dumps() {
  std::vector<std::filesystem::path> dumps;
  for (const auto& e : std::filesystem::directory_iterator(testing::source_path("tuner_db")))
    if (e.path().extension() == ".json") dumps.push_back(e.path());
  return dumps;
}

TEST(ShippedDatabase, OwnWinnersMatchThisBuildsTemplatesAndKnobs) {
  const auto dumps = shipped_dumps();
  ASSERT_FALSE(dumps.empty());
  for (const auto& dump : dumps) {
    SCOPED_TRACE(dump.filename().string());
    testing::TempDir dir;
    Database db = Database::open(dir.file("shipped.db"), OpenMode::create);
    TuningStore store(db);
    const ImportSummary imported = store.import_json(testing::read_bytes(dump.string()));
    EXPECT_GT(imported.winners, 0);

    int own = 0;
    for (const WinnerRecord& w : store.winners()) {
      if (w.family == kCublasFamily || w.family == kCublasLtFamily) continue;
      ++own;
      const Family& family = find_family(w.family);
      EXPECT_EQ(w.template_hash, template_hash(family.name() + ".cu"))
          << w.problem.to_string() << ": tuned with another version of " << family.name()
          << ".cu; tune the shipped problems again and export";
      const Knobs knobs = parse_knobs(w.config);
      EXPECT_EQ(family.cannot_implement(knobs, w.problem), "")
          << w.problem.to_string() << " " << w.config;
    }
    EXPECT_GT(own, 0) << "no winner of an own kernel family";
  }
}

// The shipped dumps are `export --winners-only` output: importing one and exporting it again
// gives the same bytes, so a regenerated file differs only where the tuning did.
TEST(ShippedDatabase, DumpsRoundTripByteForByte) {
  for (const auto& dump : shipped_dumps()) {
    SCOPED_TRACE(dump.filename().string());
    testing::TempDir dir;
    Database db = Database::open(dir.file("shipped.db"), OpenMode::create);
    TuningStore store(db);
    const std::string text = testing::read_bytes(dump.string());
    store.import_json(text);
    EXPECT_EQ(store.export_json({.include_candidates = false}), text);
  }
}

}  // namespace
}  // namespace sgt
