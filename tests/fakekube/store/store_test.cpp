// The store is etcd's role in fakekube: one global revision over every write (deletes too), an
// event log that a watch replays, compaction with 410 Expired, etcd's request size limit, and a
// file that survives a restart with its revision and compaction mark.
#include "fakekube/store/internal/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fakekube/api/json_writer.h"

namespace fakekube {
namespace {

std::unique_ptr<Store> openStore(const StoreOptions& options = {}) {
  auto store = Store::open(options);
  if (!store) {
    ADD_FAILURE() << "Store::open: " << store.error().str();
    return nullptr;
  }
  return std::move(*store);
}

Json object(const std::string& name, const std::string& value = "v") {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"data", {{"k", value}}}};
}

std::string keyOf(const std::string& name) { return "/configmaps/default/" + name; }

std::string rvOf(const Json& j) { return j["metadata"]["resourceVersion"].get<std::string>(); }

// The options of a store that keeps the last `revisions` events (0: compacts only when told).
StoreOptions retaining(std::int64_t revisions) {
  StoreOptions options;
  options.retainedRevisions = revisions;
  return options;
}

// A store that compacts only when told (retainedRevisions 0) holding `count` objects o0, o1, ...
// written at revisions 1 to `count`; null when it does not open or a write fails.
std::unique_ptr<Store> manuallyCompactedStoreWith(int count) {
  auto store = openStore(retaining(0));
  for (int i = 0; store != nullptr && i < count; ++i) {
    auto put = store->put(keyOf("o" + std::to_string(i)), object("o"), EventType::Added);
    EXPECT_TRUE(put) << put.error().str();
    if (!put) return nullptr;
  }
  return store;
}

// The resourceVersion the store gives a new object "c" (the revision a write after the test's
// ones takes).
std::string resourceVersionOfTheNextWrite(Store& store) {
  auto next = store.put(keyOf("c"), object("c"), EventType::Added);
  EXPECT_TRUE(next) << next.error().str();
  return next ? rvOf(**next) : "";
}

std::vector<std::int64_t> revisionsOf(const std::vector<StoredEvent>& events) {
  std::vector<std::int64_t> out;
  for (const auto& e : events) out.push_back(e.revision);
  return out;
}

// A fresh directory under /tmp, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = "/tmp/fakekube-store-test-XXXXXX";
    char* made = ::mkdtemp(pattern.data());
    if (made == nullptr) {
      ADD_FAILURE() << "mkdtemp failed";
    } else {
      path_ = made;
    }
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A file store in `dir` that compacts only when told to.
StoreOptions manuallyCompactedFile(const TempDir& dir) {
  StoreOptions options = retaining(0);
  options.path = dir.file("store.db");
  return options;
}

TEST(StoreTest, EmptyStoreStartsAtRevisionZero) {
  auto store = openStore();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->revision(), 0);
  EXPECT_EQ(store->compactedRevision(), 0);
  EXPECT_EQ(store->size(), 0u);
  EXPECT_EQ(store->get(keyOf("missing")), nullptr);
}

TEST(StoreTest, PutThenGetReturnsTheObjectStampedWithTheNewRevision) {
  auto store = openStore();
  ASSERT_NE(store, nullptr);
  auto put = store->put(keyOf("a"), object("a", "1"), EventType::Added);
  ASSERT_TRUE(put) << put.error().str();
  EXPECT_EQ(rvOf(**put), "1");
  EXPECT_EQ((**put)["data"]["k"], "1");

  ObjectPtr got = store->get(keyOf("a"));
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(*got, **put);
  EXPECT_EQ(store->size(), 1u);

  // Overwrite: same key, next revision, new content.
  auto again = store->put(keyOf("a"), object("a", "2"), EventType::Modified);
  ASSERT_TRUE(again);
  EXPECT_EQ(rvOf(**again), "2");
  EXPECT_EQ((*store->get(keyOf("a")))["data"]["k"], "2");
  EXPECT_EQ(store->size(), 1u);
}

TEST(StoreTest, RemoveDeletesTheKey) {
  auto store = openStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->put(keyOf("a"), object("a"), EventType::Added));
  ASSERT_TRUE(store->put(keyOf("b"), object("b"), EventType::Added));
  auto removed = store->remove(keyOf("a"), *store->get(keyOf("a")));
  ASSERT_TRUE(removed) << removed.error().str();
  EXPECT_EQ(store->get(keyOf("a")), nullptr);
  EXPECT_NE(store->get(keyOf("b")), nullptr);
  EXPECT_EQ(store->size(), 1u);
}

