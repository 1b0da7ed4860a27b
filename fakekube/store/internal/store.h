// Store: fakekube's storage, an etcd-like multi-version key/value store on SQLite.
//
// Like etcd, the database holds revisions, not objects: every write appends one row (revision,
// type, key, the revision of the key's row it supersedes, the object as written) to a single
// table, and a key's current object is its newest row. The global revision is the newest row's.
// So a write is exactly one INSERT (one implicit transaction), the row log doubles as the watch
// event log, and the state at any revision back to the compaction mark can be read (List with
// resourceVersionMatch=Exact, and the later pages of a paginated list). Compaction removes rows
// that a later row of the same key supersedes at or below the mark, and deletion tombstones, as
// etcd's compaction does.
//
// Also like etcd, the index from keys to their revisions is kept in memory, not in the database:
// every live object is kept parsed with its revision, and each row names the row it superseded,
// so the history of a key is a chain of rowid lookups. A write then touches one B-tree, not two;
// reads never touch SQLite and never re-parse JSON, and a write serialises its document once.
// The database is the durable copy; the map is rebuilt from it on open.
//
// An in-memory store (the default) writes its rows to SQLite on a thread of its own
// (write_behind.h): its writes cost what the map and the watch need, and the inserts run beside
// them; every read of SQLite waits for the queued rows first.
//
// A Store is not thread-safe: the API server serialises access to it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/api/status.h"
#include "fakekube/store/internal/write_behind.h"
#include "fakekube/store/options.h"

namespace fakekube {

enum class EventType { Added = 1, Modified = 2, Deleted = 3 };
const char* eventTypeName(EventType type);  // "ADDED", "MODIFIED", "DELETED"

// One entry of the event log: the object as it was written at `revision` (for a deletion, its
// last state stamped with the deletion's revision, as Kubernetes' DELETED events carry it).
struct StoredEvent {
  std::int64_t revision = 0;
  EventType type = EventType::Added;
  std::string key;
  ObjectPtr object;
  // The key's object before this write (null for a create, and for events read back from the
  // database). Watches with selectors need it to turn "stopped matching" into DELETED.
  ObjectPtr previous;
};

class Store {
 public:
  static Result<std::unique_ptr<Store>> open(const StoreOptions& options);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // The revision of the newest write (0 for an empty store).
  std::int64_t revision() const { return revision_; }
  // Event-log entries at or below this revision are gone.
  std::int64_t compactedRevision() const { return compacted_; }
  const std::string& path() const { return options_.path; }

  // --- reads (memory only) ---
  ObjectPtr get(std::string_view key) const;
  // Visits the objects whose key starts with `prefix`, in key order, beginning after
  // `startAfter` (empty = from the start). The visitor returns false to stop.
  void scan(
      std::string_view prefix, std::string_view startAfter,
      const std::function<bool(const std::string& key, const ObjectPtr& object)>& visit) const;
  std::size_t size() const { return objects_.size(); }

  // --- writes (one transaction each) ---
  // Stores `object` under `key` at a new revision, which it writes into
  // metadata.resourceVersion first. `type` is Added for a create, Modified otherwise; a create of
  // a key that holds an object is refused with 409 AlreadyExists (naming the key: the caller
  // words it for its resource) and changes nothing.
  Result<ObjectPtr> put(const std::string& key, Json object, EventType type);
  // The same for a Modified write whose document is the stored one with only the top-level member
  // `changed` replaced (a status write), apart from metadata.resourceVersion: the size limit is
  // then checked against the stored document's bound corrected by that member's, not a walk of
  // the whole document (see jsonTextSizeBound). The caller vouches for "only".
  Result<ObjectPtr> putChangingOnly(const std::string& key, Json object, std::string_view changed);
  // Removes `key`; the DELETED event carries `finalState` stamped with the new revision.
  Result<ObjectPtr> remove(const std::string& key, Json finalState);

  // --- event log ---
  // Visits the objects under `prefix` as they were at `revision` (compactedRevision() <=
  // revision <= revision()), in key order. Reads SQLite and parses: for the rare exact-revision
  // list, not for the hot path. 410 Expired below the compaction mark.
  Result<void> scanAt(
      std::string_view prefix, std::int64_t revision,
      const std::function<bool(const std::string& key, const ObjectPtr& object)>& visit) const {
    return scanAt(prefix, revision, {}, visit);
  }
  // The same, beginning after `startAfter` (empty = from the start): a later page of a list
  // costs what the page holds (and the writes since `revision`), not what comes before it.
  Result<void> scanAt(
      std::string_view prefix, std::int64_t revision, std::string_view startAfter,
      const std::function<bool(const std::string& key, const ObjectPtr& object)>& visit) const;

  // Events with revision > `after`, oldest first, at most `limit`. 410 Expired when `after` is
  // older than the compaction mark.
  Result<std::vector<StoredEvent>> eventsSince(std::int64_t after, std::size_t limit) const;
  // Drops event-log entries at or below `upTo` (clamped to the current revision).
  Result<std::int64_t> compact(std::int64_t upTo);

  // Called after every committed write, in revision order (the watch hub hangs here). The event
  // is valid for the call only, and the observer must not write to the store.
  void setObserver(std::function<void(const StoredEvent&)> observer) {
    observer_ = std::move(observer);
  }

 private:
  class Database;
  Store(StoreOptions options, std::unique_ptr<Database> db);
  Result<ObjectPtr> write(const std::string& key, Json object, EventType type,
                          std::string_view changedOnly = {});
  Result<void> load();
  // The object stored in row `revision` (which must exist).
  Result<ObjectPtr> readObject(std::string_view key, std::int64_t revision) const;
  void maybeCompact();
  // Waits for the rows queued for the writer thread, if there is one (before reading SQLite).
  Result<void> drained() const;
  // One row of the revisions table (`previous` 0: NULL, a create).
  Result<void> insertRow(std::int64_t revision, int type, std::string_view key,
                         std::int64_t previous, std::string_view data);
  // The writer thread's batch, in one transaction.
  Result<void> apply(const std::vector<WriteBehind::Operation>& batch);
  // Deletes the rows compaction to `upTo` removes and records the mark (within a transaction).
  Result<void> removeCompacted(std::int64_t from, std::int64_t upTo, bool anySuperseded);

  StoreOptions options_;
  std::unique_ptr<Database> db_;
  // A live object and the revision of its row.
  struct Entry {
    ObjectPtr object;
    std::int64_t revision = 0;
    // An upper bound on the document's text (jsonTextSizeBound, or its exact size): 0 = unknown.
    std::size_t textBound = 0;
  };
  std::map<std::string, Entry, std::less<>> objects_;
  std::int64_t revision_ = 0;
  std::int64_t compacted_ = 0;
  std::function<void(const StoredEvent&)> observer_;
  std::string scratch_;        // serialisation buffer, reused so a write makes no large allocation
  std::string writerScratch_;  // the same, for the rows the writer thread serialises
  StoredEvent event_;          // what the observer is shown, reused likewise
  // The newest write that superseded a row (a modification or a deletion). Compaction to a mark
  // has rows to remove only if such a write came after the previous mark. Unknown after open,
  // where it is taken to be the newest write.
  std::int64_t lastSupersedingWrite_ = 0;
  // In memory only; declared last, so that it stops (having applied its queue) before the rest.
  std::unique_ptr<WriteBehind> writeBehind_;
};

}  // namespace fakekube
