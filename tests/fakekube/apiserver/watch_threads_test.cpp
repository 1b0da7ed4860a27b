// The API server and its watches on real threads, as `fakekube serve` uses them: writers on
// several threads, a consumer blocked in Watch::next on another. Run under ThreadSanitizer
// (tools/test --tsan) this is the race check of the write and fan-out path. Nothing here waits
// on time to pass: next() only bounds how long a broken build would hang.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "fakekube/api/resources.h"
#include "fakekube/sim/clock.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

TEST(WatchThreadsTest, ConcurrentWritersAndABlockedConsumerSeeEveryWriteInRevisionOrder) {
  RealClock clock;
  auto server = must(ApiServer::open(clock), "open");
  WatchOptions options;
  options.resourceVersion = std::to_string(server->revision());
  auto watch = must<std::shared_ptr<Watch>>(server->watch(kConfigMaps, "default", options));

  constexpr int kWriters = 4;
  constexpr int kPerWriter = 50;
  std::vector<std::int64_t> revisions;
  std::thread consumer([&] {
    while (static_cast<int>(revisions.size()) < kWriters * kPerWriter) {
      auto event = watch->next(std::chrono::seconds(30));
      if (!event) break;
      revisions.push_back(std::stoll(meta::resourceVersion(*event->object)));
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kPerWriter; ++i) {
        auto created = server->create(kConfigMaps, "",
                                      configMap("w" + std::to_string(w) + "-" + std::to_string(i)));
        EXPECT_TRUE(created) << created.error().str();
      }
    });
  }
  for (auto& t : writers) t.join();
  consumer.join();

  ASSERT_EQ(revisions.size(), static_cast<std::size_t>(kWriters * kPerWriter));
  for (std::size_t i = 1; i < revisions.size(); ++i) {
    EXPECT_EQ(revisions[i], revisions[i - 1] + 1) << "every revision once, in order";
  }
  watch->stop();
}

}  // namespace
}  // namespace fakekube::apitest
