#include "fakekube/store/store.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/json_writer.h"
#include "fakekube/store/sqlite.h"

namespace fakekube {

const char* eventTypeName(EventType type) {
  switch (type) {
    case EventType::Added:
      return "ADDED";
    case EventType::Modified:
      return "MODIFIED";
    case EventType::Deleted:
      return "DELETED";
  }
  return "MODIFIED";
}

// The connection and the statements prepared once for the life of the store.
class Store::Database {
 public:
  sqlite::Connection connection;
  sqlite::Statement begin, commit, rollback;
  sqlite::Statement insertRevision, selectEventsSince, compactKeys, saveCompacted, selectAt;
};

namespace {

constexpr std::string_view kSchema = R"sql(
CREATE TABLE IF NOT EXISTS revisions(
  rv INTEGER PRIMARY KEY,
  type INTEGER NOT NULL,
  key TEXT NOT NULL,
  data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS revisions_by_key ON revisions(key, rv);
CREATE TABLE IF NOT EXISTS meta(
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL);
)sql";

// Rows at or below the mark ?2 that a newer row of the same key at or below it supersedes, and
// tombstones at or below it. Only keys written since the previous mark ?1 can have such rows.
constexpr std::string_view kCompact = R"sql(
DELETE FROM revisions
WHERE rv <= ?2
  AND key IN (SELECT key FROM revisions WHERE rv > ?1 AND rv <= ?2)
  AND (type = 3 OR rv < (SELECT MAX(r.rv) FROM revisions AS r
                         WHERE r.key = revisions.key AND r.rv <= ?2))
)sql";

// The newest row of every key under a prefix at a revision.
constexpr std::string_view kSelectAt = R"sql(
SELECT key, type, data FROM revisions AS r
WHERE key >= ?1 AND key < ?2
  AND rv = (SELECT MAX(v.rv) FROM revisions AS v WHERE v.key = r.key AND v.rv <= ?3)
ORDER BY key
)sql";

Result<std::int64_t> queryInt(sqlite::Connection& c, std::string_view sql) {
  auto stmt = c.prepare(sql);
  if (!stmt) return tl::unexpected(stmt.error());
  auto row = stmt->step();
  if (!row) return tl::unexpected(row.error());
  return *row ? stmt->columnInt(0) : 0;
}

Result<ObjectPtr> parseStored(std::string_view key, std::string_view text) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return tl::unexpected(Status::internal(fmt::format("storage: corrupt object at {}", key)));
  }
  return std::make_shared<const Json>(std::move(doc));
}

// The smallest string greater than every string that starts with `prefix`.
std::string prefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
  if (end.empty()) return std::string(1, '\xff');
  end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  return end;
}

}  // namespace

Result<std::unique_ptr<Store>> Store::open(const StoreOptions& options) {
  auto connection = sqlite::Connection::open(options.path);
  if (!connection) return tl::unexpected(connection.error());
  auto db = std::make_unique<Database>();
  db->connection = std::move(*connection);
  auto& c = db->connection;

  bool inMemory = options.path.empty() || options.path == ":memory:" ||
                  options.path.rfind("file::memory:", 0) == 0;
  std::string pragmas = inMemory ? "PRAGMA journal_mode=MEMORY;"
                                 : fmt::format("PRAGMA journal_mode=WAL; PRAGMA synchronous={};",
                                               options.synchronousFull ? "FULL" : "NORMAL");
  if (auto r = c.exec(pragmas); !r) return tl::unexpected(r.error());
  if (auto r = c.exec(kSchema); !r) return tl::unexpected(r.error());

  struct Prepared {
    sqlite::Statement* target;
    std::string_view sql;
  };
  Prepared statements[] = {
      {&db->begin, "BEGIN IMMEDIATE"},
      {&db->commit, "COMMIT"},
      {&db->rollback, "ROLLBACK"},
      {&db->insertRevision, "INSERT INTO revisions(rv, type, key, data) VALUES(?1, ?2, ?3, ?4)"},
      {&db->selectEventsSince,
       "SELECT rv, type, key, data FROM revisions WHERE rv > ?1 ORDER BY rv LIMIT ?2"},
      {&db->compactKeys, kCompact},
      {&db->saveCompacted,
       "INSERT INTO meta(name, value) VALUES('compacted', ?1) "
       "ON CONFLICT(name) DO UPDATE SET value = excluded.value"},
      {&db->selectAt, kSelectAt},
  };
  for (auto& p : statements) {
    auto stmt = c.prepare(p.sql);
    if (!stmt) return tl::unexpected(stmt.error());
    *p.target = std::move(*stmt);
  }

  std::unique_ptr<Store> store(new Store(options, std::move(db)));
  if (auto r = store->load(); !r) return tl::unexpected(r.error());
  return store;
}

