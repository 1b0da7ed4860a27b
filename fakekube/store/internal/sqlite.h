// Thin RAII wrappers over the SQLite C API: a connection and prepared statements.
//
// Only the store uses these. Statements are prepared once and reset after each use; text is bound
// without copying (SQLITE_STATIC), so the caller keeps the bound strings alive until the step.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "fakekube/api/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace fakekube::sqlite {

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are 1-based, as in SQLite.
  void bind(int index, std::int64_t value);
  void bind(int index, std::string_view text);
  // Steps once: true when a row is available, false when done. Errors become 500 Status.
  Result<bool> step();
  // Steps to completion and resets.
  Result<void> run();
  void reset();

  std::int64_t columnInt(int column) const;
  std::string_view columnText(int column) const;

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

class Connection {
 public:
  static Result<Connection> open(const std::string& path);
  Connection() = default;
  ~Connection();
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Result<void> exec(std::string_view sql);
  Result<Statement> prepare(std::string_view sql);
  std::string lastError() const;
  sqlite3* handle() const { return db_; }

 private:
  explicit Connection(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
};

}  // namespace fakekube::sqlite