TEST(StoreTest, ScanVisitsThePrefixInKeyOrderFromStartAfter) {
  auto store = openStore();
  ASSERT_NE(store, nullptr);
  for (const char* key : {"/configmaps/default/c", "/configmaps/default/a", "/configmaps/other/x",
                          "/configmaps/default/b", "/pods/default/a", "/configmaps/defaults/z"}) {
    ASSERT_TRUE(store->put(key, object("o"), EventType::Added));
  }
  auto keys = [&](std::string_view prefix, std::string_view startAfter, std::size_t stopAfter) {
    std::vector<std::string> out;
    store->scan(prefix, startAfter, [&](const std::string& key, const ObjectPtr& obj) {
      EXPECT_NE(obj, nullptr);
      out.push_back(key);
      return out.size() < stopAfter;
    });
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(keys("/configmaps/default/", "", 100),
            (V{"/configmaps/default/a", "/configmaps/default/b", "/configmaps/default/c"}));
  EXPECT_EQ(keys("/configmaps/default/", "/configmaps/default/a", 100),
            (V{"/configmaps/default/b", "/configmaps/default/c"}));
  EXPECT_EQ(keys("/configmaps/", "", 100),
            (V{"/configmaps/default/a", "/configmaps/default/b", "/configmaps/default/c",
               "/configmaps/defaults/z", "/configmaps/other/x"}));
  // A startAfter before the prefix starts from the prefix; the visitor can stop early.
  EXPECT_EQ(keys("/configmaps/default/", "/a", 100),
            (V{"/configmaps/default/a", "/configmaps/default/b", "/configmaps/default/c"}));
  EXPECT_EQ(keys("/configmaps/", "", 2), (V{"/configmaps/default/a", "/configmaps/default/b"}));
  EXPECT_EQ(keys("/nothing/", "", 100), V{});
}

TEST(StoreTest, CreatingAKeyThatExistsIsAlreadyExistsAndChangesNothing) {
  auto store = openStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->put(keyOf("a"), object("a", "first"), EventType::Added));
  int observed = 0;
  store->setObserver([&](const StoredEvent&) { ++observed; });
  auto again = store->put(keyOf("a"), object("a", "second"), EventType::Added);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, 409);
  EXPECT_EQ(again.error().reason, "AlreadyExists");
  EXPECT_EQ(store->revision(), 1);
  EXPECT_EQ((*store->get(keyOf("a")))["data"]["k"], "first");
  EXPECT_EQ(observed, 0);
  auto events = store->eventsSince(0, 10);
  ASSERT_TRUE(events);
  EXPECT_EQ(events->size(), 1u);
}

TEST(StoreTest, RevisionIncrementsByOnePerWriteIncludingDeletes) {
  auto store = openStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->put(keyOf("a"), object("a"), EventType::Added));
  EXPECT_EQ(store->revision(), 1);
  ASSERT_TRUE(store->put(keyOf("b"), object("b"), EventType::Added));
  EXPECT_EQ(store->revision(), 2);
  ASSERT_TRUE(store->put(keyOf("a"), object("a", "x"), EventType::Modified));
  EXPECT_EQ(store->revision(), 3);
  ASSERT_TRUE(store->remove(keyOf("a"), *store->get(keyOf("a"))));
  EXPECT_EQ(store->revision(), 4);
  EXPECT_EQ(resourceVersionOfTheNextWrite(*store), "5");
}

TEST(StoreTest, DeletedEventCarriesTheFinalStateWithTheNewResourceVersion) {
  auto store = openStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->put(keyOf("a"), object("a", "last"), EventType::Added));
  std::vector<StoredEvent> seen;
  store->setObserver([&](const StoredEvent& e) { seen.push_back(e); });

  Json finalState = *store->get(keyOf("a"));
  finalState["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z";
  auto removed = store->remove(keyOf("a"), finalState);
  ASSERT_TRUE(removed);
  EXPECT_EQ(rvOf(**removed), "2");
  EXPECT_EQ((**removed)["data"]["k"], "last");
  EXPECT_EQ((**removed)["metadata"]["deletionTimestamp"], "2024-01-01T00:00:00Z");

  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].type, EventType::Deleted);
  EXPECT_EQ(seen[0].revision, 2);
  EXPECT_EQ(seen[0].key, keyOf("a"));
  EXPECT_EQ(rvOf(*seen[0].object), "2");

  auto events = store->eventsSince(1, 100);
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].type, EventType::Deleted);
  EXPECT_EQ((*events)[0].revision, 2);
  EXPECT_EQ(rvOf(*(*events)[0].object), "2");
  EXPECT_EQ((*(*events)[0].object)["data"]["k"], "last");
  EXPECT_EQ((*(*events)[0].object)["metadata"]["deletionTimestamp"], "2024-01-01T00:00:00Z");
}