Store::Store(StoreOptions options, std::unique_ptr<Database> db)
    : options_(std::move(options)), db_(std::move(db)) {}

Store::~Store() = default;

Result<void> Store::load() {
  auto& c = db_->connection;
  auto compacted = queryInt(c, "SELECT value FROM meta WHERE name = 'compacted'");
  if (!compacted) return tl::unexpected(compacted.error());
  auto newest = queryInt(c, "SELECT COALESCE(MAX(rv), 0) FROM revisions");
  if (!newest) return tl::unexpected(newest.error());
  compacted_ = *compacted;
  revision_ = std::max(*compacted, *newest);

  auto select = c.prepare(
      "SELECT key, data FROM revisions AS r WHERE type != 3 AND "
      "rv = (SELECT MAX(v.rv) FROM revisions AS v WHERE v.key = r.key)");
  if (!select) return tl::unexpected(select.error());
  while (true) {
    auto row = select->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    std::string key(select->columnText(0));
    auto object = parseStored(key, select->columnText(1));
    if (!object) return tl::unexpected(object.error());
    objects_.emplace(std::move(key), std::move(*object));
  }
  return {};
}

ObjectPtr Store::get(std::string_view key) const {
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second;
}

void Store::scan(std::string_view prefix, std::string_view startAfter,
                 const std::function<bool(const std::string&, const ObjectPtr&)>& visit) const {
  auto it = startAfter.empty() ? objects_.lower_bound(prefix) : objects_.upper_bound(startAfter);
  if (!startAfter.empty() && startAfter < prefix) it = objects_.lower_bound(prefix);
  for (; it != objects_.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    if (!visit(it->first, it->second)) break;
  }
}

Result<ObjectPtr> Store::put(const std::string& key, Json object, EventType type) {
  return write(key, std::move(object), type);
}

Result<ObjectPtr> Store::remove(const std::string& key, Json finalState) {
  return write(key, std::move(finalState), EventType::Deleted);
}

Result<ObjectPtr> Store::write(const std::string& key, Json object, EventType type) {
  const std::int64_t rv = revision_ + 1;
  object["metadata"]["resourceVersion"] = std::to_string(rv);
  // Serialise once, into a buffer reused across writes; the same text goes to the object row
  // and the event row.
  std::string& text = scratch_;
  text.clear();
  appendJson(text, object);
  if (text.size() > options_.maxObjectBytes) {
    return tl::unexpected(Status::requestEntityTooLarge(
        fmt::format("limit is {}: etcdserver: request is too large", options_.maxObjectBytes)));
  }

  // One INSERT is one transaction: the write is durable (or refused) as a whole.
  auto& insert = db_->insertRevision;
  insert.bind(1, rv);
  insert.bind(2, static_cast<std::int64_t>(type));
  insert.bind(3, key);
  insert.bind(4, text);
  if (auto r = insert.run(); !r) return tl::unexpected(r.error());

  // Committed: only now does memory change.
  revision_ = rv;
  if (type != EventType::Added) supersededSinceMark_ = true;
  auto stored = std::make_shared<const Json>(std::move(object));
  ObjectPtr previous;
  if (type == EventType::Deleted) {
    if (auto it = objects_.find(key); it != objects_.end()) {
      previous = std::move(it->second);
      objects_.erase(it);
    }
  } else {
    auto [it, inserted] = objects_.try_emplace(key, stored);
    if (!inserted) {
      previous = std::move(it->second);
      it->second = stored;
    }
  }
  if (observer_) observer_(StoredEvent{rv, type, key, stored, std::move(previous)});
  maybeCompact();
  return stored;
}

