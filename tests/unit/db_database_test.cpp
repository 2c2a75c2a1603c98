// Database open sequence (create, reopen, WAL, versions, migration, refusing foreign, newer and
// corrupt files without touching them) and the Statement and Transaction wrappers.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "common/error.hpp"
#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "support/temp_dir.hpp"

namespace sgt {
const std::map<std::string, std::string_view, std::less<>>& embedded_schema();
}

namespace {

namespace fs = std::filesystem;
using sgt::Database;
using sgt::OpenMode;
using sgt::Statement;
using sgt::Transaction;

using sgt::testing::read_bytes;
using sgt::testing::TempDir;
using sgt::testing::write_bytes;

// A database made with plain SQLite, as another tool or an older sgemm-tune would leave it.
void make_raw_database(const std::string& path, const std::string& script) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, script.c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

std::int64_t count(Database& db, const char* sql) {
  Statement s(db, sql);
  EXPECT_TRUE(s.step());
  return s.column_int64(0);
}

// Expects open to throw a database error whose message contains every fragment.
void expect_open_error(const std::string& path, OpenMode mode,
                       const std::vector<std::string>& fragments) {
  try {
    Database::open(path, mode);
    ADD_FAILURE() << "opening " << path << " should have failed";
  } catch (const sgt::Error& e) {
    EXPECT_EQ(e.kind(), sgt::ErrorKind::database);
    for (const auto& fragment : fragments)
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
          << "'" << fragment << "' not in: " << e.what();
  }
}

// Tables, columns, indexes and foreign keys as SQLite reports them, to compare two schemas.
std::vector<std::string> describe_schema(Database& db) {
  std::vector<std::string> out;
  Statement tables(db,
                   "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE "
                   "'sqlite_%' ORDER BY name");
  while (tables.step()) {
    const std::string table = tables.column_text(0);
    Statement columns(db,
                      "SELECT cid, name, type, \"notnull\", ifnull(dflt_value, 'NULL'), pk "
                      "FROM pragma_table_info(?1)");
    columns.bind(1, table);
    while (columns.step())
      out.push_back(table + " column " + columns.column_text(0) + " " + columns.column_text(1) +
                    " " + columns.column_text(2) + " notnull=" + columns.column_text(3) +
                    " default=" + columns.column_text(4) + " pk=" + columns.column_text(5));
    Statement indexes(db,
                      "SELECT il.\"unique\", group_concat(ii.name, ',') FROM "
                      "pragma_index_list(?1) il, pragma_index_info(il.name) ii "
                      "GROUP BY il.name ORDER BY 2, 1");
    indexes.bind(1, table);
    while (indexes.step())
      out.push_back(table + " index unique=" + indexes.column_text(0) + " (" +
                    indexes.column_text(1) + ")");
    Statement keys(db,
                   "SELECT \"from\", \"table\", \"to\", on_delete FROM "
                   "pragma_foreign_key_list(?1) ORDER BY 1");
    keys.bind(1, table);
    while (keys.step())
      out.push_back(table + " fk " + keys.column_text(0) + " -> " + keys.column_text(1) + "." +
                    keys.column_text(2) + " on delete " + keys.column_text(3));
  }
  return out;
}

TEST(Database, CreatesCurrentSchemaInWalMode) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  Database db = Database::open(path, OpenMode::create);
  EXPECT_TRUE(fs::exists(path));
  EXPECT_EQ(db.user_version(), Database::schema_version());
  EXPECT_EQ(db.journal_mode(), "wal");
  EXPECT_EQ(count(db, "PRAGMA foreign_keys"), 1);
  for (const char* table : {"gpus", "software", "problems", "runs", "candidates", "winners"}) {
    Statement s(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1");
    s.bind(1, table);
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.column_int(0), 1) << table;
  }
  EXPECT_EQ(db.integrity_check(), "ok");
}

TEST(Database, SchemaVersionIsTheLastOfContiguousMigrations) {
  int highest = 0;
  for (const auto& [name, sql] : sgt::embedded_schema()) {
    if (name == "schema.sql") continue;
    ++highest;
    EXPECT_EQ(std::stoi(name.substr(0, 4)), highest) << name;
    EXPECT_FALSE(sql.empty()) << name;
  }
  EXPECT_GE(highest, 2);
  EXPECT_EQ(Database::schema_version(), highest);
}