TEST(StoreTest, EventsSinceReturnsExactlyTheLaterEventsInOrder) {
  auto store = openStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->put(keyOf("a"), object("a"), EventType::Added));          // 1
  ASSERT_TRUE(store->put(keyOf("b"), object("b"), EventType::Added));          // 2
  ASSERT_TRUE(store->put(keyOf("a"), object("a", "2"), EventType::Modified));  // 3
  ASSERT_TRUE(store->remove(keyOf("b"), *store->get(keyOf("b"))));             // 4
  ASSERT_TRUE(store->put(keyOf("c"), object("c"), EventType::Added));          // 5

  auto all = store->eventsSince(0, 100);
  ASSERT_TRUE(all) << all.error().str();
  EXPECT_EQ(revisionsOf(*all), (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
  std::vector<EventType> types;
  std::vector<std::string> keys;
  for (const auto& e : *all) {
    types.push_back(e.type);
    keys.push_back(e.key);
    EXPECT_EQ(rvOf(*e.object), std::to_string(e.revision));
  }
  EXPECT_EQ(types, (std::vector<EventType>{EventType::Added, EventType::Added, EventType::Modified,
                                           EventType::Deleted, EventType::Added}));
  EXPECT_EQ(keys,
            (std::vector<std::string>{keyOf("a"), keyOf("b"), keyOf("a"), keyOf("b"), keyOf("c")}));
  EXPECT_EQ((*(*all)[2].object)["data"]["k"], "2");

  auto later = store->eventsSince(3, 100);
  ASSERT_TRUE(later);
  EXPECT_EQ(revisionsOf(*later), (std::vector<std::int64_t>{4, 5}));

  auto limited = store->eventsSince(1, 2);
  ASSERT_TRUE(limited);
  EXPECT_EQ(revisionsOf(*limited), (std::vector<std::int64_t>{2, 3}));

  auto none = store->eventsSince(5, 100);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(eventTypeName(EventType::Added), std::string("ADDED"));
  EXPECT_EQ(eventTypeName(EventType::Modified), std::string("MODIFIED"));
  EXPECT_EQ(eventTypeName(EventType::Deleted), std::string("DELETED"));
}

TEST(StoreTest, EventsSinceOlderThanTheCompactionMarkIsExpired) {
  auto store = manuallyCompactedStoreWith(8);
  ASSERT_NE(store, nullptr);
  auto compacted = store->compact(5);
  ASSERT_TRUE(compacted) << compacted.error().str();
  EXPECT_EQ(*compacted, 5);
  EXPECT_EQ(store->compactedRevision(), 5);

  auto old = store->eventsSince(2, 100);
  ASSERT_FALSE(old);
  EXPECT_EQ(old.error().code, 410);
  EXPECT_EQ(old.error().reason, "Expired");
  EXPECT_EQ(old.error().message, "too old resource version: 2 (5)");
  EXPECT_TRUE(old.error().details.empty());

  auto edge = store->eventsSince(4, 100);
  ASSERT_FALSE(edge);
  EXPECT_EQ(edge.error().message, "too old resource version: 4 (5)");

  // From the mark itself every later event is still there.
  auto fromMark = store->eventsSince(5, 100);
  ASSERT_TRUE(fromMark) << fromMark.error().str();
  EXPECT_EQ(revisionsOf(*fromMark), (std::vector<std::int64_t>{6, 7, 8}));

  // Objects are untouched by compaction, and writes continue from the revision.
  EXPECT_EQ(store->size(), 8u);
  EXPECT_EQ(store->revision(), 8);
}

TEST(StoreTest, CompactIsClampedToTheRevisionAndNeverMovesBack) {
  auto store = manuallyCompactedStoreWith(3);
  ASSERT_NE(store, nullptr);
  auto far = store->compact(100);
  ASSERT_TRUE(far);
  EXPECT_EQ(*far, 3);
  auto back = store->compact(1);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, 3);
  EXPECT_EQ(store->compactedRevision(), 3);
  auto events = store->eventsSince(3, 100);
  ASSERT_TRUE(events);
  EXPECT_TRUE(events->empty());
}

TEST(StoreTest, AutomaticCompactionKeepsAboutRetainedRevisions) {
  auto store = openStore(retaining(5));
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(store->put(keyOf("o"), object("o", std::to_string(i)), EventType::Modified));
    const std::int64_t window = store->revision() - store->compactedRevision();
    // At least the retained window stays; never much more than it (a batch of a tenth, min 1).
    EXPECT_GE(window, std::min<std::int64_t>(store->revision(), 5)) << "at " << store->revision();
    EXPECT_LE(window, 6) << "at " << store->revision();
  }
  EXPECT_EQ(store->revision(), 40);
  EXPECT_GT(store->compactedRevision(), 30);

  auto tooOld = store->eventsSince(1, 100);
  ASSERT_FALSE(tooOld);
  EXPECT_EQ(tooOld.error().code, 410);
  EXPECT_EQ(tooOld.error().reason, "Expired");
  EXPECT_EQ(tooOld.error().message,
            "too old resource version: 1 (" + std::to_string(store->compactedRevision()) + ")");

  auto retained = store->eventsSince(store->compactedRevision(), 100);
  ASSERT_TRUE(retained);
  EXPECT_EQ(static_cast<std::int64_t>(retained->size()),
            store->revision() - store->compactedRevision());
  EXPECT_EQ(retained->back().revision, 40);
}