Result<std::vector<StoredEvent>> Store::eventsSince(std::int64_t after, std::size_t limit) const {
  if (after < compacted_) {
    return tl::unexpected(
        Status::expired(fmt::format("too old resource version: {} ({})", after, compacted_)));
  }
  std::vector<StoredEvent> events;
  auto& select = db_->selectEventsSince;
  select.bind(1, after);
  select.bind(2, static_cast<std::int64_t>(std::min<std::size_t>(limit, INT64_MAX)));
  while (true) {
    auto row = select.step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    StoredEvent e;
    e.revision = select.columnInt(0);
    e.type = static_cast<EventType>(select.columnInt(1));
    e.key = std::string(select.columnText(2));
    auto object = parseStored(e.key, select.columnText(3));
    if (!object) {
      select.reset();
      return tl::unexpected(object.error());
    }
    e.object = std::move(*object);
    events.push_back(std::move(e));
  }
  select.reset();
  return events;
}

Result<std::int64_t> Store::compact(std::int64_t upTo) {
  upTo = std::min(upTo, revision_);
  if (upTo <= compacted_) return compacted_;
  auto& db = *db_;
  if (auto r = db.begin.run(); !r) return tl::unexpected(r.error());
  auto fail = [&](const Status& s) -> Result<std::int64_t> {
    (void)db.rollback.run();
    return tl::unexpected(s);
  };
  // Rows are superseded only by modifications and deletions: after creates alone there is
  // nothing to remove, and only the mark moves.
  if (supersededSinceMark_) {
    db.compactKeys.bind(1, compacted_);
    db.compactKeys.bind(2, upTo);
    if (auto r = db.compactKeys.run(); !r) return fail(r.error());
  }
  db.saveCompacted.bind(1, upTo);
  if (auto r = db.saveCompacted.run(); !r) return fail(r.error());
  if (auto r = db.commit.run(); !r) return fail(r.error());
  compacted_ = upTo;
  supersededSinceMark_ = false;
  return compacted_;
}

Result<void> Store::scanAt(
    std::string_view prefix, std::int64_t revision,
    const std::function<bool(const std::string&, const ObjectPtr&)>& visit) const {
  if (revision < compacted_) {
    return tl::unexpected(
        Status::expired(fmt::format("too old resource version: {} ({})", revision, compacted_)));
  }
  auto& select = db_->selectAt;
  const std::string end = prefixEnd(prefix);
  select.bind(1, prefix);
  select.bind(2, end);
  select.bind(3, revision);
  while (true) {
    auto row = select.step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    if (static_cast<EventType>(select.columnInt(1)) == EventType::Deleted) continue;
    std::string key(select.columnText(0));
    auto object = parseStored(key, select.columnText(2));
    if (!object) {
      select.reset();
      return tl::unexpected(object.error());
    }
    if (!visit(key, *object)) break;
  }
  select.reset();
  return {};
}

void Store::maybeCompact() {
  const std::int64_t retained = options_.retainedRevisions;
  if (retained <= 0) return;
  // Compact in batches of a tenth of the window so the cost is amortised over many writes.
  if (revision_ - compacted_ > retained + std::max<std::int64_t>(1, retained / 10)) {
    (void)compact(revision_ - retained);
  }
}

}  // namespace fakekube