TEST(Database, ReopensWithDataInEveryMode) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  {
    Database db = Database::open(path, OpenMode::create);
    Statement s(db, "INSERT INTO software (driver, runtime, nvrtc, cublas) VALUES (?, ?, ?, ?)");
    s.bind(1, "580.1").bind(2, "13.0").bind(3, "13.0").bind(4, "13.1.0");
    s.run();
  }
  for (OpenMode mode : {OpenMode::create, OpenMode::read_write, OpenMode::read_only}) {
    Database db = Database::open(path, mode);
    EXPECT_EQ(db.user_version(), Database::schema_version());
    Statement s(db, "SELECT driver, cublas FROM software");
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.column_text(0), "580.1");
    EXPECT_EQ(s.column_text(1), "13.1.0");
    EXPECT_FALSE(s.step());
  }
}

TEST(Database, ReadOnlyOpenDoesNotWrite) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  Database::open(path, OpenMode::create);
  Database db = Database::open(path, OpenMode::read_only);
  EXPECT_THROW(db.exec("INSERT INTO software (driver, runtime, nvrtc, cublas) "
                       "VALUES ('a', 'b', 'c', 'd')"),
               sgt::Error);
}

// An installed database: a WAL-mode file in a directory the reader may not write, so SQLite
// cannot create the -shm file a WAL reader normally needs.
TEST(Database, ReadOnlyOpenWorksInAReadOnlyDirectory) {
  TempDir dir;
  const std::string path = dir.file("installed.db");
  {
    Database db = Database::open(path, OpenMode::create);
    db.exec("INSERT INTO software (driver, runtime, nvrtc, cublas) VALUES ('a', 'b', 'c', 'd')");
  }
  ASSERT_FALSE(fs::exists(path + "-wal"));
  const fs::path folder = fs::path(path).parent_path();
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
  // root writes anywhere: the reader drops to an unprivileged user in a child process.
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int code = 0;
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) code = 2;
    try {
      Database db = Database::open(path, OpenMode::read_only);
      if (count(db, "SELECT count(*) FROM software") != 1) code = 3;
    } catch (const std::exception& e) {
      fprintf(stderr, "%s\n", e.what());
      code = 1;
    }
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  fs::permissions(folder, fs::perms::owner_all);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: open failed (see stderr), 2: setuid, 3: wrong data";
}

TEST(Database, MissingFileIsAnErrorNamingThePath) {
  TempDir dir;
  const std::string path = dir.file("absent.db");
  expect_open_error(path, OpenMode::read_only, {path, "does not exist"});
  expect_open_error(path, OpenMode::read_write, {path, "does not exist"});
  EXPECT_FALSE(fs::exists(path));
}

TEST(Database, DirectoryIsRefused) {
  TempDir dir;
  fs::create_directory(dir.file("sub"));
  expect_open_error(dir.file("sub"), OpenMode::create, {"is a directory"});
}

TEST(Database, EmptyFileGetsTheSchema) {
  TempDir dir;
  const std::string path = dir.file("empty.db");
  write_bytes(path, "");
  expect_open_error(path, OpenMode::read_only, {path, "empty"});
  Database db = Database::open(path, OpenMode::read_write);
  EXPECT_EQ(db.user_version(), Database::schema_version());
}

TEST(Database, NewerVersionIsRefusedAndLeftByteIdentical) {
  TempDir dir;
  const std::string path = dir.file("newer.db");
  const int newer = Database::schema_version() + 5;
  make_raw_database(path,
                    "PRAGMA journal_mode = WAL; CREATE TABLE future (x); "
                    "INSERT INTO future VALUES (42); PRAGMA user_version = " +
                        std::to_string(newer) + ";");
  const std::string before = read_bytes(path);
  ASSERT_FALSE(before.empty());
  for (OpenMode mode : {OpenMode::create, OpenMode::read_write, OpenMode::read_only})
    expect_open_error(path, mode, {path, "version " + std::to_string(newer), "newer"});
  EXPECT_EQ(read_bytes(path), before);
}