TEST(StoreTest, RetainedRevisionsZeroDisablesAutomaticCompaction) {
  auto store = openStore(retaining(0));
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(store->put(keyOf("o"), object("o", std::to_string(i)), EventType::Modified));
  }
  EXPECT_EQ(store->compactedRevision(), 0);
  auto events = store->eventsSince(0, 1000);
  ASSERT_TRUE(events);
  EXPECT_EQ(events->size(), 50u);
}

TEST(StoreTest, OversizeObjectIs413AndLeavesTheStoreUnchanged) {
  StoreOptions options;
  options.maxObjectBytes = 200;
  auto store = openStore(options);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->put(keyOf("a"), object("a", "small"), EventType::Added));
  std::vector<StoredEvent> seen;
  store->setObserver([&](const StoredEvent& e) { seen.push_back(e); });

  auto big = store->put(keyOf("b"), object("b", std::string(300, 'x')), EventType::Added);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code, 413);
  EXPECT_EQ(big.error().reason, "RequestEntityTooLarge");
  EXPECT_EQ(big.error().message,
            "Request entity too large: limit is 200: etcdserver: request is too large");
  EXPECT_EQ(store->get(keyOf("b")), nullptr);

  // An oversize update leaves the old object in place.
  auto bigUpdate = store->put(keyOf("a"), object("a", std::string(300, 'x')), EventType::Modified);
  ASSERT_FALSE(bigUpdate);
  EXPECT_EQ(bigUpdate.error().code, 413);
  EXPECT_EQ((*store->get(keyOf("a")))["data"]["k"], "small");
  EXPECT_EQ(rvOf(*store->get(keyOf("a"))), "1");

  EXPECT_EQ(store->revision(), 1);
  EXPECT_TRUE(seen.empty());
  auto events = store->eventsSince(0, 100);
  ASSERT_TRUE(events);
  EXPECT_EQ(events->size(), 1u);

  // The next accepted write takes the very next revision.
  EXPECT_EQ(resourceVersionOfTheNextWrite(*store), "2");
}

// A store of objects of at most `maxObjectBytes`, in the file `path` (empty: in memory).
StoreOptions objectsOfAtMost(std::size_t maxObjectBytes, std::string path) {
  StoreOptions options;
  options.maxObjectBytes = maxObjectBytes;
  if (!path.empty()) options.path = std::move(path);
  return options;
}

// The size limit is checked with an upper bound on the text first (so that an in-memory store can
// leave the serialising to its writer thread): a document whose bound is over the limit but whose
// text is within it is measured exactly and stored, in memory and in a file alike.
TEST(StoreTest, ADocumentWhoseBoundPassesTheLimitIsMeasuredExactly) {
  TempDir dir;
  for (const bool inFile : {false, true}) {
    SCOPED_TRACE(inFile ? "file" : "memory");
    const StoreOptions options = objectsOfAtMost(250, inFile ? dir.file("exact.db") : "");
    auto store = openStore(options);
    ASSERT_NE(store, nullptr);
    Json fits = object("a", std::string(100, 'x'));
    ASSERT_GT(jsonTextSizeBound(fits), options.maxObjectBytes);
    auto stored = store->put(keyOf("a"), fits, EventType::Added);
    ASSERT_TRUE(stored) << stored.error().str();
    ASSERT_LE(toJsonText(**stored).size(), options.maxObjectBytes);
    auto events = store->eventsSince(0, 10);
    ASSERT_TRUE(events);
    ASSERT_EQ(events->size(), 1u);
    EXPECT_EQ(*(*events)[0].object, **stored) << "the history holds the same document";
    auto tooBig = store->put(keyOf("b"), object("b", std::string(300, 'x')), EventType::Added);
    ASSERT_FALSE(tooBig);
    EXPECT_EQ(tooBig.error().code, 413);
  }
}

// A write that changes one member (a status write) is bounded from the stored document's bound
// and that member's: the limit still holds, in both directions, on the memory and file paths.
TEST(StoreTest, AWriteChangingOneMemberIsBoundedFromTheStoredDocument) {
  TempDir dir;
  for (const bool inFile : {false, true}) {
    SCOPED_TRACE(inFile ? "file" : "memory");
    const StoreOptions options = objectsOfAtMost(2000, inFile ? dir.file("changing.db") : "");
    auto store = openStore(options);
    ASSERT_NE(store, nullptr);
    auto created = store->put(keyOf("a"), object("a", std::string(100, 'x')), EventType::Added);
    ASSERT_TRUE(created) << created.error().str();

    Json small = **created;
    small["status"] = {{"phase", "Running"}};
    auto stored = store->putChangingOnly(keyOf("a"), small, "status");
    ASSERT_TRUE(stored) << stored.error().str();
    EXPECT_EQ((**stored)["status"]["phase"], "Running");
    EXPECT_EQ(*store->get(keyOf("a")), **stored);

    // Text of about 2,100 bytes: over the limit, and refused whatever the bound says.
    Json big = **stored;
    big["status"] = {{"message", std::string(2100, 'y')}};
    const std::int64_t before = store->revision();
    auto refused = store->putChangingOnly(keyOf("a"), big, "status");
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, 413);
    EXPECT_EQ(store->revision(), before);
    EXPECT_EQ(*store->get(keyOf("a")), **stored) << "a refused write changes nothing";

    // Text of about 1,000 bytes: its bound (six per byte) is over the limit, its text is not.
    Json fits = **stored;
    fits["status"] = {{"message", std::string(1000, 'z')}};
    ASSERT_GT(jsonTextSizeBound(fits), options.maxObjectBytes);
    auto measured = store->putChangingOnly(keyOf("a"), fits, "status");
    ASSERT_TRUE(measured) << measured.error().str();
    // And back to a small status: bounded from the measured size of the one before.
    auto shrunk = store->putChangingOnly(keyOf("a"), small, "status");
    ASSERT_TRUE(shrunk) << shrunk.error().str();
    EXPECT_EQ((**shrunk)["status"], small["status"]);
    EXPECT_FALSE((**shrunk)["status"].contains("message"));
  }
}

