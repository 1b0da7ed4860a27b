// Manager lifecycle: workers wait for the caches to sync; stop() drains; crash() drops everything
// and a fresh manager over the same server finishes the work (the restart tests' pattern).
#include "fakekube/runtime/manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/runtime_fixture.h"

namespace fakekube::runtimetest {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::ElementsAre;

using ManagerTest = RuntimeTest;

TEST_F(ManagerTest, WorkersStartOnlyAfterTheCachesSynced) {
  for (int i = 0; i < 5; ++i) create(kConfigMaps, configMap("cm-" + std::to_string(i)));
  Manager manager(ex, *server);
  std::vector<std::size_t> cachedAtReconcile;
  auto c =
      ControllerBuilder(manager).forResource(kConfigMaps).complete([&](const ReconcileRequest&) {
        auto list = manager.client().list(kConfigMaps, "default");
        cachedAtReconcile.push_back(list ? (*list)["items"].size() : 0);
        return ReconcileResult{};
      });
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE((*c)->started());
  manager.start();
  EXPECT_FALSE(manager.running());
  ex.runUntilIdle();
  EXPECT_TRUE(manager.running());
  EXPECT_TRUE(manager.cache().synced());
  // Every reconcile, the first included, saw the whole initial list.
  ASSERT_EQ(cachedAtReconcile.size(), 5u);
  for (auto n : cachedAtReconcile) EXPECT_EQ(n, 5u);
}

TEST_F(ManagerTest, ControllerAddedAfterStartStartsOnceItsInformersSync) {
  create(kWidgets, widget("w"));
  Manager manager(ex, *server);
  manager.start();
  ex.runUntilIdle();
  std::vector<std::string> seen;
  ASSERT_TRUE(ControllerBuilder(manager)
                  .forResource(kWidgets)
                  .complete([&](const ReconcileRequest& r) {
                    seen.push_back(r.key());
                    return ReconcileResult{};
                  })
                  .has_value());
  ex.runUntilIdle();
  EXPECT_THAT(seen, ElementsAre("default/w"));
  EXPECT_TRUE(manager.running());
}

TEST_F(ManagerTest, StopDrainsTheReconcileInFlightAndStartsNoMore) {
  for (int i = 0; i < 3; ++i) create(kConfigMaps, configMap("cm-" + std::to_string(i)));
  Manager manager(ex, *server);
  std::vector<std::string> started;
  int finished = 0;
  ASSERT_TRUE(ControllerBuilder(manager)
                  .forResource(kConfigMaps)
                  .completeAsync([&](const ReconcileRequest& r, ReconcileDone done) {
                    started.push_back(r.key());
                    ex.postAfter(milliseconds(10), [&, done] {
                      ++finished;
                      done(ReconcileResult{});
                    });
                  })
                  .has_value());
  manager.start();
  ASSERT_TRUE(ex.runUntil([&] { return started.size() == 1; }, seconds(1)));
  manager.stop();
  ex.advance(seconds(10));
  EXPECT_EQ(started.size(), 1u);
  EXPECT_EQ(finished, 1);
  EXPECT_FALSE(manager.running());
  // A change after stop() reaches nobody.
  mergePatch(kConfigMaps, "default", "cm-0", {{"data", {{"k", "v"}}}});
  ex.advance(seconds(10));
  EXPECT_EQ(started.size(), 1u);
}

// The reconciler of the restart test: each Widget gets a ConfigMap "<name>-child" it controls,
// then status.child names it. Idempotent, as a reconciler must be.
Reconciler childMaker(Manager& manager, int& reconciles) {
  return [&manager, &reconciles](const ReconcileRequest& r) -> ReconcileOutcome {
    ++reconciles;
    auto read = manager.client().get(kWidgets, r.namespace_, r.name);
    if (!read)
      return isNotFound(read.error()) ? ReconcileOutcome(ReconcileResult{})
                                      : reconcileError(read.error());
    Json w = std::move(*read);
    Json child = configMap(r.name + "-child", r.namespace_);
    meta::addOwnerReference(child, meta::controllerRefTo(w));
    auto created = manager.client().create(kConfigMaps, child);
    if (!created && !isAlreadyExists(created.error())) return reconcileError(created.error());
    if (w.contains("status") && w["status"].value("child", "") == r.name + "-child") {
      return ReconcileResult{};
    }
    w["status"] = {{"child", r.name + "-child"}};
    auto written = manager.client().updateStatus(kWidgets, w);
    if (!written) return reconcileError(written.error());
    return ReconcileResult{};
  };
}

TEST_F(ManagerTest, CrashMidWorkAndANewManagerFinishes) {
  constexpr int kWidgetsCount = 20;
  for (int i = 0; i < kWidgetsCount; ++i) create(kWidgets, widget("w-" + std::to_string(i)));

  int firstReconciles = 0;
  auto first = std::make_unique<Manager>(ex, *server);
  ASSERT_TRUE(ControllerBuilder(*first)
                  .forResource(kWidgets, predicate::generationChanged())
                  .owns(kConfigMaps)
                  .complete(childMaker(*first, firstReconciles))
                  .has_value());
  first->start();
  ASSERT_TRUE(ex.runUntil([&] { return firstReconciles >= 7; }, seconds(10)));
  first->crash();
  EXPECT_TRUE(first->crashed());
  EXPECT_EQ(first->numControllers(), 0u);

  // Work the first manager had queued or posted never runs.
  const int atCrash = firstReconciles;
  ex.advance(seconds(10));
  EXPECT_EQ(firstReconciles, atCrash);
  auto children = must(client->list(kConfigMaps, "default"))["items"];
  EXPECT_GT(children.size(), 0u);
  EXPECT_LT(children.size(), static_cast<std::size_t>(kWidgetsCount));

  // A fresh manager over the same server finishes.
  int secondReconciles = 0;
  Manager second(ex, *server);
  ASSERT_TRUE(ControllerBuilder(second)
                  .forResource(kWidgets, predicate::generationChanged())
                  .owns(kConfigMaps)
                  .complete(childMaker(second, secondReconciles))
                  .has_value());
  second.start();
  ex.advance(seconds(10));
  EXPECT_GE(secondReconciles, kWidgetsCount);
  for (int i = 0; i < kWidgetsCount; ++i) {
    std::string name = "w-" + std::to_string(i);
    EXPECT_EQ(get(kWidgets, "default", name)["status"]["child"], name + "-child") << name;
    Json child = get(kConfigMaps, "default", name + "-child");
    ASSERT_TRUE(meta::controllerOf(child).has_value());
    EXPECT_EQ(meta::controllerOf(child)->name, name);
  }
  EXPECT_EQ(must(client->list(kConfigMaps, "default"))["items"].size(),
            static_cast<std::size_t>(kWidgetsCount));
  EXPECT_EQ(firstReconciles, atCrash);
}

TEST_F(ManagerTest, CrashDropsAnAsyncReconcileInFlight) {
  create(kConfigMaps, configMap("cm"));
  ReconcileDone pending;
  int rounds = 0;
  auto manager = std::make_unique<Manager>(ex, *server);
  ASSERT_TRUE(ControllerBuilder(*manager)
                  .forResource(kConfigMaps)
                  .completeAsync([&](const ReconcileRequest&, ReconcileDone done) {
                    ++rounds;
                    pending = done;
                  })
                  .has_value());
  manager->start();
  ex.runUntilIdle();
  ASSERT_EQ(rounds, 1);
  mergePatch(kConfigMaps, "default", "cm", {{"data", {{"k", "v"}}}});  // queued behind the lock
  manager.reset();                                                     // destroying is a crash
  pending(reconcileError(Status::internal("too late")));               // nothing left to act on it
  ex.advance(seconds(10));
  EXPECT_EQ(rounds, 1);
}

TEST_F(ManagerTest, DestroyedBeforeSyncLeavesNoLiveTasks) {
  create(kConfigMaps, configMap("cm"));
  int rounds = 0;
  {
    Manager manager(ex, *server);
    ASSERT_TRUE(ControllerBuilder(manager)
                    .forResource(kConfigMaps)
                    .complete([&](const ReconcileRequest&) {
                      ++rounds;
                      return ReconcileResult{};
                    })
                    .has_value());
    manager.start();  // posts the informers' lists and the sync check; none has run
  }
  ex.advance(seconds(10));
  EXPECT_EQ(rounds, 0);
}

TEST_F(ManagerTest, UsingACrashedManagerThrows) {
  Manager manager(ex, *server);
  manager.crash();
  EXPECT_THROW(manager.client(), std::logic_error);
  EXPECT_FALSE(manager.running());
  manager.stop();   // harmless
  manager.crash();  // idempotent
}

}  // namespace
}  // namespace fakekube::runtimetest