TEST(Database, NonDatabaseFileIsRefusedAndUntouched) {
  TempDir dir;
  const std::string path = dir.file("notes.txt");
  std::string text;
  for (int i = 0; i < 200; ++i)
    text += "these are my notes, not a database, line " + std::to_string(i) + "\n";
  write_bytes(path, text);
  for (OpenMode mode : {OpenMode::create, OpenMode::read_write, OpenMode::read_only})
    expect_open_error(path, mode, {path, "not an SQLite database"});
  EXPECT_EQ(read_bytes(path), text);
  EXPECT_FALSE(fs::exists(path + "-wal"));
}

TEST(Database, ForeignSqliteDatabaseIsRefusedAndUntouched) {
  TempDir dir;
  const std::string path = dir.file("other.db");
  make_raw_database(path, "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('x');");
  const std::string before = read_bytes(path);
  for (OpenMode mode : {OpenMode::create, OpenMode::read_write, OpenMode::read_only})
    expect_open_error(path, mode, {path, "not a tuning database"});
  EXPECT_EQ(read_bytes(path), before);
}

// A tuning database large enough to span many pages, closed so the WAL is checkpointed.
void make_populated_database(const std::string& path) {
  Database db = Database::open(path, OpenMode::create);
  sgt::TuningStore store(db);
  sgt::GpuRecord gpu{"NVIDIA H200", "GPU-1", "sm_90", 132, 60 << 20, 1980};
  sgt::SoftwareRecord sw{"580.1", "13.0", "13.0", "13.1.0"};
  db.write_transaction([&] {
    for (int i = 0; i < 300; ++i) {
      Statement s(db,
                  "INSERT INTO problems (transa, transb, m, n, k, lda, ldb, ldc, align) "
                  "VALUES ('N', 'N', ?1, 64, 64, ?1, 64, ?1, 4)");
      s.bind(1, 64 + i);
      s.run();
    }
  });
  sgt::CandidateRecord c;
  c.problem = {sgt::Op::N, sgt::Op::N, 256, 256, 256, 256, 256, 256, 4};
  c.family = "simt";
  c.message = std::string(3000, 'x');
  for (int i = 0; i < 20; ++i) {
    c.config = "tile=" + std::to_string(i);
    store.record_candidate(0, gpu, sw, c);
  }
}

TEST(Database, TruncatedFileIsRefusedAndUntouched) {
  TempDir dir;
  const std::string path = dir.file("truncated.db");
  make_populated_database(path);
  ASSERT_FALSE(fs::exists(path + "-wal"));
  const auto size = fs::file_size(path);
  ASSERT_GT(size, 16u * 4096u);
  fs::resize_file(path, size / 2);
  const std::string before = read_bytes(path);
  for (OpenMode mode : {OpenMode::read_write, OpenMode::read_only, OpenMode::create})
    expect_open_error(path, mode, {path, "corrupt", "left as it is"});
  EXPECT_EQ(read_bytes(path), before);
}

TEST(Database, OverwrittenPagesAreRefusedAndUntouched) {
  TempDir dir;
  const std::string path = dir.file("scribbled.db");
  make_populated_database(path);
  std::string bytes = read_bytes(path);
  // Garbage over pages 2..4 (b-tree pages of the schema's tables), the header left intact.
  for (std::size_t i = 4096; i < 4 * 4096 && i < bytes.size(); ++i)
    bytes[i] = static_cast<char>((i * 131) & 0xff);
  write_bytes(path, bytes);
  for (OpenMode mode : {OpenMode::read_write, OpenMode::read_only})
    expect_open_error(path, mode, {path, "corrupt"});
  EXPECT_EQ(read_bytes(path), bytes);
}