TEST(StoreTest, ObserverSeesEveryCommittedWriteInRevisionOrder) {
  auto store = openStore();
  ASSERT_NE(store, nullptr);
  std::vector<StoredEvent> seen;
  store->setObserver([&](const StoredEvent& e) {
    // Called after the commit: the store already answers with the new state.
    EXPECT_EQ(store->revision(), e.revision);
    seen.push_back(e);
  });
  ASSERT_TRUE(store->put(keyOf("a"), object("a"), EventType::Added));
  ASSERT_TRUE(store->put(keyOf("b"), object("b"), EventType::Added));
  ASSERT_TRUE(store->put(keyOf("a"), object("a", "2"), EventType::Modified));
  ASSERT_TRUE(store->remove(keyOf("b"), *store->get(keyOf("b"))));

  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(revisionsOf(seen), (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(seen[0].type, EventType::Added);
  EXPECT_EQ(seen[2].type, EventType::Modified);
  EXPECT_EQ(seen[3].type, EventType::Deleted);
  EXPECT_EQ(seen[2].key, keyOf("a"));
  EXPECT_EQ((*seen[2].object)["data"]["k"], "2");
  // The observer's events are the ones the log replays.
  auto events = store->eventsSince(0, 100);
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), seen.size());
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ((*events)[i].revision, seen[i].revision);
    EXPECT_EQ((*events)[i].type, seen[i].type);
    EXPECT_EQ((*events)[i].key, seen[i].key);
    EXPECT_EQ(*(*events)[i].object, *seen[i].object);
  }
}

TEST(StoreTest, FileStoreReopensWithObjectsRevisionAndCompactionMark) {
  TempDir dir;
  StoreOptions options = manuallyCompactedFile(dir);
  {
    auto store = openStore(options);
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->path(), options.path);
    ASSERT_TRUE(store->put(keyOf("a"), object("a", "1"), EventType::Added));     // 1
    ASSERT_TRUE(store->put(keyOf("b"), object("b", "1"), EventType::Added));     // 2
    ASSERT_TRUE(store->put(keyOf("a"), object("a", "2"), EventType::Modified));  // 3
    ASSERT_TRUE(store->put(keyOf("c"), object("c", "1"), EventType::Added));     // 4
    ASSERT_TRUE(store->remove(keyOf("b"), *store->get(keyOf("b"))));             // 5
    ASSERT_TRUE(store->put(keyOf("d"), object("d", "1"), EventType::Added));     // 6
    ASSERT_TRUE(store->compact(3));
  }
  {
    auto store = openStore(options);
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->revision(), 6);
    EXPECT_EQ(store->compactedRevision(), 3);
    EXPECT_EQ(store->size(), 3u);
    ASSERT_NE(store->get(keyOf("a")), nullptr);
    EXPECT_EQ((*store->get(keyOf("a")))["data"]["k"], "2");
    EXPECT_EQ(rvOf(*store->get(keyOf("a"))), "3");
    ASSERT_NE(store->get(keyOf("c")), nullptr);
    EXPECT_EQ(rvOf(*store->get(keyOf("c"))), "4");
    ASSERT_NE(store->get(keyOf("d")), nullptr);
    EXPECT_EQ(store->get(keyOf("b")), nullptr);

    auto tooOld = store->eventsSince(2, 100);
    ASSERT_FALSE(tooOld);
    EXPECT_EQ(tooOld.error().code, 410);
    EXPECT_EQ(tooOld.error().message, "too old resource version: 2 (3)");
    auto retained = store->eventsSince(3, 100);
    ASSERT_TRUE(retained);
    EXPECT_EQ(revisionsOf(*retained), (std::vector<std::int64_t>{4, 5, 6}));
    EXPECT_EQ((*retained)[1].type, EventType::Deleted);

    auto next = store->put(keyOf("e"), object("e"), EventType::Added);
    ASSERT_TRUE(next);
    EXPECT_EQ(rvOf(**next), "7");
    EXPECT_EQ(store->revision(), 7);
  }
  {
    // A third generation sees the write of the second.
    auto store = openStore(options);
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->revision(), 7);
    EXPECT_NE(store->get(keyOf("e")), nullptr);
  }
}

