#include "fakekube/store/internal/store.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/store/internal/sqlite.h"
#include "fakekube/store/internal/write_behind.h"

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
  sqlite::Statement insertRevision, selectEventsSince, compactSuperseded, compactTombstones,
      saveCompacted, selectWritesAfter, selectData;
};

namespace {

// `prev` is the revision of the key's row that this write supersedes (NULL for a create): the
// history of a key is a chain through it, so no secondary index on key is needed. It comes
// before `data` so that reading it never touches a large document's overflow pages.
constexpr std::string_view kSchema = R"sql(
CREATE TABLE IF NOT EXISTS revisions(
  rv INTEGER PRIMARY KEY,
  type INTEGER NOT NULL,
  key TEXT NOT NULL,
  prev INTEGER,
  data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta(
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL);
)sql";

// A database written before rows recorded `prev` had an index on (key, rv) instead: the chain is
// rebuilt from it once, and the index goes. A row whose predecessor is a tombstone (a create
// after a delete) has none.
constexpr std::string_view kMigrateToChains = R"sql(
CREATE TABLE revisions_chained(
  rv INTEGER PRIMARY KEY,
  type INTEGER NOT NULL,
  key TEXT NOT NULL,
  prev INTEGER,
  data TEXT NOT NULL);
INSERT INTO revisions_chained(rv, type, key, prev, data)
  SELECT r.rv, r.type, r.key,
         (SELECT CASE WHEN p.type = 3 THEN NULL ELSE p.rv END FROM revisions AS p
          WHERE p.key = r.key AND p.rv < r.rv ORDER BY p.rv DESC LIMIT 1),
         r.data
  FROM revisions AS r;
DROP TABLE revisions;
ALTER TABLE revisions_chained RENAME TO revisions;
)sql";

Result<std::int64_t> queryInt(sqlite::Connection& c, std::string_view sql) {
  auto stmt = c.prepare(sql);
  if (!stmt) return tl::unexpected(stmt.error());
  auto row = stmt->step();
  if (!row) return tl::unexpected(row.error());
  return *row ? stmt->columnInt(0) : 0;
}