// The version-1 schema as the old code left it, with one row in each table that 0002 changes.
void make_version_1(const std::string& path) {
  const std::string v1(sgt::embedded_schema().at("0001_initial.sql"));
  make_raw_database(path, v1 + R"sql(
INSERT INTO gpus VALUES (1, 'NVIDIA H200', 'GPU-1', 'sm_90', 132, 62914560, 1980);
INSERT INTO software VALUES (1, '580.1', '13.0', '13.0', '13.1.0');
INSERT INTO problems VALUES (1, 'N', 'T', 4096, 16, 4096, 4096, 16, 4096, 4);
INSERT INTO candidates (id, problem_id, gpu_id, software_id, family, config, template_hash,
  compile_options, outcome, message, registers, spill_bytes, smem_bytes, screen_median_us,
  screen_min_us, screen_mean_us, screen_stdev_us, screen_samples, screen_discarded,
  screen_sm_clock_mhz, cublas_us)
  VALUES (7, 1, 1, 1, 'simt', 'bm=64', 'abc', '-O3', 'ok', '', 96, 0, 8192, 10.5, 10.0, 10.6,
          0.2, 50, 1, 1980, 12.0);
INSERT INTO winners (problem_id, gpu_name, gpu_arch, gpu_sm_count, gpu_id, software_id, family,
  config, template_hash, compile_options, time_us, cublas_us, tie_band, candidate_id, updated_at)
  VALUES (1, 'NVIDIA H200', 'sm_90', 132, 1, 1, 'simt', 'bm=64', 'abc', '-O3', 10.5, 12.0,
          0.004, 7, '2024-01-01T00:00:00.000Z');
PRAGMA user_version = 1;
)sql");
}

TEST(Database, MigratesVersion1KeepingItsRows) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  make_version_1(path);
  expect_open_error(path, OpenMode::read_only, {path, "version 1", "older"});

  Database db = Database::open(path, OpenMode::read_write);
  EXPECT_EQ(db.user_version(), Database::schema_version());
  EXPECT_EQ(db.journal_mode(), "wal");
  EXPECT_EQ(db.integrity_check(), "ok");

  sgt::TuningStore store(db);
  const sgt::ProblemKey p{sgt::Op::N, sgt::Op::T, 4096, 16, 4096, 4096, 16, 4096, 4};
  const auto winner = store.find_winner(p, "NVIDIA H200", "sm_90");
  ASSERT_TRUE(winner.has_value());
  EXPECT_EQ(winner->config, "bm=64");
  EXPECT_EQ(winner->candidate_id, 7);
  EXPECT_TRUE(winner->cubin.empty());  // column added by 0002: NULL
  EXPECT_EQ(winner->cubin_arch, "");   // column added by 0002: its default
  const auto candidates = store.candidates(p, {"NVIDIA H200", "GPU-1", "sm_90", 132, 0, 0},
                                           {"580.1", "13.0", "13.0", "13.1.0"});
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_FALSE(candidates[0].error.has_value());
  ASSERT_TRUE(candidates[0].screen.has_value());
  EXPECT_DOUBLE_EQ(candidates[0].screen->median_us, 10.5);

  // The migrated file takes the new columns.
  sgt::WinnerRecord w = *winner;
  w.cubin = {1, 2, 3};
  w.cubin_arch = "sm_90";
  store.set_winner(w);
  EXPECT_EQ(store.find_winner(p, "NVIDIA H200", "sm_90")->cubin, w.cubin);
}

// Version 2 as the old code left it: version 1 plus 0002, with a measured candidate.
void make_version_2(const std::string& path) {
  const std::string v1(sgt::embedded_schema().at("0001_initial.sql"));
  const std::string v2(sgt::embedded_schema().at("0002_cubins_and_error.sql"));
  make_raw_database(path, v1 + v2 + R"sql(
INSERT INTO gpus VALUES (1, 'NVIDIA H200', 'GPU-1', 'sm_90', 132, 62914560, 1980);
INSERT INTO software VALUES (1, '580.1', '13.0', '13.0', '13.1.0');
INSERT INTO problems VALUES (1, 'N', 'T', 4096, 16, 4096, 4096, 16, 4096, 4);
INSERT INTO candidates (id, problem_id, gpu_id, software_id, family, config, template_hash,
  compile_options, outcome, message, registers, spill_bytes, smem_bytes, screen_median_us,
  screen_min_us, screen_mean_us, screen_stdev_us, screen_samples, screen_discarded,
  screen_sm_clock_mhz, final_median_us, final_min_us, final_mean_us, final_stdev_us,
  final_samples, final_discarded, final_sm_clock_mhz, cublas_us, error)
  VALUES (7, 1, 1, 1, 'simt', 'bm=64', 'abc', '-O3', 'ok', '', 96, 0, 8192, 10.5, 10.0, 10.6,
          0.2, 50, 1, 1980, 10.4, 10.1, 10.45, 0.05, 40, 3, 1975, 12.0, 3e-8);
PRAGMA user_version = 2;
)sql");
}