TEST(StoreTest, FileStoreContinuesTheRevisionWhenTheLastWriteWasADelete) {
  TempDir dir;
  StoreOptions options;
  options.path = dir.file("store.db");
  {
    auto store = openStore(options);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->put(keyOf("a"), object("a"), EventType::Added));
    ASSERT_TRUE(store->put(keyOf("b"), object("b"), EventType::Added));
    ASSERT_TRUE(store->remove(keyOf("b"), *store->get(keyOf("b"))));
    ASSERT_TRUE(store->remove(keyOf("a"), *store->get(keyOf("a"))));
    EXPECT_EQ(store->revision(), 4);
  }
  auto store = openStore(options);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->revision(), 4);
  EXPECT_EQ(store->size(), 0u);
  EXPECT_EQ(resourceVersionOfTheNextWrite(*store), "5");
}

TEST(StoreTest, FileStoreContinuesTheRevisionWhenEveryEventWasCompacted) {
  TempDir dir;
  StoreOptions options = manuallyCompactedFile(dir);
  {
    auto store = openStore(options);
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->put(keyOf("a"), object("a"), EventType::Added));
    ASSERT_TRUE(store->put(keyOf("b"), object("b"), EventType::Added));
    ASSERT_TRUE(store->remove(keyOf("b"), *store->get(keyOf("b"))));
    ASSERT_TRUE(store->compact(3));
  }
  auto store = openStore(options);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->revision(), 3);
  EXPECT_EQ(store->compactedRevision(), 3);
  EXPECT_EQ(resourceVersionOfTheNextWrite(*store), "4");
}

// --- history: the state at any revision back to the compaction mark ---

// What every key held after each revision, kept by the test alongside the store.
using State = std::map<std::string, std::string>;  // key -> data.k

State scanStateAt(const Store& store, const std::string& prefix, std::int64_t revision) {
  State state;
  auto scanned = store.scanAt(prefix, revision, [&](const std::string& key, const ObjectPtr& o) {
    state[key] = (*o)["data"]["k"].get<std::string>();
    return true;
  });
  EXPECT_TRUE(scanned) << scanned.error().str();
  return state;
}

State withPrefix(const State& state, const std::string& prefix) {
  State out;
  for (const auto& [k, v] : state) {
    if (k.rfind(prefix, 0) == 0) out[k] = v;
  }
  return out;
}

// Random creates, updates, deletes and re-creates over a few keys; returns the state after every
// revision (index = revision).
std::vector<State> randomHistory(Store& store, int writes, unsigned seed) {
  std::vector<State> history{State{}};
  State state;
  std::mt19937 random(seed);
  for (int i = 0; i < writes; ++i) {
    std::string name = "k" + std::to_string(random() % 6);
    std::string key = keyOf(name);
    bool exists = state.count(key) > 0;
    std::string value = "v" + std::to_string(i);
    if (!exists) {
      EXPECT_TRUE(store.put(key, object(name, value), EventType::Added));
      state[key] = value;
    } else if (random() % 3 == 0) {
      EXPECT_TRUE(store.remove(key, *store.get(key)));
      state.erase(key);
    } else {
      EXPECT_TRUE(store.put(key, object(name, value), EventType::Modified));
      state[key] = value;
    }
    history.push_back(state);
  }
  return history;
}

TEST(StoreTest, ScanAtGivesTheStateAtEveryRetainedRevision) {
  auto store = openStore(retaining(0));
  ASSERT_NE(store, nullptr);
  auto history = randomHistory(*store, 120, 7);
  ASSERT_EQ(store->revision(), 120);
  for (std::int64_t rv = 0; rv <= 120; ++rv) {
    EXPECT_EQ(scanStateAt(*store, "/configmaps/", rv), history[rv]) << "at revision " << rv;
    EXPECT_EQ(scanStateAt(*store, keyOf("k3"), rv), withPrefix(history[rv], keyOf("k3")))
        << "one key at revision " << rv;
  }
  // Compaction keeps every state from the mark on, and refuses the ones before it.
  ASSERT_TRUE(store->compact(70));
  for (std::int64_t rv = 70; rv <= 120; ++rv) {
    EXPECT_EQ(scanStateAt(*store, "/configmaps/", rv), history[rv]) << "at revision " << rv;
  }
  auto old =
      store->scanAt("/configmaps/", 69, [](const std::string&, const ObjectPtr&) { return true; });
  ASSERT_FALSE(old);
  EXPECT_EQ(old.error().code, 410);
}

