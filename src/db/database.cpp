// SQLite connection, statements and transactions, and the open sequence: look at the file first
// (is it SQLite, intact, ours, not newer), and only then write (WAL mode, schema, migrations).
#include "db/database.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <thread>

namespace sgt {

// Generated from tuner_db/schema.sql and tuner_db/migrations/*.sql by cmake/EmbedFiles.cmake.
const std::map<std::string, std::string_view, std::less<>>& embedded_schema();

namespace {

constexpr int busy_timeout_ms = 10'000;

bool is_busy(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

// SQL in error messages: enough to recognise the statement, not a whole schema script.
std::string abbreviate(std::string_view sql) {
  constexpr std::size_t limit = 160;
  std::string out;
  for (char c : sql.substr(0, limit)) out += (c == '\n' || c == '\t') ? ' ' : c;
  if (sql.size() > limit) out += "...";
  return out;
}

struct Migration {
  int version = 0;
  std::string name;
  std::string_view sql;
};

// Migration files are NNNN_description.sql; NNNN is the version the step leads to. They must
// be numbered 1, 2, ... without gaps, or the build shipped a broken schema.
const std::vector<Migration>& migrations() {
  static const std::vector<Migration> list = [] {
    std::vector<Migration> out;
    for (const auto& [name, sql] : embedded_schema()) {
      if (name == "schema.sql") continue;
      const bool numbered = name.size() > 9 && name[4] == '_' && name.ends_with(".sql") &&
                            std::all_of(name.begin(), name.begin() + 4,
                                        [](unsigned char c) { return std::isdigit(c); });
      if (!numbered)
        throw Error(ErrorKind::internal,
                    fmt::format("embedded schema file '{}' is not named NNNN_name.sql", name));
      out.push_back({std::stoi(name.substr(0, 4)), name, sql});
    }
    std::sort(out.begin(), out.end(),
              [](const Migration& a, const Migration& b) { return a.version < b.version; });
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i].version != static_cast<int>(i) + 1)
        throw Error(ErrorKind::internal,
                    fmt::format("migration '{}' should be number {:04d}", out[i].name, i + 1));
    if (out.empty()) throw Error(ErrorKind::internal, "no schema migrations are embedded");
    return out;
  }();
  return list;
}

std::string_view current_schema_sql() {
  const auto& files = embedded_schema();
  const auto it = files.find("schema.sql");
  if (it == files.end()) throw Error(ErrorKind::internal, "schema.sql is not embedded");
  return it->second;
}

// What the file holds, read without writing anything.
struct FileState {
  int version = 0;  // PRAGMA user_version
  int objects = 0;  // rows of sqlite_schema: tables, indexes, ...
};

// Runs one read-only query and returns its rows as text; the SQLite result code on failure.
int query_rows(sqlite3* db, const char* sql, std::vector<std::string>& rows) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  while (rc == SQLITE_OK) {
    const int step = sqlite3_step(stmt);
    if (step == SQLITE_DONE) break;
    if (step != SQLITE_ROW) {
      rc = step;
      break;
    }
    const auto* text = sqlite3_column_text(stmt, 0);
    rows.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
  }
  sqlite3_finalize(stmt);
  return rc;
}

[[noreturn]] void throw_unreadable(int code, sqlite3* db, const std::string& path) {
  const int primary = code & 0xff;
  const std::string detail = sqlite3_errmsg(db);
  if (primary == SQLITE_NOTADB)
    throw Error(ErrorKind::database,
                fmt::format("'{}' is not an SQLite database ({}); the file was left as it is", path,
                            detail));
  if (primary == SQLITE_CORRUPT)
    throw Error(ErrorKind::database,
                fmt::format("tuning database '{}' is corrupt ({}); the file was left as it is "
                            "(restore it from a backup or re-import a text dump)",
                            path, detail));
  if (is_busy(code))
    throw DatabaseBusy(
        fmt::format("tuning database '{}' stayed locked by another process "
                    "for {} ms: {}",
                    path, busy_timeout_ms, detail));
  throw Error(ErrorKind::database,
              fmt::format("cannot read tuning database '{}': {} (code {})", path, detail, code));
}