TEST(Database, MigratesVersion2KeepingItsRows) {
  TempDir dir;
  const std::string path = dir.file("v2.db");
  make_version_2(path);
  expect_open_error(path, OpenMode::read_only, {path, "version 2", "older"});

  Database db = Database::open(path, OpenMode::read_write);
  EXPECT_EQ(db.user_version(), Database::schema_version());
  EXPECT_EQ(db.integrity_check(), "ok");
  sgt::TuningStore store(db);
  const sgt::ProblemKey p{sgt::Op::N, sgt::Op::T, 4096, 16, 4096, 4096, 16, 4096, 4};
  const sgt::GpuRecord gpu{"NVIDIA H200", "GPU-1", "sm_90", 132, 0, 0};
  const sgt::SoftwareRecord software{"580.1", "13.0", "13.0", "13.1.0"};
  auto rows = store.candidates(p, gpu, software);
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_TRUE(rows[0].final.has_value());
  EXPECT_DOUBLE_EQ(rows[0].final->median_us, 10.4);
  EXPECT_EQ(rows[0].final->discarded, 3);
  EXPECT_DOUBLE_EQ(*rows[0].error, 3e-8);
  // Columns added by 0003: NULL, read as "not observed".
  EXPECT_TRUE(rows[0].screen->conditions == sgt::MeasureConditions{});
  EXPECT_TRUE(rows[0].final->conditions == sgt::MeasureConditions{});
  EXPECT_FALSE(rows[0].cublas_conditions.has_value());

  // The migrated file takes them.
  sgt::CandidateRecord c = rows[0];
  c.final->conditions.power_mw = 401000;
  c.final->conditions.temperature_c = 58;
  c.final->conditions.clock_reasons = 0x4;
  c.final->conditions.cache = "rotate:3";
  c.cublas_conditions = c.final->conditions;
  store.record_candidate(0, gpu, software, c);
  rows = store.candidates(p, gpu, software);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].id, 7);
  EXPECT_TRUE(rows[0].final->conditions == c.final->conditions);
  ASSERT_TRUE(rows[0].cublas_conditions.has_value());
  EXPECT_EQ(rows[0].cublas_conditions->cache, "rotate:3");
}

TEST(Database, Version1MigratesThroughEveryStepToTheConditionsColumns) {
  TempDir dir;
  make_version_1(dir.file("v1.db"));
  Database db = Database::open(dir.file("v1.db"), OpenMode::read_write);
  Statement s(db,
              "SELECT screen_median_us, screen_power_mw IS NULL, final_cache IS NULL, "
              "cublas_temperature_c IS NULL FROM candidates WHERE id = 7");
  ASSERT_TRUE(s.step());
  EXPECT_DOUBLE_EQ(s.column_double(0), 10.5);
  EXPECT_EQ(s.column_int(1), 1);
  EXPECT_EQ(s.column_int(2), 1);
  EXPECT_EQ(s.column_int(3), 1);
}

TEST(Database, MigratedSchemaMatchesTheFreshSchema) {
  TempDir dir;
  make_version_1(dir.file("v1.db"));
  make_version_2(dir.file("v2.db"));
  Database migrated = Database::open(dir.file("v1.db"), OpenMode::read_write);
  Database migrated2 = Database::open(dir.file("v2.db"), OpenMode::read_write);
  Database fresh = Database::open(dir.file("fresh.db"), OpenMode::create);
  const auto expected = describe_schema(fresh);
  EXPECT_GT(expected.size(), 60u);
  EXPECT_EQ(describe_schema(migrated), expected);
  EXPECT_EQ(describe_schema(migrated2), expected);
}