// A later page of a list: the state at a revision, from just after a key on. Every key of the
// random history as the start, every revision.
TEST(StoreTest, ScanAtFromAKeyGivesTheRestOfTheStateAtThatRevision) {
  auto store = openStore(retaining(0));
  ASSERT_NE(store, nullptr);
  auto history = randomHistory(*store, 80, 11);
  for (std::int64_t rv = 0; rv <= 80; rv += 3) {
    for (int k = 0; k < 6; ++k) {
      const std::string startAfter = keyOf("k" + std::to_string(k));
      State expected;
      for (const auto& [key, value] : history[rv]) {
        if (key > startAfter) expected[key] = value;
      }
      State seen;
      auto scanned = store->scanAt("/configmaps/", rv, startAfter,
                                   [&](const std::string& key, const ObjectPtr& o) {
                                     seen[key] = (*o)["data"]["k"].get<std::string>();
                                     return true;
                                   });
      ASSERT_TRUE(scanned) << scanned.error().str();
      EXPECT_EQ(seen, expected) << "after " << startAfter << " at revision " << rv;
    }
  }
}

TEST(StoreTest, ScanAtStopsWhenTheVisitorSaysSo) {
  auto store = openStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->put(keyOf("a"), object("a"), EventType::Added));
  ASSERT_TRUE(store->put(keyOf("b"), object("b"), EventType::Added));
  ASSERT_TRUE(store->put(keyOf("c"), object("c"), EventType::Added));
  ASSERT_TRUE(store->remove(keyOf("b"), *store->get(keyOf("b"))));
  std::vector<std::string> seen;
  ASSERT_TRUE(store->scanAt("/configmaps/", 3, [&](const std::string& key, const ObjectPtr&) {
    seen.push_back(key);
    return seen.size() < 2;
  }));
  EXPECT_EQ(seen, (std::vector<std::string>{keyOf("a"), keyOf("b")}));
}

// An in-memory store writes SQLite behind its writes (write_behind.h): every read of the history
// (events, states at a revision, compaction's 410) matches a store that inserts each row before
// returning, with reads between the writes and automatic compaction in between.
TEST(StoreTest, WriteBehindAnswersAsAStoreWritingSynchronously) {
  StoreOptions behind;
  behind.retainedRevisions = 40;
  StoreOptions synchronous = behind;
  synchronous.writeBehind = false;
  auto a = openStore(behind);
  auto b = openStore(synchronous);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  State state;
  std::mt19937 random(5);
  for (int i = 0; i < 300; ++i) {
    // The same random write on both.
    const std::string name = "k" + std::to_string(random() % 6);
    const std::string key = keyOf(name);
    const std::string value = "v" + std::to_string(i);
    const bool remove = state.count(key) > 0 && random() % 3 == 0;
    for (Store* store : {a.get(), b.get()}) {
      if (remove) {
        ASSERT_TRUE(store->remove(key, *store->get(key)));
      } else {
        ASSERT_TRUE(store->put(key, object(name, value),
                               state.count(key) ? EventType::Modified : EventType::Added));
      }
    }
    if (remove) {
      state.erase(key);
    } else {
      state[key] = value;
    }
    if (i % 37 != 36) continue;
    // A read between writes, while rows may be queued.
    ASSERT_EQ(a->compactedRevision(), b->compactedRevision());
    const std::int64_t since = std::max<std::int64_t>(a->compactedRevision(), a->revision() - 7);
    auto eventsA = a->eventsSince(since, 100);
    auto eventsB = b->eventsSince(since, 100);
    ASSERT_TRUE(eventsA && eventsB);
    ASSERT_EQ(revisionsOf(*eventsA), revisionsOf(*eventsB));
    for (std::size_t e = 0; e < eventsA->size(); ++e) {
      EXPECT_EQ((*eventsA)[e].type, (*eventsB)[e].type);
      EXPECT_EQ((*eventsA)[e].key, (*eventsB)[e].key);
      EXPECT_EQ(*(*eventsA)[e].object, *(*eventsB)[e].object);
    }
  }
  const std::int64_t mark = a->compactedRevision();
  ASSERT_GT(mark, 0) << "automatic compaction ran";
  for (std::int64_t rv = mark; rv <= a->revision(); ++rv) {
    EXPECT_EQ(scanStateAt(*a, "/configmaps/", rv), scanStateAt(*b, "/configmaps/", rv))
        << "at revision " << rv;
  }
  EXPECT_EQ(scanStateAt(*a, "/configmaps/", a->revision()), state);
  auto expired = a->eventsSince(mark - 1, 10);
  ASSERT_FALSE(expired);
  EXPECT_EQ(expired.error().code, 410);
}

std::int64_t countRows(const std::string& path, const std::string& where) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  std::string sql = "SELECT COUNT(*) FROM revisions WHERE " + where;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  std::int64_t count = sqlite3_column_int64(stmt, 0);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return count;
}