// Reads the version, the object count and quick_check; the SQLite result code on failure. In one
// read transaction (the caller's, or its own), so all three see the same snapshot: another
// process creating the schema between two separate reads would make a new database look like a
// foreign one (objects, no version).
int read_state(sqlite3* db, FileState& state, std::vector<std::string>& check) {
  std::vector<std::string> version, objects;
  const bool own_transaction = sqlite3_get_autocommit(db) != 0;
  int rc = own_transaction ? sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr) : SQLITE_OK;
  if (rc != SQLITE_OK) return rc;
  rc = query_rows(db, "PRAGMA user_version", version);
  if (rc == SQLITE_OK) rc = query_rows(db, "SELECT count(*) FROM sqlite_schema", objects);
  // quick_check reads every page: a truncated or overwritten file fails here, before any write.
  if (rc == SQLITE_OK) rc = query_rows(db, "PRAGMA quick_check(5)", check);
  if (rc == SQLITE_OK) state = {std::stoi(version.at(0)), std::stoi(objects.at(0))};
  if (!own_transaction) return rc;
  const int end = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  return rc != SQLITE_OK ? rc : end;
}

// Throws for a file that cannot be read or fails quick_check; else gives what read_state read.
FileState interpret(int rc, const FileState& state, const std::vector<std::string>& check,
                    sqlite3* db, const std::string& path) {
  if (rc != SQLITE_OK) throw_unreadable(rc, db, path);
  if (check.empty() || check.front() != "ok") {
    std::string problems;
    for (const auto& line : check) problems += (problems.empty() ? "" : "; ") + line;
    throw Error(ErrorKind::database,
                fmt::format("tuning database '{}' is corrupt ({}); the file was left as it is "
                            "(restore it from a backup or re-import a text dump)",
                            path, problems));
  }
  return state;
}

FileState inspect(sqlite3* db, const std::string& path) {
  FileState state;
  std::vector<std::string> check;
  const int rc = read_state(db, state, check);
  return interpret(rc, state, check, db, path);
}

// A reader of a WAL file needs its -shm file; in a directory it may not write (an installed
// database) SQLite cannot create it.
bool needs_shared_memory_file(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN;
}

// "file:" URI for a path: the characters URIs reserve are escaped.
std::string file_uri(const std::string& path, std::string_view query) {
  std::string uri = "file:";
  for (char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#')
      uri += fmt::format("%{:02x}", static_cast<unsigned char>(c));
    else
      uri += c;
  }
  return uri + "?" + std::string(query);
}

// Refuses what this code must not touch, and what a read-only open cannot fix.
void check_acceptable(const FileState& state, const std::string& path, OpenMode mode) {
  const int current = Database::schema_version();
  if (state.version > current)
    throw Error(ErrorKind::database,
                fmt::format("tuning database '{}' has schema version {}, newer than version {} "
                            "that this build supports; use a newer sgemm-tune (the file was "
                            "left as it is)",
                            path, state.version, current));
  if (state.version == 0 && state.objects > 0)
    throw Error(ErrorKind::database,
                fmt::format("'{}' is an SQLite database but not a tuning database (no schema "
                            "version, {} schema objects); the file was left as it is",
                            path, state.objects));
  if (mode != OpenMode::read_only) return;
  if (state.version == 0)
    throw Error(ErrorKind::database,
                fmt::format("'{}' is an empty file, not a tuning database", path));
  if (state.version < current)
    throw Error(ErrorKind::database,
                fmt::format("tuning database '{}' has schema version {}, older than {}; open it "
                            "for writing once to migrate it",
                            path, state.version, current));
}

}  // namespace

void throw_sqlite_error(int code, sqlite3* db, const char* call, const char* file, int line) {
  std::string message =
      fmt::format("{}:{}: {} failed: {} (code {})", file, line, call, sqlite3_errstr(code), code);
  if (db != nullptr) {
    const char* detail = sqlite3_errmsg(db);
    if (detail != nullptr && std::string_view(detail) != sqlite3_errstr(code))
      message += fmt::format(": {}", detail);
    const char* name = sqlite3_db_filename(db, "main");
    if (name != nullptr && *name != '\0') message += fmt::format(" [{}]", name);
  }
  if (is_busy(code)) throw DatabaseBusy(message);
  throw Error(ErrorKind::database, message);
}

