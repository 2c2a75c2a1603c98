// Data safety of the tuning database: kill -9 of a writer loses at most what was in flight and
// leaves a file that passes integrity_check; an import is all or nothing under kill -9; files the
// tool must refuse (newer, corrupt, not SQLite) stay byte-identical through the C API and the
// CLI too; a garbage WAL is ignored; every earlier schema version migrates, and a migration that
// fails rolls back. (db_database_test.cpp holds the open-sequence basics.)
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "db/database.hpp"
#include "db/tuning_store.hpp"
#include "sgemm_dispatch.h"
#include "support/temp_dir.hpp"

namespace sgt {
const std::map<std::string, std::string_view, std::less<>>& embedded_schema();
}

namespace sgt {
namespace {

namespace fs = std::filesystem;

const GpuRecord h200{"NVIDIA H200", "GPU-1111", "sm_90", 132, 62914560, 1980};
const SoftwareRecord cuda13{"580.65", "13.0", "13.0.48", "13.1.0.3"};

using sgt::testing::read_bytes;
using sgt::testing::TempDir;
using sgt::testing::write_bytes;

void raw_exec(const std::string& path, const std::string& script) {
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

std::set<std::string> configs(Database& db) {
  std::set<std::string> out;
  Statement s(db, "SELECT config FROM candidates");
  while (s.step()) out.insert(s.column_text(0));
  return out;
}

// A candidate with a compile log long enough that each commit spans several pages.
CandidateRecord candidate(const std::string& config) {
  CandidateRecord c;
  c.problem = with_minimal_leading_dimensions({Op::N, Op::N, 256, 256, 256, 0, 0, 0, 4});
  c.family = "f1_simt";
  c.config = config;
  c.template_hash = "0123456789abcdef";
  c.compile_options = "-arch=sm_90";
  c.message = std::string(6000, 'l');
  c.screen = TimingRecord{10, 9.8, 10.1, 0.2, 50, 0, 1980};
  return c;
}

// Reads the int the child reports after each commit, until `until` or the pipe closes.
int read_reports(int fd, int until) {
  int last = -1, value = 0;
  while (last < until && read(fd, &value, sizeof value) == static_cast<ssize_t>(sizeof value))
    last = value;
  return last;
}

// Forks a child running body(report_fd) (which never returns); returns its pid and the read end.
template <class Body>
std::pair<pid_t, int> spawn(Body body) {
  int fds[2];
  if (pipe(fds) != 0) return {-1, -1};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    try {
      body(fds[1]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
    }
    _exit(1);
  }
  close(fds[1]);
  return {pid, fds[0]};
}

// SIGKILL after a random delay of up to `max_delay_us`, then reap.
void kill_nine(pid_t pid, std::mt19937& rng, int max_delay_us) {
  std::this_thread::sleep_for(std::chrono::microseconds(rng() % (max_delay_us + 1)));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the child ended by itself";
}

TEST(DbSafety, KillNineWhileRecordingLosesOnlyTheCandidateInFlight) {
  std::mt19937 rng(20261201);
  for (int round = 0; round < 6; ++round) {
    TempDir dir;
    const std::string path = dir.file("tuning.db");
    const auto [pid, fd] = spawn([&](int report) {
      Database db = Database::open(path, OpenMode::create);
      TuningStore store(db);
      const std::int64_t run = store.begin_run({.host = "victim"}, h200, cuda13);
      for (int i = 0;; ++i) {
        store.record_candidate(run, h200, cuda13, candidate("c" + std::to_string(i)));
        if (write(report, &i, sizeof i) != static_cast<ssize_t>(sizeof i)) _exit(2);
      }
    });
    ASSERT_GT(pid, 0);
    const int target = 10 + round * 23;
    ASSERT_GE(read_reports(fd, target), target) << "the writer stopped early (see stderr)";
    kill_nine(pid, rng, 3000);
    const int last = std::max(target, read_reports(fd, 1 << 30));  // reported after the target
    close(fd);

    // What the next tuning run sees: WAL recovered, every reported commit present.
    Database db = Database::open(path, OpenMode::read_write);
    EXPECT_EQ(db.integrity_check(), "ok") << "round " << round;
    const std::set<std::string> stored = configs(db);
    for (int i = 0; i <= last; ++i)
      EXPECT_TRUE(stored.count("c" + std::to_string(i))) << "committed candidate c" << i << " lost";
    EXPECT_LE(stored.size(), static_cast<std::size_t>(last + 2)) << "more than one in flight";
    EXPECT_EQ(count(db, "SELECT count(*) FROM runs WHERE status = 'running'"), 1);
    // And it can go on writing (resume) into the same file.
    TuningStore store(db);
    store.record_candidate(0, h200, cuda13, candidate("after"));
    EXPECT_EQ(configs(db).count("after"), 1u);
  }
}

// import_json is one transaction: after kill -9 each dump is there completely or not at all.
TEST(DbSafety, KillNineDuringImportsLeavesWholeDumpsOnly) {
  constexpr int per_dump = 40;
  TempDir dir;
  std::string dump;
  {
    Database src = Database::open(dir.file("source.db"), OpenMode::create);
    TuningStore store(src);
    for (int i = 0; i < per_dump; ++i)
      store.record_candidate(0, h200, cuda13, candidate("d@@-" + std::to_string(i)));
    dump = store.export_json();
  }
  ASSERT_NE(dump.find("d@@-0"), std::string::npos);
  std::mt19937 rng(7);
  for (int round = 0; round < 4; ++round) {
    const std::string path = dir.file("target" + std::to_string(round) + ".db");
    const auto [pid, fd] = spawn([&](int report) {
      Database db = Database::open(path, OpenMode::create);
      TuningStore store(db);
      for (int r = 0;; ++r) {
        std::string text = dump;
        const std::string tag = std::to_string(r);
        for (std::size_t at = text.find("@@"); at != std::string::npos; at = text.find("@@", at))
          text.replace(at, 2, tag);
        store.import_json(text);
        if (write(report, &r, sizeof r) != static_cast<ssize_t>(sizeof r)) _exit(2);
      }
    });
    ASSERT_GT(pid, 0);
    const int target = 2 + round * 3;
    ASSERT_GE(read_reports(fd, target), target);
    kill_nine(pid, rng, 20000);
    const int last = std::max(target, read_reports(fd, 1 << 30));
    close(fd);

    Database db = Database::open(path, OpenMode::read_write);
    EXPECT_EQ(db.integrity_check(), "ok");
    std::map<std::string, int> per_tag;
    for (const std::string& c : configs(db)) per_tag[c.substr(0, c.find('-'))]++;
    for (const auto& [tag, n] : per_tag) EXPECT_EQ(n, per_dump) << tag << " was imported in part";
    EXPECT_GE(per_tag.size(), static_cast<std::size_t>(last + 1));
    EXPECT_LE(per_tag.size(), static_cast<std::size_t>(last + 2));
  }
}

// ---- Files the tool must refuse, through every entry point, byte-identical afterwards ----

struct RefusedFile {
  const char* what;
  std::function<void(const std::string&)> make;
  const char* fragment;  // of the database error
};

void make_tuning_db(const std::string& path) {
  Database db = Database::open(path, OpenMode::create);
  TuningStore store(db);
  for (int i = 0; i < 30; ++i)
    store.record_candidate(0, h200, cuda13, candidate("k" + std::to_string(i)));
}

std::vector<RefusedFile> refused_files() {
  return {
      {"newer schema",
       [](const std::string& p) {
         make_tuning_db(p);
         raw_exec(p, "PRAGMA user_version = " + std::to_string(Database::schema_version() + 1));
       },
       "newer"},
      {"truncated",
       [](const std::string& p) {
         make_tuning_db(p);
         fs::resize_file(p, fs::file_size(p) / 2);
       },
       "corrupt"},
      {"page garbage after a valid header",
       [](const std::string& p) {
         make_tuning_db(p);
         std::string bytes = read_bytes(p);
         for (std::size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7919);
         write_bytes(p, bytes);
       },
       "corrupt"},
      {"header magic with a bad page size",
       [](const std::string& p) {
         make_tuning_db(p);
         std::string bytes = read_bytes(p);
         bytes[16] = 0x12;  // page size 0x1234: not a power of two
         bytes[17] = 0x34;
         write_bytes(p, bytes);
       },
       ""},
      {"zeros", [](const std::string& p) { write_bytes(p, std::string(16384, '\0')); },
       "not an SQLite database"},
      {"text", [](const std::string& p) { write_bytes(p, "m,n,k\n64,64,64\n"); },
       "not an SQLite database"},
      {"another program's SQLite file",
       [](const std::string& p) {
         raw_exec(p, "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('x');");
       },
       "not a tuning database"},
  };
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Exit code and output (stdout and stderr) of sgemm-tune with these arguments.
std::pair<int, std::string> run_cli(const std::string& args) {
  const std::string command =
      shell_quote(SGEMM_BINARY_DIR "/src/sgemm-tune") + " " + args + " 2>&1 </dev/null";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, ""};
  std::string output;
  std::array<char, 4096> buffer;
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    output.append(buffer.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST(DbSafety, RefusedFilesStayByteIdenticalThroughEveryEntryPoint) {
  const bool have_cli = fs::exists(SGEMM_BINARY_DIR "/src/sgemm-tune");
  for (const RefusedFile& f : refused_files()) {
    TempDir dir;
    const std::string path = dir.file("tuning.db");
    f.make(path);
    ASSERT_FALSE(fs::exists(path + "-wal")) << f.what;
    const std::string before = read_bytes(path);
    for (OpenMode mode : {OpenMode::read_only, OpenMode::read_write, OpenMode::create}) {
      try {
        Database::open(path, mode);
        ADD_FAILURE() << f.what << ": opened";
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::database) << f.what;
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos)
            << f.what << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find(f.fragment), std::string::npos)
            << f.what << ": " << e.what();
      }
    }
    sgemmHandle_t h = nullptr;
    EXPECT_EQ(sgemmCreate(&h, path.c_str()), SGEMM_STATUS_DATABASE_ERROR) << f.what;
    EXPECT_EQ(h, nullptr);
    if (have_cli) {
      // One clear line naming the file, exit 1 (a runtime failure, not a usage error).
      for (const std::string verb : {"list", "export"}) {
        const auto [rc, output] = run_cli(verb + " --db " + shell_quote(path));
        EXPECT_EQ(rc, 1) << f.what << ", " << verb << ":\n" << output;
        EXPECT_NE(output.find(path), std::string::npos) << f.what << ", " << verb << ":\n"
                                                        << output;
      }
      const std::string shapes = dir.file("s.csv");
      write_bytes(shapes, "m,n,k\n64,64,64\n");
      const auto [rc, output] =
          run_cli("import " + shell_quote(shapes) + " --db " + shell_quote(path));
      EXPECT_NE(rc, 0) << f.what << ", import:\n" << output;
    }
    EXPECT_EQ(read_bytes(path), before) << f.what << ": the file was changed";
    // A read-only open of a WAL-mode file leaves an empty -wal (and -shm) beside it (SQLite's
    // reader creates them and cannot remove them): no data is in it.
    EXPECT_TRUE(!fs::exists(path + "-wal") || fs::file_size(path + "-wal") == 0) << f.what;
  }
}

// A -wal file of garbage beside a good database (a copy gone wrong): SQLite's frame checksums
// reject it, the data in the main file is all there and the main file is not rewritten.
TEST(DbSafety, GarbageWalIsIgnored) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  make_tuning_db(path);
  const std::string before = read_bytes(path);
  std::string garbage(64 * 1024, '\0');
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(i * 131 + 7);
  write_bytes(path + "-wal", garbage);
  {
    Database db = Database::open(path, OpenMode::read_write);
    EXPECT_EQ(db.integrity_check(), "ok");
    EXPECT_EQ(count(db, "SELECT count(*) FROM candidates"), 30);
  }
  EXPECT_EQ(read_bytes(path), before);
}

// ---- Migrations ----

// Columns, indexes and foreign keys of every table, to compare a migrated file with a fresh one.
std::vector<std::string> describe_schema(Database& db) {
  std::vector<std::string> out;
  Statement tables(db,
                   "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE "
                   "'sqlite_%' ORDER BY name");
  while (tables.step()) {
    const std::string t = tables.column_text(0);
    for (const char* sql :
         {"SELECT name || ' ' || type || ' ' || \"notnull\" || ' ' || ifnull(dflt_value, 'NULL') "
          "|| ' ' || pk FROM pragma_table_info(?1) ORDER BY cid",
          "SELECT il.\"unique\" || ' ' || group_concat(ii.name, ',') FROM pragma_index_list(?1) "
          "il, "
          "pragma_index_info(il.name) ii GROUP BY il.name ORDER BY 1",
          "SELECT \"from\" || '->' || \"table\" || '.' || \"to\" || ' ' || on_delete "
          "FROM pragma_foreign_key_list(?1) ORDER BY 1"}) {
      Statement s(db, sql);
      s.bind(1, t);
      while (s.step()) out.push_back(t + ": " + s.column_text(0));
    }
  }
  return out;
}

// A file at schema version `version` as that release left it: the migrations up to it applied
// in order (version 0: an empty file), plus one row in software.
void make_version(const std::string& path, int version) {
  if (version == 0) {
    write_bytes(path, "");
    return;
  }
  std::string script;
  for (const auto& [name, sql] : embedded_schema()) {
    if (name == "schema.sql") continue;
    if (std::stoi(name.substr(0, 4)) <= version) script += std::string(sql) + "\n";
  }
  script +=
      "INSERT INTO software (driver, runtime, nvrtc, cublas) VALUES ('old', 'r', 'n', 'c');\n";
  raw_exec(path, script + "PRAGMA user_version = " + std::to_string(version) + ";");
}

TEST(DbSafety, EveryEarlierSchemaVersionMigrates) {
  TempDir dir;
  Database fresh = Database::open(dir.file("fresh.db"), OpenMode::create);
  const std::vector<std::string> expected = describe_schema(fresh);
  ASSERT_GE(Database::schema_version(), 2);
  for (int v = 0; v < Database::schema_version(); ++v) {
    const std::string path = dir.file("v" + std::to_string(v) + ".db");
    make_version(path, v);
    const std::string before = read_bytes(path);
    // A reader never migrates, and leaves the file as it is.
    EXPECT_THROW(Database::open(path, OpenMode::read_only), Error) << "version " << v;
    EXPECT_EQ(read_bytes(path), before) << "version " << v;

    Database db = Database::open(path, OpenMode::read_write);
    EXPECT_EQ(db.user_version(), Database::schema_version()) << "version " << v;
    EXPECT_EQ(db.integrity_check(), "ok");
    EXPECT_EQ(describe_schema(db), expected) << "version " << v;
    if (v > 0) {
      EXPECT_EQ(count(db, "SELECT count(*) FROM software WHERE driver = 'old'"), 1);
    }
    TuningStore store(db);
    store.record_candidate(0, h200, cuda13, candidate("after-migration"));
    EXPECT_EQ(configs(db).count("after-migration"), 1u);
  }
}

// A migration step that fails (here: the user made an index of the name 0002 creates) rolls the
// whole migration back: the file stays at its version with its rows, and the error says why.
TEST(DbSafety, FailedMigrationRollsBack) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  make_version(path, 1);
  raw_exec(path, "CREATE INDEX winners_model ON winners (gpu_name);");
  try {
    Database::open(path, OpenMode::read_write);
    ADD_FAILURE() << "the migration should have failed";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::database);
    EXPECT_NE(std::string(e.what()).find("winners_model"), std::string::npos) << e.what();
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto scalar = [&](const char* sql) {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql, -1, &s, nullptr), SQLITE_OK) << sql;
    EXPECT_EQ(sqlite3_step(s), SQLITE_ROW) << sql;
    const std::int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
  };
  EXPECT_EQ(scalar("PRAGMA user_version"), 1);
  EXPECT_EQ(scalar("SELECT count(*) FROM pragma_table_info('winners') WHERE name = 'cubin'"), 0);
  EXPECT_EQ(scalar("SELECT count(*) FROM software WHERE driver = 'old'"), 1);
  sqlite3_close(db);
}

}  // namespace
}  // namespace sgt
