// The selector of PodTopologySpread's system default constraints (helper.DefaultSelector): the
// Services that select a pod, merged; a Service without a selector selects nothing.
#include "fakekube/cluster/internal/scheduler_default_selector.h"

#include <gtest/gtest.h>

namespace fakekube::scheduling::defaultselectortest {
namespace {

Json service(const std::string& name, const Json& selector, const std::string& ns = "default") {
  Json s = {{"apiVersion", "v1"},
            {"kind", "Service"},
            {"metadata", {{"name", name}, {"namespace", ns}}},
            {"spec", Json::object()}};
  if (!selector.is_null()) s["spec"]["selector"] = selector;
  return s;
}

TEST(ServiceSelectorIndexTest, MergesTheSelectorsOfTheServicesSelectingThePod) {
  ServiceSelectorIndex index;
  index.upsert(service("head", {{"ray.io/cluster", "c1"}, {"ray.io/node-type", "head"}}));
  index.upsert(service("all", {{"ray.io/cluster", "c1"}}));
  index.upsert(service("other", {{"ray.io/cluster", "c2"}}));
  index.upsert(service("headless", nullptr));  // selects nothing
  index.upsert(service("elsewhere", {{"ray.io/cluster", "c1"}}, "team-a"));

  const Json head = {{"ray.io/cluster", "c1"}, {"ray.io/node-type", "head"}, {"extra", "x"}};
  EXPECT_EQ(index.mergedSelectorFor("default", head),
            (Json{{"ray.io/cluster", "c1"}, {"ray.io/node-type", "head"}}));
  const Json worker = {{"ray.io/cluster", "c1"}, {"ray.io/node-type", "worker"}};
  EXPECT_EQ(index.mergedSelectorFor("default", worker), (Json{{"ray.io/cluster", "c1"}}));
  EXPECT_EQ(index.mergedSelectorFor("default", Json{{"app", "web"}}), Json::object());

  index.remove(service("all", nullptr));
  EXPECT_EQ(index.mergedSelectorFor("default", worker), Json::object());
  // An update that changes the selector files the Service anew.
  index.upsert(service("head", {{"ray.io/cluster", "c1"}}));
  EXPECT_EQ(index.mergedSelectorFor("default", worker), (Json{{"ray.io/cluster", "c1"}}));
}

}  // namespace
}  // namespace fakekube::scheduling::defaultselectortest
