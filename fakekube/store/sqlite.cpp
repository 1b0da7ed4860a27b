#include "fakekube/store/internal/sqlite.h"

#include <fmt/format.h>
#include <sqlite3.h>

namespace fakekube::sqlite {

Statement::~Statement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) {
  other.stmt_ = nullptr;
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = other.stmt_;
    other.stmt_ = nullptr;
  }
  return *this;
}

void Statement::bind(int index, std::int64_t value) { sqlite3_bind_int64(stmt_, index, value); }

void Statement::bind(int index, std::string_view text) {
  sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
}

Result<bool> Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string message = fmt::format("storage: {}", sqlite3_errmsg(db_));
  sqlite3_reset(stmt_);
  return tl::unexpected(Status::internal(message));
}

Result<void> Statement::run() {
  auto r = step();
  reset();
  if (!r) return tl::unexpected(r.error());
  return {};
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t Statement::columnInt(int column) const { return sqlite3_column_int64(stmt_, column); }

std::string_view Statement::columnText(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  int size = sqlite3_column_bytes(stmt_, column);
  return text == nullptr ? std::string_view() : std::string_view(text, static_cast<size_t>(size));
}

Result<Connection> Connection::open(const std::string& path) {
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    if (db != nullptr) sqlite3_close(db);
    return tl::unexpected(
        Status::internal(fmt::format("storage: cannot open {}: {}", path, message)));
  }
  return Connection(db);
}

Connection::~Connection() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

Connection::Connection(Connection&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    if (db_ != nullptr) sqlite3_close_v2(db_);
    db_ = other.db_;
    other.db_ = nullptr;
  }
  return *this;
}

Result<void> Connection::exec(std::string_view sql) {
  char* error = nullptr;
  std::string text(sql);
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error != nullptr ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    return tl::unexpected(Status::internal(fmt::format("storage: {}", message)));
  }
  return {};
}

Result<Statement> Connection::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    return tl::unexpected(Status::internal(fmt::format("storage: {}", sqlite3_errmsg(db_))));
  }
  return Statement(db_, stmt);
}

std::string Connection::lastError() const { return sqlite3_errmsg(db_); }

}  // namespace fakekube::sqlite