TEST(Database, StatementRoundTripsEveryType) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  db.exec("CREATE TEMP TABLE t (i INTEGER, d REAL, s TEXT, b BLOB, n INTEGER)");
  const std::string text("quote ' and \"double\", newline\n, NUL \0 inside", 44);
  const std::vector<unsigned char> blob = {0, 255, 1, 254};
  Statement insert(db, "INSERT INTO t VALUES (:i, :d, :s, :b, :n)");
  insert.bind(":i", std::int64_t{-9'000'000'000'000'000'000})
      .bind(":d", 0.1)
      .bind(":s", text)
      .bind(":b", blob)
      .bind(":n", std::optional<double>());
  insert.run();
  Statement select(db, "SELECT i, d, s, b, n FROM t");
  ASSERT_TRUE(select.step());
  EXPECT_EQ(select.column_int64(0), -9'000'000'000'000'000'000);
  EXPECT_EQ(select.column_double(1), 0.1);
  EXPECT_EQ(select.column_text(2), text);
  EXPECT_EQ(select.column_blob(3), blob);
  EXPECT_TRUE(select.column_is_null(4));
  EXPECT_FALSE(select.column_optional_double(4).has_value());
  EXPECT_FALSE(select.step());
}

TEST(Database, UnknownParameterNameThrows) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  Statement s(db, "SELECT :a");
  EXPECT_THROW(s.bind(":b", 1), sgt::Error);
}

TEST(Database, ErrorsNameFileLineCallAndSqliteMessage) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  try {
    Statement s(db, "SELEKT 1");
    FAIL() << "prepare should have failed";
  } catch (const sgt::Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.kind(), sgt::ErrorKind::database);
    EXPECT_NE(message.find("database.cpp:"), std::string::npos) << message;
    EXPECT_NE(message.find("sqlite3_prepare_v2"), std::string::npos) << message;
    EXPECT_NE(message.find("SELEKT"), std::string::npos) << message;
    EXPECT_NE(message.find("syntax error"), std::string::npos) << message;
  }
  // A constraint failure on step reports SQLite's own message.
  Statement bad(db,
                "INSERT INTO problems (transa, transb, m, n, k, lda, ldb, ldc, align) "
                "VALUES ('X', 'N', 1, 1, 1, 1, 1, 1, 4)");
  try {
    bad.run();
    FAIL() << "the CHECK constraint should have failed";
  } catch (const sgt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("CHECK constraint failed"), std::string::npos) << e.what();
  }
}

TEST(Database, TransactionRollsBackUnlessCommitted) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  const char* insert =
      "INSERT INTO software (driver, runtime, nvrtc, cublas) VALUES ('a', 'b', 'c', 'd')";
  {
    Transaction tx(db);
    db.exec(insert);
    EXPECT_TRUE(db.in_transaction());
  }
  EXPECT_FALSE(db.in_transaction());
  EXPECT_EQ(count(db, "SELECT count(*) FROM software"), 0);
  {
    Transaction tx(db);
    db.exec(insert);
    tx.commit();
  }
  EXPECT_EQ(count(db, "SELECT count(*) FROM software"), 1);
  EXPECT_THROW(db.write_transaction([&] {
    db.exec("INSERT INTO software (driver, runtime, nvrtc, cublas) VALUES ('e', 'f', 'g', 'h')");
    throw sgt::Error(sgt::ErrorKind::internal, "stop");
  }),
               sgt::Error);
  EXPECT_EQ(count(db, "SELECT count(*) FROM software"), 1);
  EXPECT_EQ(db.write_transaction([] { return 5; }), 5);
}

TEST(Database, ForeignKeysAreEnforced) {
  TempDir dir;
  Database db = Database::open(dir.file("t.db"), OpenMode::create);
  EXPECT_THROW(db.exec("INSERT INTO runs (started_at, host, command, clock_policy, seed, notes, "
                       "gpu_id, software_id) VALUES ('t', 'h', 'c', 'observe', 1, '', 99, 99)"),
               sgt::Error);
}

TEST(Database, MovedDatabaseKeepsWorking) {
  TempDir dir;
  Database a = Database::open(dir.file("t.db"), OpenMode::create);
  Database b = std::move(a);
  EXPECT_EQ(b.user_version(), Database::schema_version());
  a = Database::open(dir.file("u.db"), OpenMode::create);
  EXPECT_EQ(a.path(), dir.file("u.db"));
  EXPECT_EQ(a.user_version(), Database::schema_version());
}

}  // namespace
