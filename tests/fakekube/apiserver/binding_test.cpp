// POST pods/<name>/binding, what a scheduler does, and the pod-spec update rule it relies on.
#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

Json binding(const std::string& pod, const std::string& node) {
  return {{"apiVersion", "v1"},
          {"kind", "Binding"},
          {"metadata", {{"name", pod}, {"namespace", "default"}}},
          {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
}

using BindingTest = ApiServerTest;

TEST_F(BindingTest, BindingSetsTheNodeAndPodScheduled) {
  Json p = create(kPods, pod("p"));
  ex.advance(std::chrono::seconds(3));
  Json answer = must<Json>(
      server->createSubresource(kPods, "default", "p", "binding", binding("p", "node-1")));
  EXPECT_EQ(answer["kind"], "Status");
  EXPECT_EQ(answer["status"], "Success");
  EXPECT_EQ(answer["code"], 201);
  Json bound = get(kPods, "default", "p");
  EXPECT_EQ(bound["spec"]["nodeName"], "node-1");
  EXPECT_EQ(rvNumber(bound), rvNumber(p) + 1);
  ASSERT_EQ(bound["status"]["conditions"].size(), 1u);
  EXPECT_EQ(bound["status"]["conditions"][0]["type"], "PodScheduled");
  EXPECT_EQ(bound["status"]["conditions"][0]["status"], "True");
  EXPECT_EQ(bound["status"]["conditions"][0]["lastTransitionTime"], "2024-01-01T00:00:03Z");
}

TEST_F(BindingTest, ABoundPodCannotBeBoundAgain) {
  create(kPods, pod("p"));
  must<Json>(server->createSubresource(kPods, "default", "p", "binding", binding("p", "node-1")));
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(
      server->createSubresource(kPods, "default", "p", "binding", binding("p", "node-2")), 409,
      "Conflict",
      "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to node "
      "\"node-1\""));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(BindingTest, ADeletingPodCannotBeBound) {
  Json p = pod("p");
  p["metadata"]["finalizers"] = {"example.com/hold"};
  create(kPods, p);
  remove(kPods, "default", "p");
  EXPECT_TRUE(failsWith(
      server->createSubresource(kPods, "default", "p", "binding", binding("p", "node-1")), 409,
      "Conflict",
      "Operation cannot be fulfilled on pods/binding \"p\": pod p is being deleted, cannot be "
      "assigned to a host"));
}

TEST_F(BindingTest, BadBindingsAreRefusedWithoutAWrite) {
  create(kPods, pod("p"));
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(
      server->createSubresource(kPods, "default", "missing", "binding", binding("missing", "n")),
      404, "NotFound", "pods \"missing\" not found"));
  EXPECT_TRUE(
      failsWith(server->createSubresource(kPods, "default", "p", "binding", binding("other", "n")),
                400, "BadRequest", "name in URL does not match name in Binding object"));
  Json noNode = binding("p", "");
  EXPECT_TRUE(failsWith(server->createSubresource(kPods, "default", "p", "binding", noNode), 422,
                        "Invalid", "Binding \"p\" is invalid: target.name: Required value"));
  EXPECT_TRUE(failsWith(
      server->createSubresource(kConfigMaps, "default", "p", "binding", binding("p", "n")), 404,
      "NotFound", "the server could not find the requested resource"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(BindingTest, PodUpdatesMayChangeImagesButNotTheRestOfTheSpec) {
  Json p = create(kPods, pod("p"));
  Json newImage = p;
  newImage["spec"]["containers"][0]["image"] = "nginx:1.28";
  Json updated = update(kPods, newImage);
  EXPECT_EQ(updated["spec"]["containers"][0]["image"], "nginx:1.28");

  Json moved = updated;
  moved["spec"]["nodeName"] = "node-9";
  auto r = server->update(kPods, "", moved);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, 422);
  EXPECT_EQ(r.error().details.causes.size(), 1u);
  EXPECT_EQ(r.error().details.causes[0].field, "spec");
  EXPECT_EQ(r.error().details.causes[0].reason, "FieldValueForbidden");
}

}  // namespace
}  // namespace fakekube::apitest