// ---------------------------------------------------------------------------------------------
// Database

Database::Database(sqlite3* db, std::string path, OpenMode mode)
    : db_(db), path_(std::move(path)), mode_(mode) {}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)), mode_(other.mode_) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    close();
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
    mode_ = other.mode_;
  }
  return *this;
}

Database::~Database() { close(); }

void Database::close() noexcept {
  // sqlite3_close_v2 defers the close until outstanding statements are finalized.
  if (db_ != nullptr) sqlite3_close_v2(db_);
  db_ = nullptr;
}

int Database::schema_version() { return migrations().back().version; }

Database Database::connect(const std::string& name, const std::string& path, int flags,
                           OpenMode mode) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  Database db(raw, path, mode);  // owns the handle even when the open failed
  if (rc != SQLITE_OK)
    throw Error(ErrorKind::database,
                fmt::format("cannot open tuning database '{}': {}", path,
                            raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  db.exec("PRAGMA foreign_keys = ON");
  return db;
}

Database Database::open(const std::string& path, OpenMode mode) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) {
    if (mode != OpenMode::create)
      throw Error(ErrorKind::database, fmt::format("tuning database '{}' does not exist", path));
  } else if (fs::is_directory(status)) {
    throw Error(ErrorKind::database,
                fmt::format("'{}' is a directory, not a tuning database", path));
  }

  int flags = SQLITE_OPEN_FULLMUTEX;
  if (mode == OpenMode::read_only) flags |= SQLITE_OPEN_READONLY;
  if (mode != OpenMode::read_only) flags |= SQLITE_OPEN_READWRITE;
  if (mode == OpenMode::create) flags |= SQLITE_OPEN_CREATE;
  Database db = connect(path, path, flags, mode);

  if (mode == OpenMode::read_only) {
    FileState state;
    std::vector<std::string> check;
    const int rc = read_state(db.handle(), state, check);
    // No writer is active when there is no -wal file, so reading the main file as immutable
    // (no locks, no -shm) sees exactly what a normal reader would.
    if (needs_shared_memory_file(rc) && !fs::exists(path + "-wal", ec)) {
      db = connect(file_uri(path, "immutable=1"), path, flags | SQLITE_OPEN_URI, mode);
      state = inspect(db.handle(), path);
    } else {
      state = interpret(rc, state, check, db.handle(), path);
    }
    check_acceptable(state, path, mode);
    return db;
  }

  sqlite3* raw = db.handle();
  const FileState state = inspect(raw, path);
  check_acceptable(state, path, mode);

  // WAL lets the dispatcher read while a tuner writes; NORMAL sync is durable across crashes
  // of the process (what resume needs) at a fraction of FULL's fsyncs.
  for (int attempt = 1;; ++attempt) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      break;
    } catch (const DatabaseBusy&) {
      if (attempt >= detail::busy_retries) throw;
      detail::busy_backoff(attempt);
    }
  }
  db.exec("PRAGMA synchronous = NORMAL");

  if (state.version < schema_version()) {
    db.write_transaction([&] {
      // Another process may have created or migrated the file since the first look.
      const FileState now = inspect(raw, path);
      check_acceptable(now, path, mode);
      if (now.version == 0) {
        db.exec(current_schema_sql());
      } else {
        for (const Migration& step : migrations())
          if (step.version > now.version) db.exec(step.sql);
      }
      // PRAGMA takes no bound parameters; the value is this build's own constant.
      db.exec(fmt::format("PRAGMA user_version = {}", schema_version()));
    });
  }
  return db;
}

void Database::exec(std::string_view sql) {
  const std::string text(sql);
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    const std::string call = fmt::format("sqlite3_exec(\"{}\")", abbreviate(sql));
    throw_sqlite_error(rc, db_, call.c_str(), __FILE__, __LINE__);
  }
}

std::int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

int Database::changes() const { return sqlite3_changes(db_); }

int Database::user_version() {
  Statement s(*this, "PRAGMA user_version");
  s.step();
  return s.column_int(0);
}

std::string Database::journal_mode() {
  Statement s(*this, "PRAGMA journal_mode");
  s.step();
  return s.column_text(0);
}

std::string Database::integrity_check() {
  Statement s(*this, "PRAGMA integrity_check");
  std::string result;
  while (s.step()) result += (result.empty() ? "" : "\n") + s.column_text(0);
  return result;
}

