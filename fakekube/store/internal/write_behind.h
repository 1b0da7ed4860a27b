// WriteBehind: an in-memory store's SQLite writes, made on a thread of their own.
//
// An in-memory database is no more durable than the process that holds it. What answers a read
// is the store's map of live objects; SQLite keeps the history (a watch from an old revision, a
// list at an exact one). So the store hands each write's row over and goes on, as etcd applies
// its log to the backend in batches behind the write path: a thread inserts the rows in batches,
// one transaction each, and runs the compactions queued among them in order. Whatever reads
// SQLite drains the queue first, so it reads what a store writing synchronously would show, and
// the order of everything the store answers stays what it was. A file database never uses it: a
// write there is acknowledged once it is committed.
//
// A row may carry its document instead of its text: the writer thread serialises it, which is
// most of the work of a write, off the thread that serves requests. The document is immutable
// once stored, so both threads may read it. Its reference comes back to the store's thread to be
// dropped there (taken by the next add()): the last reference frees the whole document, and
// memory freed on another thread than the one that allocated it makes the allocator's caches
// trade memory back and forth, which costs more than the freeing.
//
// A batch that fails is rolled back, and every later operation reports that failure: the store
// then refuses writes (the rows of the failed batch stay live in memory, but the history misses
// them). With the rowid primary key and nothing else to violate, only running out of memory makes
// an in-memory insert fail.
//
// Thread-safe: the store's thread adds and drains, the writer thread applies.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "fakekube/api/object.h"
#include "fakekube/api/status.h"

namespace fakekube {

class WriteBehind {
 public:
  // One row of the revisions table.
  struct Row {
    std::int64_t revision = 0;
    int type = 0;
    std::string key;
    std::int64_t previous = 0;  // the superseded row, 0 for none (a create)
    std::string data;
    // When set, the row's data is this document's JSON text (appendJson), written by the
    // writer thread; `data` is then empty.
    ObjectPtr object;
  };
  // Removal of the rows superseded in (from, upTo], and of the tombstones there.
  struct Compaction {
    std::int64_t from = 0;
    std::int64_t upTo = 0;
    bool anySuperseded = true;  // false: only the mark moves
  };
  using Operation = std::variant<Row, Compaction>;
  // Applies a batch in one transaction (on the writer thread): all of it, or none and an error.
  using Apply = std::function<Result<void>(const std::vector<Operation>&)>;

  explicit WriteBehind(Apply apply);
  // Applies what is queued, then stops the thread.
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  // Queues an operation, unless a batch has failed: then nothing is queued and the failure is
  // the answer. Drops the document references that applied rows gave back. The writer is woken once
  // kWakeAfter operations wait (a wake-up per write would cost more than the insert it hands over);
  // past kMaxQueued operations this first waits for the writer to catch up, so a burst of writes
  // cannot grow the queue without bound.
  Result<void> add(Operation operation);
  // A buffer for the next row's data: the storage of an applied row when there is one, so the
  // rows' memory goes back and forth instead of being allocated on one thread and freed on the
  // other.
  std::string spareBuffer();
  // Waits until every queued operation has been applied. Until the next add(), the caller may
  // use the database itself. The first failure of any batch, if there was one.
  Result<void> drain();
  // The first failure of any batch so far (without waiting).
  std::optional<Status> failure() const;

  static constexpr std::size_t kWakeAfter = 128;
  static constexpr std::size_t kMaxQueued = 1 << 15;

 private:
  void run();

  Apply apply_;
  mutable std::mutex mu_;
  std::condition_variable work_;  // something queued, or stopping
  std::condition_variable idle_;  // a batch finished
  std::vector<Operation> queued_;
  std::vector<std::string> spare_;   // the data buffers of applied rows
  std::vector<ObjectPtr> released_;  // the documents of applied rows, to drop on add()'s thread
  bool applying_ = false;
  bool flushing_ = false;  // drain() waits: apply whatever is queued
  bool stopping_ = false;
  std::optional<Status> failure_;
  std::thread thread_;
};

}  // namespace fakekube
