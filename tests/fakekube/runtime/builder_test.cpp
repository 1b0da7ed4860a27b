// ControllerBuilder over a Manager: which informer events reach the reconciler (For with
// predicates, Owns, Watches with a map function, event filters).
#include "fakekube/runtime/builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fakekube/runtime/runtime_fixture.h"
#include "tests/support/forwarding_client.h"

namespace fakekube::runtimetest {
namespace {

using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

class BuilderTest : public RuntimeTest {
 protected:
  Reconciler recorder() {
    return [this](const ReconcileRequest& r) {
      reconciled.push_back(r.key());
      return ReconcileResult{};
    };
  }
  std::vector<std::string> take() { return std::exchange(reconciled, {}); }
  void settle() { ex.advance(seconds(1)); }

  std::vector<std::string> reconciled;
};

TEST_F(BuilderTest, ForEnqueuesTheObjectAndItsPredicatesFilter) {
  create(kWidgets, widget("a"));
  Manager manager(ex, *server);
  auto c = ControllerBuilder(manager)
               .forResource(kWidgets, predicate::fromFilter(
                                          [](const Json& o) { return meta::name(o) != "ignored"; }))
               .complete(recorder());
  ASSERT_TRUE(c.has_value()) << c.error().str();
  EXPECT_EQ((*c)->name(), "widget");
  manager.start();
  settle();
  EXPECT_THAT(take(), ElementsAre("default/a"));
  create(kWidgets, widget("ignored"));
  create(kWidgets, widget("b"));
  settle();
  EXPECT_THAT(take(), ElementsAre("default/b"));
}

TEST_F(BuilderTest, GenerationChangedIgnoresStatusOnlyUpdates) {
  create(kWidgets, widget("a"));
  Manager manager(ex, *server);
  ASSERT_TRUE(ControllerBuilder(manager)
                  .named("widgets")
                  .forResource(kWidgets, predicate::generationChanged())
                  .complete(recorder())
                  .has_value());
  manager.start();
  settle();
  EXPECT_THAT(take(), ElementsAre("default/a"));
  mergePatch(kWidgets, "default", "a", {{"status", {{"phase", "Ready"}}}}, "status");
  mergePatch(kWidgets, "default", "a", {{"metadata", {{"labels", {{"x", "y"}}}}}});
  settle();
  EXPECT_THAT(take(), IsEmpty());
  mergePatch(kWidgets, "default", "a", {{"spec", {{"size", 2}}}});
  settle();
  EXPECT_THAT(take(), ElementsAre("default/a"));
}

TEST_F(BuilderTest, OwnsEnqueuesTheControllerOwnerOnly) {
  Json a = create(kWidgets, widget("a"));
  Json b = create(kWidgets, widget("b"));
  Manager manager(ex, *server);
  ASSERT_TRUE(ControllerBuilder(manager)
                  .forResource(kWidgets, predicate::generationChanged())
                  .owns(kConfigMaps)
                  .complete(recorder())
                  .has_value());
  manager.start();
  settle();
  EXPECT_THAT(take(), UnorderedElementsAre("default/a", "default/b"));

  // Controlled by a, merely owned by b.
  Json child = configMap("child");
  meta::addOwnerReference(child, meta::controllerRefTo(a));
  meta::OwnerReference plain = meta::controllerRefTo(b);
  plain.controller = false;
  meta::addOwnerReference(child, plain);
  create(kConfigMaps, child);
  // A ConfigMap controlled by another kind, and one with no owner.
  Json foreign = configMap("foreign");
  meta::addOwnerReference(foreign, {"apps/v1", "Deployment", "a", "uid-x", true, true});
  create(kConfigMaps, foreign);
  create(kConfigMaps, configMap("orphan"));
  settle();
  EXPECT_THAT(take(), ElementsAre("default/a"));

  // Owns has no predicates: any change of the child (here its data) reconciles the owner.
  mergePatch(kConfigMaps, "default", "child", {{"data", {{"k", "v2"}}}});
  settle();
  EXPECT_THAT(take(), ElementsAre("default/a"));
  must(client->deleteObject(kConfigMaps, "default", "child"));
  settle();
  EXPECT_THAT(take(), ElementsAre("default/a"));
}

TEST_F(BuilderTest, WatchesWithMapFuncAndEventFilterForEveryWatch) {
  Manager manager(ex, *server);
  ASSERT_TRUE(ControllerBuilder(manager)
                  .forResource(kWidgets)
                  .watches(kConfigMaps, enqueueRequestsFromMapFunc([](const Json& o) {
                             std::string target = meta::label(o, "widget");
                             if (target.empty()) return std::vector<ReconcileRequest>{};
                             return std::vector<ReconcileRequest>{req(target)};
                           }))
                  .withEventFilter(predicate::fromFilter(
                      [](const Json& o) { return meta::label(o, "skip") != "true"; }))
                  .complete(recorder())
                  .has_value());
  manager.start();
  settle();
  Json cm = configMap("settings");
  meta::setLabel(cm, "widget", "target");
  create(kConfigMaps, cm);
  Json skipped = configMap("skipped");
  meta::setLabel(skipped, "widget", "other");
  meta::setLabel(skipped, "skip", "true");
  create(kConfigMaps, skipped);
  Json skippedWidget = widget("quiet");
  meta::setLabel(skippedWidget, "skip", "true");
  create(kWidgets, skippedWidget);
  settle();
  EXPECT_THAT(take(), ElementsAre("default/target"));
}

TEST_F(BuilderTest, WithoutForResourceIsAnError) {
  Manager manager(ex, *server);
  auto c = ControllerBuilder(manager).owns(kConfigMaps).complete(recorder());
  ASSERT_FALSE(c.has_value());
  EXPECT_TRUE(isBadRequest(c.error()));
  EXPECT_EQ(manager.numControllers(), 0u);
}

TEST_F(BuilderTest, OwnsNeedsTheForKindWhenTheManagerCannotTell) {
  // A client that is not an InProcessClient hides the server's registry.
  fakekube::testing::ForwardingClient wrapper(*client);
  Manager manager(ex, wrapper);
  EXPECT_FALSE(
      ControllerBuilder(manager).forResource(kWidgets).owns(kConfigMaps).complete(recorder()));
  auto c = ControllerBuilder(manager)
               .forResource(kWidgets)
               .forKind("Widget")
               .owns(kConfigMaps)
               .complete(recorder());
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ((*c)->name(), "widget");
}

}  // namespace
}  // namespace fakekube::runtimetest
