// Move-only RAII over SQLite: a connection that opens, checks and migrates the tuning database
// (Database), prepared statements with bound parameters (Statement) and transactions that roll
// back unless committed (Transaction). sqlite3.h stays in the .cpp files.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/error.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace sgt {

// Another connection holds the lock past the busy timeout (SQLITE_BUSY or SQLITE_LOCKED).
// Derived from Error so callers that do not retry see an ordinary database error.
class DatabaseBusy : public Error {
 public:
  explicit DatabaseBusy(const std::string& message) : Error(ErrorKind::database, message) {}
};

// Throws Error(ErrorKind::database) (DatabaseBusy for busy/locked) naming file:line, the call,
// the result code and sqlite3_errmsg. For use through SGT_SQLITE_CHECK in .cpp files.
[[noreturn]] void throw_sqlite_error(int code, sqlite3* db, const char* call, const char* file,
                                     int line);

enum class OpenMode {
  read_only,   // the file must exist at the current schema version; nothing is written
  read_write,  // the file must exist; an empty file gets the schema, an older one is migrated
  create,      // as read_write, and a missing file is created
};

class Database {
 public:
  // Opens, checks (an SQLite file, not corrupt, ours, not newer than this code) and only then
  // writes: WAL mode, then the schema or the migrations. Throws Error(database) naming the path.
  static Database open(const std::string& path, OpenMode mode);

  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  // Runs a fixed SQL script (schema, pragmas). Never for SQL that carries values: use Statement.
  void exec(std::string_view sql);

  std::int64_t last_insert_rowid() const;
  int changes() const;  // rows changed by the last statement
  int user_version();
  std::string journal_mode();
  std::string integrity_check();  // "ok", or the problems PRAGMA integrity_check reports
  bool in_transaction() const;

  const std::string& path() const { return path_; }
  OpenMode mode() const { return mode_; }
  sqlite3* handle() const noexcept { return db_; }

  // The schema version this code creates and migrates to (the highest migration number).
  static int schema_version();

  // Runs body inside BEGIN IMMEDIATE ... COMMIT and returns its result. When another process
  // holds the write lock past the busy timeout, the whole transaction is retried.
  template <class F>
  auto write_transaction(F&& body);

 private:
  Database(sqlite3* db, std::string path, OpenMode mode);
  // sqlite3_open_v2 of name (the path, or a file: URI for it) with busy timeout and foreign keys.
  static Database connect(const std::string& name, const std::string& path, int flags,
                          OpenMode mode);
  void close() noexcept;

  sqlite3* db_ = nullptr;
  std::string path_;
  OpenMode mode_ = OpenMode::read_only;
};

class Statement {
 public:
  Statement(Database& db, std::string_view sql);
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Parameters by 1-based position or by name (":name"; an unknown name throws).
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, long long value) {
    return bind(index, static_cast<std::int64_t>(value));
  }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);  // copied by SQLite
  Statement& bind(int index, const std::string& value) {
    return bind(index, std::string_view(value));
  }
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, std::span<const unsigned char> blob);  // empty binds NULL
  Statement& bind(int index, const std::vector<unsigned char>& blob) {
    return bind(index, std::span<const unsigned char>(blob));
  }
  Statement& bind(int index, std::nullopt_t);
  template <class T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind(index, std::nullopt);
  }
  template <class T>
  Statement& bind(const char* name, const T& value) {
    return bind(parameter_index(name), value);
  }
  int parameter_index(const char* name) const;

  // True when a row is ready, false when the statement is done.
  bool step();
  // Steps to the end (for statements that return no rows, or whose rows are not needed).
  void run();
  // Ready to run again with new parameters.
  void reset();

  bool column_is_null(int column) const;
  std::int64_t column_int64(int column) const;
  int column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;  // NULL reads as ""
  std::vector<unsigned char> column_blob(int column) const;
  std::optional<double> column_optional_double(int column) const;
  std::optional<std::int64_t> column_optional_int64(int column) const;
  int column_count() const;

 private:
  void close() noexcept;

  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

class Transaction {
 public:
  enum class Kind { deferred, immediate };
  // immediate takes the write lock at BEGIN, so a writer never fails later on lock upgrade.
  explicit Transaction(Database& db, Kind kind = Kind::immediate);
  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();  // rolls back unless committed; never throws

  void commit();

 private:
  Database* db_ = nullptr;
};

namespace detail {
inline constexpr int busy_retries = 20;
// Backoff between whole-transaction retries, grown with the attempt number and spread by the
// thread so two writers do not retry in lockstep.
void busy_backoff(int attempt);
}  // namespace detail

template <class F>
auto Database::write_transaction(F&& body) {
  for (int attempt = 1;; ++attempt) {
    try {
      Transaction tx(*this, Transaction::Kind::immediate);
      if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
        body();
        tx.commit();
        return;
      } else {
        auto result = body();
        tx.commit();
        return result;
      }
    } catch (const DatabaseBusy&) {
      if (attempt >= detail::busy_retries) throw;
      detail::busy_backoff(attempt);
    }
  }
}

}  // namespace sgt

// The one throwing check for SQLite results that must be SQLITE_OK.
#define SGT_SQLITE_CHECK(db, call)                                                             \
  do {                                                                                         \
    const int sgt_code_ = (call);                                                              \
    if (sgt_code_ != 0) ::sgt::throw_sqlite_error(sgt_code_, (db), #call, __FILE__, __LINE__); \
  } while (0)