Result<ObjectPtr> parseStored(std::string_view key, std::string_view text) {
  // Nested no deeper than the decoders allow, as everything the server wrote is (json_decode.h).
  Json doc = checkJsonTextDepth(text) ? Json(nullptr)
                                      : Json::parse(text, nullptr, /*allow_exceptions=*/false);
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

// Whether the revisions table predates the `prev` chain.
Result<bool> needsChainMigration(sqlite::Connection& c) {
  auto columns = c.prepare("SELECT name FROM pragma_table_info('revisions')");
  if (!columns) return tl::unexpected(columns.error());
  bool any = false;
  while (true) {
    auto row = columns->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    any = true;
    if (columns->columnText(0) == "prev") return false;
  }
  return any;
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
  // In memory, pages of 64 KiB: a typical object's row (a Pod's is about 3 KiB) takes a page of
  // its own at SQLite's default 4 KiB, a quarter of it slack, and the rows of a database in
  // memory are a third of what the server holds per object. A file keeps the default: each
  // commit writes whole pages to the write-ahead log. (The size takes effect for a new database
  // only: before its first table.)
  std::string pragmas = inMemory ? "PRAGMA page_size=65536; PRAGMA journal_mode=MEMORY;"
                                 : fmt::format("PRAGMA journal_mode=WAL; PRAGMA synchronous={};",
                                               options.synchronousFull ? "FULL" : "NORMAL");
  if (auto r = c.exec(pragmas); !r) return tl::unexpected(r.error());
  auto migrate = needsChainMigration(c);
  if (!migrate) return tl::unexpected(migrate.error());
  if (*migrate) {
    if (auto r = c.exec("BEGIN IMMEDIATE"); !r) return tl::unexpected(r.error());
    if (auto r = c.exec(kMigrateToChains); !r) {
      (void)c.exec("ROLLBACK");
      return tl::unexpected(r.error());
    }
    if (auto r = c.exec("COMMIT"); !r) return tl::unexpected(r.error());
  }
  if (auto r = c.exec(kSchema); !r) return tl::unexpected(r.error());

  struct Prepared {
    sqlite::Statement* target;
    std::string_view sql;
  };
  Prepared statements[] = {
      {&db->begin, "BEGIN IMMEDIATE"},
      {&db->commit, "COMMIT"},
      {&db->rollback, "ROLLBACK"},
      {&db->insertRevision,
       "INSERT INTO revisions(rv, type, key, prev, data) VALUES(?1, ?2, ?3, ?4, ?5)"},
      {&db->selectEventsSince,
       "SELECT rv, type, key, data FROM revisions WHERE rv > ?1 ORDER BY rv LIMIT ?2"},
      // Rows that a write in (?1, ?2] superseded, and tombstones in (?1, ?2]: those rows are at
      // or below the mark ?2 and something at or below it replaced them. Rows superseded by
      // writes at or below ?1 went at the previous compaction.
      {&db->compactSuperseded,
       "DELETE FROM revisions WHERE rv IN (SELECT prev FROM revisions WHERE rv > ?1 AND rv <= ?2 "
       "AND prev IS NOT NULL)"},
      {&db->compactTombstones, "DELETE FROM revisions WHERE rv > ?1 AND rv <= ?2 AND type = 3"},
      {&db->saveCompacted,
       "INSERT INTO meta(name, value) VALUES('compacted', ?1) "
       "ON CONFLICT(name) DO UPDATE SET value = excluded.value"},
      {&db->selectWritesAfter,
       "SELECT key, prev FROM revisions WHERE rv > ?1 AND key >= ?2 AND key < ?3 ORDER BY rv"},
      {&db->selectData, "SELECT data FROM revisions WHERE rv = ?1"},
  };
  for (auto& p : statements) {
    auto stmt = c.prepare(p.sql);
    if (!stmt) return tl::unexpected(stmt.error());
    *p.target = std::move(*stmt);
  }

  std::unique_ptr<Store> store(new Store(options, std::move(db)));
  if (auto r = store->load(); !r) return tl::unexpected(r.error());
  if (inMemory && options.writeBehind) {
    Store* self = store.get();
    store->writeBehind_ = std::make_unique<WriteBehind>(
        [self](const std::vector<WriteBehind::Operation>& batch) { return self->apply(batch); });
  }
  return store;
}

Store::Store(StoreOptions options, std::unique_ptr<Database> db)
    : options_(std::move(options)), db_(std::move(db)) {}

Store::~Store() {
  // The queued rows go in before the connection closes (a shared in-memory database outlives
  // this store).
  writeBehind_.reset();
}

Result<void> Store::drained() const {
  if (!writeBehind_) return {};
  return writeBehind_->drain();
}

// On the writer thread: one transaction for the whole batch.
Result<void> Store::apply(const std::vector<WriteBehind::Operation>& batch) {
  auto& db = *db_;
  if (auto r = db.begin.run(); !r) return r;
  auto fail = [&](const Status& s) -> Result<void> {
    (void)db.rollback.run();
    return tl::unexpected(s);
  };
  for (const auto& operation : batch) {
    if (const auto* row = std::get_if<WriteBehind::Row>(&operation)) {
      std::string_view data = row->data;
      if (row->object) {
        writerScratch_.clear();
        appendJson(writerScratch_, *row->object);
        data = writerScratch_;
      }
      if (auto r = insertRow(row->revision, row->type, row->key, row->previous, data); !r) {
        return fail(r.error());
      }
    } else {
      const auto& compaction = std::get<WriteBehind::Compaction>(operation);
      if (auto r = removeCompacted(compaction.from, compaction.upTo, compaction.anySuperseded);
          !r) {
        return fail(r.error());
      }
    }
  }
  if (auto r = db.commit.run(); !r) return fail(r.error());
  return {};
}

Result<void> Store::insertRow(std::int64_t revision, int type, std::string_view key,
                              std::int64_t previous, std::string_view data) {
  auto& insert = db_->insertRevision;
  insert.bind(1, revision);
  insert.bind(2, static_cast<std::int64_t>(type));
  insert.bind(3, key);
  if (previous != 0) insert.bind(4, previous);  // else NULL
  insert.bind(5, data);
  return insert.run();
}

Result<void> Store::removeCompacted(std::int64_t from, std::int64_t upTo, bool anySuperseded) {
  auto& db = *db_;
  // Rows are superseded only by modifications and deletions: after creates alone there is
  // nothing to remove, and only the mark moves.
  if (anySuperseded) {
    for (auto* statement : {&db.compactSuperseded, &db.compactTombstones}) {
      statement->bind(1, from);
      statement->bind(2, upTo);
      if (auto r = statement->run(); !r) return r;
    }
  }
  db.saveCompacted.bind(1, upTo);
  return db.saveCompacted.run();
}

Result<void> Store::load() {
  auto& c = db_->connection;
  auto compacted = queryInt(c, "SELECT value FROM meta WHERE name = 'compacted'");
  if (!compacted) return tl::unexpected(compacted.error());
  auto newest = queryInt(c, "SELECT COALESCE(MAX(rv), 0) FROM revisions");
  if (!newest) return tl::unexpected(newest.error());
  compacted_ = *compacted;
  revision_ = std::max(*compacted, *newest);
  lastSupersedingWrite_ = revision_;

  // Each key's newest row, found by one pass in revision order that reads no documents; then
  // only the live ones are read and parsed.
  struct Newest {
    std::int64_t revision;
    bool deleted;
  };
  std::unordered_map<std::string, Newest> newestByKey;
  auto rows = c.prepare("SELECT rv, type, key FROM revisions ORDER BY rv");
  if (!rows) return tl::unexpected(rows.error());
  while (true) {
    auto row = rows->step();
    if (!row) return tl::unexpected(row.error());
    if (!*row) break;
    newestByKey[std::string(rows->columnText(2))] = {
        rows->columnInt(0), static_cast<EventType>(rows->columnInt(1)) == EventType::Deleted};
  }
  for (const auto& [key, newest] : newestByKey) {
    if (newest.deleted) continue;
    auto object = readObject(key, newest.revision);
    if (!object) return tl::unexpected(object.error());
    objects_.emplace(key, Entry{std::move(*object), newest.revision});
  }
  return {};
}

Result<ObjectPtr> Store::readObject(std::string_view key, std::int64_t revision) const {
  if (auto r = drained(); !r) return tl::unexpected(r.error());
  auto& select = db_->selectData;
  select.bind(1, revision);
  auto row = select.step();
  if (!row) return tl::unexpected(row.error());
  if (!*row) {
    select.reset();
    return tl::unexpected(
        Status::internal(fmt::format("storage: revision {} of {} is missing", revision, key)));
  }
  auto object = parseStored(key, select.columnText(0));
  select.reset();
  return object;
}

ObjectPtr Store::get(std::string_view key) const {
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second.object;
}

void Store::scan(std::string_view prefix, std::string_view startAfter,
                 const std::function<bool(const std::string&, const ObjectPtr&)>& visit) const {
  auto it = startAfter.empty() ? objects_.lower_bound(prefix) : objects_.upper_bound(startAfter);
  if (!startAfter.empty() && startAfter < prefix) it = objects_.lower_bound(prefix);
  for (; it != objects_.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    if (!visit(it->first, it->second.object)) break;
  }
}

Result<ObjectPtr> Store::put(const std::string& key, Json object, EventType type) {
  return write(key, std::move(object), type);
}

Result<ObjectPtr> Store::putChangingOnly(const std::string& key, Json object,
                                         std::string_view changed) {
  return write(key, std::move(object), EventType::Modified, changed);
}

Result<ObjectPtr> Store::remove(const std::string& key, Json finalState) {
  return write(key, std::move(finalState), EventType::Deleted);
}

namespace {

// What a top-level member adds to an object's bound: its key, quoted and escaped at worst, the
// colon, a comma, and its value's bound (nothing when absent).
std::size_t memberBound(const Json& object, std::string_view key) {
  auto it = object.find(key);
  if (it == object.end()) return 0;
  return 6 * key.size() + 4 + jsonTextSizeBound(*it);
}

// Room for what else a "changing only" write may change: metadata.resourceVersion, which grows
// by a digit now and then (a digit's bound is 6).
constexpr std::size_t kResourceVersionSlack = 6 * 20;

}  // namespace

Result<ObjectPtr> Store::write(const std::string& key, Json object, EventType type,
                               std::string_view changedOnly) {
  // One walk down the map finds the key's entry, or where it goes.
  auto position = objects_.lower_bound(key);
  auto current = position != objects_.end() && position->first == key ? position : objects_.end();
  if (type == EventType::Added && current != objects_.end()) {
    Status exists = Status::generic(409, "AlreadyExists", fmt::format("{} already exists", key));
    return tl::unexpected(std::move(exists));
  }
  const std::int64_t rv = revision_ + 1;
  jsonMember(jsonMember(object, "metadata"), "resourceVersion") = std::to_string(rv);
  auto tooLarge = [&] {
    return tl::unexpected(Status::requestEntityTooLarge(
        fmt::format("limit is {}: etcdserver: request is too large", options_.maxObjectBytes)));
  };
  const std::int64_t supersededRow = current != objects_.end() ? current->second.revision : 0;
  ObjectPtr stored;
  Result<void> persisted;
  std::size_t bound = 0;
  if (writeBehind_) {
    if (!changedOnly.empty() && current != objects_.end() && current->second.textBound != 0) {
      const Entry& was = current->second;
      bound = was.textBound + kResourceVersionSlack + memberBound(object, changedOnly);
      const std::size_t removed = memberBound(*was.object, changedOnly);
      bound = bound > removed ? bound - removed : 0;
    }
    if (bound == 0) bound = jsonTextSizeBound(object);
  }
  if (writeBehind_ && bound <= options_.maxObjectBytes) {
    // In memory, a document certainly within the limit goes to the writer thread as it is,
    // and is serialised there (write_behind.h), which refuses it once a batch has failed.
    stored = std::make_shared<const Json>(std::move(object));
    WriteBehind::Row row{rv, static_cast<int>(type), key, supersededRow, std::string(), stored};
    persisted = writeBehind_->add(std::move(row));
  } else {
    // Serialised here, to know its size, into a buffer reused across writes: the store's own,
    // or, in memory, an applied row's, which the new row then carries to the writer thread.
    std::string rowData = writeBehind_ ? writeBehind_->spareBuffer() : std::string();
    std::string& text = writeBehind_ ? rowData : scratch_;
    text.clear();
    appendJson(text, object);
    if (text.size() > options_.maxObjectBytes) return tooLarge();
    bound = text.size();
    // Otherwise one INSERT is one transaction: the write is durable (or refused) as a whole.
    persisted = writeBehind_
                    ? writeBehind_->add(WriteBehind::Row{rv, static_cast<int>(type), key,
                                                         supersededRow, std::move(rowData)})
                    : insertRow(rv, static_cast<int>(type), key, supersededRow, text);
    if (persisted) stored = std::make_shared<const Json>(std::move(object));
  }
  if (!persisted) return tl::unexpected(persisted.error());

  // Committed (or, in memory, queued): only now does memory change.
  revision_ = rv;
  if (type != EventType::Added) lastSupersedingWrite_ = rv;
  ObjectPtr previous;
  if (type == EventType::Deleted) {
    if (current != objects_.end()) {
      previous = std::move(current->second.object);
      objects_.erase(current);
    }
  } else if (current != objects_.end()) {
    previous = std::move(current->second.object);
    current->second = Entry{stored, rv, bound};
  } else {
    objects_.emplace_hint(position, key, Entry{stored, rv, bound});
  }
  if (observer_) {
    // The event is assembled in a member whose key buffer is reused from write to write.
    event_.revision = rv;
    event_.type = type;
    event_.key.assign(key);
    event_.object = stored;
    event_.previous = std::move(previous);
    observer_(event_);
    event_.object.reset();
    event_.previous.reset();
  }
  maybeCompact();
  return stored;
}

Result<std::vector<StoredEvent>> Store::eventsSince(std::int64_t after, std::size_t limit) const {
  if (after < compacted_) {
    return tl::unexpected(
        Status::expired(fmt::format("too old resource version: {} ({})", after, compacted_)));
  }
  if (auto r = drained(); !r) return tl::unexpected(r.error());
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
  const bool anySuperseded = lastSupersedingWrite_ > compacted_;
  if (writeBehind_) {
    // The mark moves now (reads below it answer 410 from here on); the rows go in order with
    // the writes queued before.
    if (auto queued = writeBehind_->add(WriteBehind::Compaction{compacted_, upTo, anySuperseded});
        !queued) {
      return tl::unexpected(queued.error());
    }
    compacted_ = upTo;
    return compacted_;
  }
  auto& db = *db_;
  if (auto r = db.begin.run(); !r) return tl::unexpected(r.error());
  if (auto r = removeCompacted(compacted_, upTo, anySuperseded); !r) {
    (void)db.rollback.run();
    return tl::unexpected(r.error());
  }
  if (auto r = db.commit.run(); !r) {
    (void)db.rollback.run();
    return tl::unexpected(r.error());
  }
  compacted_ = upTo;
  return compacted_;
}

Result<void> Store::scanAt(
    std::string_view prefix, std::int64_t revision, std::string_view startAfter,
    const std::function<bool(const std::string&, const ObjectPtr&)>& visit) const {
  if (revision < compacted_) {
    return tl::unexpected(
        Status::expired(fmt::format("too old resource version: {} ({})", revision, compacted_)));
  }
  // The state at `revision` is today's, except for the keys written since: for each of those,
  // the first write after `revision` names the row it superseded, which is the key's state then
  // (none if that write was a create).
  if (auto r = drained(); !r) return tl::unexpected(r.error());
  std::map<std::string, std::int64_t, std::less<>> changed;  // key -> its row then, 0 for none
  auto& select = db_->selectWritesAfter;
  const std::string end = prefixEnd(prefix);
  // Keys at or before `startAfter` are not visited (a key equal to it is dropped below).
  const bool resume = !startAfter.empty() && startAfter >= prefix;
  select.bind(1, revision);
  select.bind(2, resume ? startAfter : prefix);
  select.bind(3, end);
  while (true) {
    auto row = select.step();
    if (!row) {
      select.reset();
      return tl::unexpected(row.error());
    }
    if (!*row) break;
    std::string_view key = select.columnText(0);
    if (resume && key == startAfter) continue;
    changed.try_emplace(std::string(key), select.columnInt(1));
  }
  select.reset();

  // Merge today's objects with the changed keys, in key order.
  auto current = resume ? objects_.upper_bound(startAfter) : objects_.lower_bound(prefix);
  auto inPrefix = [&](const std::string& key) {
    return key.compare(0, prefix.size(), prefix) == 0;
  };
  auto then = changed.begin();
  while (true) {
    const bool currentLeft = current != objects_.end() && inPrefix(current->first);
    const bool changedLeft = then != changed.end();
    if (!currentLeft && !changedLeft) break;
    if (changedLeft && (!currentLeft || then->first <= current->first)) {
      if (currentLeft && then->first == current->first) ++current;  // superseded since
      const auto& [key, row] = *then++;
      if (row == 0) continue;  // created after `revision`
      auto object = readObject(key, row);
      if (!object) return tl::unexpected(object.error());
      if (!visit(key, *object)) break;
    } else {
      if (!visit(current->first, current->second.object)) break;
      ++current;
    }
  }
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
