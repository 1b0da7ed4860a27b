// WriteBehind: every queued operation is applied in order, in batches, before drain() returns and
// before destruction; a failed batch stops everything after it and is reported to every later
// drain.
#include "fakekube/store/internal/write_behind.h"

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace fakekube {
namespace {

// The revisions of the rows applied so far, and the batches they came in.
struct Applied {
  std::mutex mu;
  std::vector<std::int64_t> revisions;
  int batches = 0;
  int failAtBatch = -1;  // this batch (0-based) fails, applying nothing
};

WriteBehind::Apply recorder(Applied& applied) {
  return [&applied](const std::vector<WriteBehind::Operation>& batch) -> Result<void> {
    std::lock_guard lock(applied.mu);
    if (applied.batches++ == applied.failAtBatch) {
      return tl::unexpected(Status::internal("storage: out of memory"));
    }
    for (const auto& operation : batch) {
      if (const auto* row = std::get_if<WriteBehind::Row>(&operation)) {
        applied.revisions.push_back(row->revision);
      } else {
        applied.revisions.push_back(-std::get<WriteBehind::Compaction>(operation).upTo);
      }
    }
    return {};
  };
}

std::vector<std::int64_t> upTo(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 1; i <= n; ++i) out.push_back(i);
  return out;
}

TEST(WriteBehindTest, DrainAppliesEverythingQueuedInOrder) {
  Applied applied;
  WriteBehind writer(recorder(applied));
  const auto n = static_cast<std::int64_t>(WriteBehind::kWakeAfter * 3 + 5);
  for (std::int64_t i = 1; i <= n; ++i) writer.add(WriteBehind::Row{.revision = i});
  ASSERT_TRUE(writer.drain());
  std::lock_guard lock(applied.mu);
  EXPECT_EQ(applied.revisions, upTo(n));
  EXPECT_GE(applied.batches, 1);
  EXPECT_LE(applied.batches, 4) << "rows go in batches, not one transaction each";
}

TEST(WriteBehindTest, CompactionsKeepTheirPlaceAmongTheRows) {
  Applied applied;
  WriteBehind writer(recorder(applied));
  writer.add(WriteBehind::Row{.revision = 1});
  writer.add(WriteBehind::Compaction{.from = 0, .upTo = 1});
  writer.add(WriteBehind::Row{.revision = 2});
  ASSERT_TRUE(writer.drain());
  std::lock_guard lock(applied.mu);
  EXPECT_EQ(applied.revisions, (std::vector<std::int64_t>{1, -1, 2}));
}

TEST(WriteBehindTest, DestructionAppliesWhatIsStillQueued) {
  Applied applied;
  {
    WriteBehind writer(recorder(applied));
    for (std::int64_t i = 1; i <= 3; ++i) writer.add(WriteBehind::Row{.revision = i});
  }
  EXPECT_EQ(applied.revisions, upTo(3));
}

TEST(WriteBehindTest, AFailedBatchStopsTheRestAndEveryLaterDrainReportsIt) {
  Applied applied;
  applied.failAtBatch = 1;
  WriteBehind writer(recorder(applied));
  writer.add(WriteBehind::Row{.revision = 1});
  ASSERT_TRUE(writer.drain());
  EXPECT_FALSE(writer.failure());
  writer.add(WriteBehind::Row{.revision = 2});
  auto failed = writer.drain();
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message, "Internal error occurred: storage: out of memory");
  ASSERT_TRUE(writer.failure());
  writer.add(WriteBehind::Row{.revision = 3});
  EXPECT_FALSE(writer.drain());
  std::lock_guard lock(applied.mu);
  EXPECT_EQ(applied.revisions, upTo(1)) << "nothing after the failed batch is applied";
}

TEST(WriteBehindTest, AppliedRowsGiveTheirBuffersBack) {
  Applied applied;
  WriteBehind writer(recorder(applied));
  EXPECT_EQ(writer.spareBuffer().capacity(), std::string().capacity()) << "none yet";
  writer.add(WriteBehind::Row{.revision = 1, .data = std::string(4096, 'x')});
  ASSERT_TRUE(writer.drain());
  const std::string buffer = writer.spareBuffer();
  EXPECT_TRUE(buffer.empty());
  EXPECT_GE(buffer.capacity(), 4096u);
}

// A row may carry its document for the writer thread to serialise: the Apply sees it, and its
// reference comes back to the thread that adds and drains, where the last one frees it.
TEST(WriteBehindTest, DocumentsOfAppliedRowsAreReleasedOnTheAddingThread) {
  std::mutex mu;
  std::vector<std::string> seen;
  WriteBehind writer([&](const std::vector<WriteBehind::Operation>& batch) -> Result<void> {
    std::lock_guard lock(mu);
    for (const auto& operation : batch) {
      const auto& row = std::get<WriteBehind::Row>(operation);
      seen.push_back(row.object ? (*row.object)["name"].get<std::string>() : row.data);
    }
    return {};
  });
  std::thread::id freedOn;
  std::weak_ptr<const Json> watched;
  {
    auto document =
        std::shared_ptr<const Json>(new Json({{"name", "carried"}}), [&freedOn](const Json* doc) {
          freedOn = std::this_thread::get_id();
          delete doc;
        });
    watched = document;
    ASSERT_TRUE(writer.add(WriteBehind::Row{.revision = 1, .object = std::move(document)}));
  }
  ASSERT_TRUE(writer.add(WriteBehind::Row{.revision = 2, .data = "as text"}));
  ASSERT_TRUE(writer.drain());
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(seen, (std::vector<std::string>{"carried", "as text"}));
  }
  EXPECT_TRUE(watched.expired()) << "drain() drops the references given back";
  EXPECT_EQ(freedOn, std::this_thread::get_id());
}

}  // namespace
}  // namespace fakekube