TEST(StoreTest, CompactionRemovesExactlyTheRowsSupersededAtOrBelowTheMark) {
  TempDir dir;
  StoreOptions options = manuallyCompactedFile(dir);
  auto store = openStore(options);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->put(keyOf("a"), object("a", "1"), EventType::Added));     // 1: superseded by 3
  ASSERT_TRUE(store->put(keyOf("b"), object("b", "1"), EventType::Added));     // 2: deleted at 4
  ASSERT_TRUE(store->put(keyOf("a"), object("a", "2"), EventType::Modified));  // 3: newest of a
  ASSERT_TRUE(store->remove(keyOf("b"), *store->get(keyOf("b"))));             // 4: tombstone
  ASSERT_TRUE(store->put(keyOf("c"), object("c", "1"), EventType::Added));     // 5: superseded by 6
  ASSERT_TRUE(store->put(keyOf("c"), object("c", "2"), EventType::Modified));  // 6: above the mark
  ASSERT_TRUE(store->compact(5));
  EXPECT_EQ(countRows(options.path, "1"), 3) << "3, 5 and 6 remain";
  EXPECT_EQ(countRows(options.path, "rv IN (3, 5, 6)"), 3);
  ASSERT_TRUE(store->compact(6));
  EXPECT_EQ(countRows(options.path, "1"), 2) << "5 is superseded at the new mark";
  EXPECT_EQ(countRows(options.path, "rv IN (3, 6)"), 2);
}

TEST(StoreTest, FileStoreKeepsItsHistoryAcrossARestart) {
  TempDir dir;
  StoreOptions options = manuallyCompactedFile(dir);
  std::vector<State> history;
  {
    auto store = openStore(options);
    ASSERT_NE(store, nullptr);
    history = randomHistory(*store, 60, 11);
    ASSERT_TRUE(store->compact(20));
  }
  auto store = openStore(options);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->revision(), 60);
  State live;
  store->scan("/configmaps/", "", [&](const std::string& key, const ObjectPtr& o) {
    live[key] = (*o)["data"]["k"].get<std::string>();
    return true;
  });
  EXPECT_EQ(live, history[60]);
  for (std::int64_t rv = 20; rv <= 60; ++rv) {
    EXPECT_EQ(scanStateAt(*store, "/configmaps/", rv), history[rv]) << "at revision " << rv;
  }
}

// A database written before rows named the row they supersede (revisions indexed by key) opens
// with every object, its revision and its history.
TEST(StoreTest, FileStoreFromBeforeTheRevisionChainIsMigratedOnOpen) {
  TempDir dir;
  const std::string path = dir.file("old.db");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const char* schema =
        "PRAGMA journal_mode=WAL;"
        "CREATE TABLE revisions(rv INTEGER PRIMARY KEY, type INTEGER NOT NULL, key TEXT NOT "
        "NULL, data TEXT NOT NULL);"
        "CREATE INDEX revisions_by_key ON revisions(key, rv);"
        "CREATE TABLE meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL);";
    ASSERT_EQ(sqlite3_exec(db, schema, nullptr, nullptr, nullptr), SQLITE_OK);
    struct Row {
      int rv, type;
      const char* name;
      const char* value;
    };
    // a: created, modified; b: created, deleted, created again; c: created.
    const Row rows[] = {{1, 1, "a", "1"}, {2, 1, "b", "1"}, {3, 2, "a", "2"},
                        {4, 3, "b", "1"}, {5, 1, "c", "1"}, {6, 1, "b", "2"}};
    for (const Row& row : rows) {
      Json doc = object(row.name, row.value);
      doc["metadata"]["resourceVersion"] = std::to_string(row.rv);
      std::string sql = "INSERT INTO revisions VALUES(" + std::to_string(row.rv) + ", " +
                        std::to_string(row.type) + ", '" + keyOf(row.name) + "', '" + doc.dump() +
                        "')";
      ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    }
    sqlite3_close(db);
  }
  StoreOptions options;
  options.path = path;
  options.retainedRevisions = 0;
  auto store = openStore(options);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->revision(), 6);
  EXPECT_EQ(store->size(), 3u);
  ASSERT_NE(store->get(keyOf("b")), nullptr);
  EXPECT_EQ((*store->get(keyOf("b")))["data"]["k"], "2");
  EXPECT_EQ(scanStateAt(*store, "/configmaps/", 2), (State{{keyOf("a"), "1"}, {keyOf("b"), "1"}}));
  EXPECT_EQ(scanStateAt(*store, "/configmaps/", 4), (State{{keyOf("a"), "2"}}));
  EXPECT_EQ(scanStateAt(*store, "/configmaps/", 5), (State{{keyOf("a"), "2"}, {keyOf("c"), "1"}}));
  // Writes continue the chain, and compaction follows it.
  ASSERT_TRUE(store->put(keyOf("a"), object("a", "3"), EventType::Modified));  // 7
  ASSERT_TRUE(store->compact(7));
  EXPECT_EQ(countRows(path, "1"), 3) << "the newest rows of a, b and c";
  EXPECT_EQ(countRows(path, "rv IN (5, 6, 7)"), 3);
}

}  // namespace
}  // namespace fakekube
