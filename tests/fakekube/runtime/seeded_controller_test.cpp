// The controller's guarantees under every interleaving a seed can pick: work due at the same
// virtual instant runs in a seed-chosen order (informer deliveries, queue dispatch, reconcile
// completions), and the guarantees must hold for all of them.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "fakekube/api/resources.h"
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/manager.h"
#include "runtime_fixture.h"

namespace fakekube::runtimetest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class SeededControllerTest : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(SeededControllerTest, TwoWorkersNeverExceededNeverOneKeyTwiceEveryChangeSeen) {
  SimExecutor ex(SimExecutor::Options{.seed = GetParam()});
  auto server = openSeededServer(ex, GetParam());
  InProcessClient client(*server);
  constexpr int kObjects = 40;
  for (int i = 0; i < kObjects; ++i) {
    must(client.create(kConfigMaps, configMap("cm-" + std::to_string(i))), "create");
  }

  ReconcileConcurrency seen;
  Manager manager(ex, *server);
  auto c = addTwoWorkerConfigMapController(manager, ex, seen, [&](const ReconcileRequest& r) {
    if (std::stoi(r.name.substr(3)) % 4 == 0) {
      must(client.patch(kConfigMaps, "default", r.name, PatchType::Merge,
                        R"({"data":{"changed":"yes"}})"),
           "patch");
    }
  });
  ASSERT_TRUE(c.has_value());
  manager.start();
  ex.advance(seconds(5));

  ASSERT_EQ(seen.rounds.size(), static_cast<std::size_t>(kObjects));
  for (const auto& [key, n] : seen.rounds) {
    const int i = std::stoi(key.substr(std::string("default/cm-").size()));
    // A change during a reconcile yields exactly one more round after it.
    EXPECT_EQ(n, i % 4 == 0 ? 2 : 1) << key << " seed " << GetParam();
  }
  EXPECT_LE(seen.maxActive, 2);
  EXPECT_EQ(seen.overlaps, 0);
  EXPECT_EQ(seen.active, 0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeededControllerTest, ::testing::Range<std::uint64_t>(1, 13));

}  // namespace
}  // namespace fakekube::runtimetest
