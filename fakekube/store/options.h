// StoreOptions: where the store keeps its data and how much history it keeps.
//
// Apart from store.h so that ApiServerOptions can carry them without exposing the store itself:
// the store is the API server's business, its options are the caller's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fakekube {

struct StoreOptions {
  // ":memory:" (the default) or a file path; a file is opened in WAL mode.
  std::string path = ":memory:";
  // WAL with synchronous=NORMAL never loses a committed write when the process dies; FULL also
  // survives power loss at the cost of an fsync per write.
  bool synchronousFull = false;
  // How many revisions the event log keeps. Watches and exact-RV reads older than that answer
  // 410 Expired, as a compacted etcd does. 0 disables automatic compaction.
  std::int64_t retainedRevisions = 10000;
  // etcd's request limit (~1.5 MiB): a larger serialised object is refused with 413.
  std::size_t maxObjectBytes = 1536 * 1024;
  // An in-memory database is written by a thread of its own, behind the writes (no durability
  // is lost: it has none beyond the process). false: each write inserts its row before it
  // returns, as a file database always does.
  bool writeBehind = true;
};

}  // namespace fakekube