bool Database::in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }

// ---------------------------------------------------------------------------------------------
// Statement

Statement::Statement(Database& db, std::string_view sql) : db_(db.handle()) {
  const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    const std::string call = fmt::format("sqlite3_prepare_v2(\"{}\")", abbreviate(sql));
    throw_sqlite_error(rc, db_, call.c_str(), __FILE__, __LINE__);
  }
  if (stmt_ == nullptr)
    throw Error(ErrorKind::internal,
                fmt::format("SQL text has no statement: \"{}\"", abbreviate(sql)));
}

Statement::Statement(Statement&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    close();
    db_ = std::exchange(other.db_, nullptr);
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

Statement::~Statement() { close(); }

void Statement::close() noexcept {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
  stmt_ = nullptr;
}

int Statement::parameter_index(const char* name) const {
  const int index = sqlite3_bind_parameter_index(stmt_, name);
  if (index == 0)
    throw Error(ErrorKind::internal, fmt::format("statement \"{}\" has no parameter {}",
                                                 abbreviate(sqlite3_sql(stmt_)), name));
  return index;
}

Statement& Statement::bind(int index, std::int64_t value) {
  SGT_SQLITE_CHECK(db_, sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

Statement& Statement::bind(int index, double value) {
  SGT_SQLITE_CHECK(db_, sqlite3_bind_double(stmt_, index, value));
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  SGT_SQLITE_CHECK(db_, sqlite3_bind_text64(stmt_, index, value.data(), value.size(),
                                            SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}

Statement& Statement::bind(int index, std::span<const unsigned char> blob) {
  if (blob.empty()) return bind(index, std::nullopt);
  SGT_SQLITE_CHECK(db_,
                   sqlite3_bind_blob64(stmt_, index, blob.data(), blob.size(), SQLITE_TRANSIENT));
  return *this;
}

Statement& Statement::bind(int index, std::nullopt_t) {
  SGT_SQLITE_CHECK(db_, sqlite3_bind_null(stmt_, index));
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const std::string call = fmt::format("sqlite3_step(\"{}\")", abbreviate(sqlite3_sql(stmt_)));
  throw_sqlite_error(rc, db_, call.c_str(), __FILE__, __LINE__);
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  // sqlite3_reset repeats the last step's error, which step() has already thrown.
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::column_is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t Statement::column_int64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

int Statement::column_int(int column) const { return sqlite3_column_int(stmt_, column); }

double Statement::column_double(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::column_text(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::vector<unsigned char> Statement::column_blob(int column) const {
  const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(stmt_, column));
  if (data == nullptr) return {};
  return {data, data + sqlite3_column_bytes(stmt_, column)};
}

std::optional<double> Statement::column_optional_double(int column) const {
  if (column_is_null(column)) return std::nullopt;
  return column_double(column);
}

std::optional<std::int64_t> Statement::column_optional_int64(int column) const {
  if (column_is_null(column)) return std::nullopt;
  return column_int64(column);
}

int Statement::column_count() const { return sqlite3_column_count(stmt_); }

// ---------------------------------------------------------------------------------------------
// Transaction

Transaction::Transaction(Database& db, Kind kind) : db_(&db) {
  db.exec(kind == Kind::immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
}

Transaction::Transaction(Transaction&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}

Transaction::~Transaction() {
  // A failed statement may already have rolled SQLite back; then there is nothing to undo.
  if (db_ != nullptr && db_->in_transaction())
    sqlite3_exec(db_->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  if (db_ == nullptr) throw Error(ErrorKind::internal, "transaction committed twice");
  db_->exec("COMMIT");
  db_ = nullptr;
}

namespace detail {

void busy_backoff(int attempt) {
  thread_local std::minstd_rand random(static_cast<unsigned>(
      std::hash<std::thread::id>{}(std::this_thread::get_id()) ^
      static_cast<std::size_t>(std::chrono::steady_clock::now().time_since_epoch().count())));
  const int cap_ms = std::min(500, 10 * attempt);
  std::uniform_int_distribution<int> delay_ms(cap_ms / 2, cap_ms);
  std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
}

}  // namespace detail

}  // namespace sgt
