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
  ApiServerOptions serverOptions;
  serverOptions.seed = GetParam();
  auto server = must(ApiServer::open(ex.clock(), serverOptions), "open");
  InProcessClient client(*server);
  constexpr int kObjects = 40;
  for (int i = 0; i < kObjects; ++i) {
    must(client.create(kConfigMaps, configMap("cm-" + std::to_string(i))), "create");
  }

  int active = 0;
  int maxActive = 0;
  int overlaps = 0;
  std::set<std::string> inFlight;
  std::map<std::string, int> rounds;
  Manager manager(ex, *server);
  auto c = ControllerBuilder(manager)
               .forResource(kConfigMaps)
               .withOptions({.maxConcurrentReconciles = 2})
               .completeAsync([&](const ReconcileRequest& r, ReconcileDone done) {
                 const std::string key = r.key();
                 maxActive = std::max(maxActive, ++active);
                 if (!inFlight.insert(key).second) ++overlaps;
                 if (++rounds[key] == 1 && std::stoi(r.name.substr(3)) % 4 == 0) {
                   must(client.patch(kConfigMaps, "default", r.name, PatchType::Merge,
                                     R"({"data":{"changed":"yes"}})"),
                        "patch");
                 }
                 ex.postAfter(milliseconds(10), [&, key, done] {
                   --active;
                   inFlight.erase(key);
                   done(ReconcileResult{});
                 });
               });
  ASSERT_TRUE(c.has_value());
  manager.start();
  ex.advance(seconds(5));

  ASSERT_EQ(rounds.size(), static_cast<std::size_t>(kObjects));
  for (const auto& [key, n] : rounds) {
    const int i = std::stoi(key.substr(std::string("default/cm-").size()));
    // A change during a reconcile yields exactly one more round after it.
    EXPECT_EQ(n, i % 4 == 0 ? 2 : 1) << key << " seed " << GetParam();
  }
  EXPECT_LE(maxActive, 2);
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(active, 0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeededControllerTest, ::testing::Range<std::uint64_t>(1, 13));

}  // namespace
}  // namespace fakekube::runtimetest
