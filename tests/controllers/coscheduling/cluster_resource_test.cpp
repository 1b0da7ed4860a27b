// CheckClusterResource (scheduler-plugins' core_test.go TestCheckClusterResource) and the resource
// gap as fmt prints a v1.ResourceList.
#include "controllers/coscheduling/internal/cluster_resource.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "controllers/coscheduling/internal/coscheduling_api.h"

namespace fakekube::coscheduling {
namespace {

// A pod bound to a node, asking for `milliCpu`, in PodGroup `group` (empty: none).
scheduling::NodePod boundPod(const std::string& name, std::int64_t milliCpu,
                             const std::string& group = "") {
  Json pod = {{"metadata", {{"name", name}, {"namespace", "ns"}}}};
  if (!group.empty()) pod["metadata"]["labels"] = {{std::string(kPodGroupLabel), group}};
  return {std::make_shared<const Json>(std::move(pod)), {{"cpu", milliCpu}}};
}

// In total, the cluster has 3*2 = 6 cpus.
std::vector<scheduling::NodeResources> twoNodesOfThreeCpu(std::vector<scheduling::NodePod> onA,
                                                          std::vector<scheduling::NodePod> onB) {
  return {{"node-a", {{"cpu", 3000}}, std::move(onA)}, {"node-b", {{"cpu", 3000}}, std::move(onB)}};
}

GoResourceList fourCpu() { return {{"cpu", {4, 0, "DecimalSI"}}}; }

TEST(CheckClusterResource, ClusterResourceEnough) {
  auto nodes = twoNodesOfThreeCpu({boundPod("p1", 2000)}, {});
  EXPECT_EQ(checkClusterResource(nodes, fourCpu(), "ns/pg1"), std::nullopt);
}

TEST(CheckClusterResource, ClusterResourceNotEnough) {
  auto nodes = twoNodesOfThreeCpu({boundPod("p1", 2000)}, {boundPod("p2", 1000)});
  // 4 less node-a's 1 and node-b's 2 free cpus, in the milli scale of the nodes' quantities.
  EXPECT_EQ(checkClusterResource(nodes, fourCpu(), "ns/pg1"),
            "resource gap: map[cpu:{{1000 -3} {<nil>}  DecimalSI}]");
}

TEST(CheckClusterResource, ClusterResourceEnoughAsP1sResourceNeedsToBeExcludedFromMinResources) {
  auto nodes = twoNodesOfThreeCpu({boundPod("p1", 2000, "pg1")}, {boundPod("p2", 1000)});
  EXPECT_EQ(checkClusterResource(nodes, fourCpu(), "ns/pg1"), std::nullopt);
}

TEST(CheckClusterResource, MinMemberCountsAsPodsAgainstTheNodesPodCapacity) {
  // PreFilter adds pods = minMember to the request; each node holds `pods` less its pods.
  std::vector<scheduling::NodeResources> nodes = {
      {"node-a", {{"cpu", 8000}, {"pods", 2}}, {boundPod("other", 100)}}};
  Json group = {{"spec", {{"minMember", 3}, {"minResources", {{"cpu", "1500m"}}}}}};
  auto request = minResourcesRequest(group);
  ASSERT_TRUE(request);
  EXPECT_EQ(checkClusterResource(nodes, *request, "ns/pg1"),
            "resource gap: map[pods:{{2 0} {<nil>}  DecimalSI}]");
}

TEST(GoQuantity, ParsesAsResourceParseQuantityKeepsValueScaleAndFormat) {
  auto milli = GoQuantity::parse("12500m");
  ASSERT_TRUE(milli);
  EXPECT_EQ(milli->goString(), "{{12500 -3} {<nil>}  DecimalSI}");
  auto fraction = GoQuantity::parse("1.5");
  ASSERT_TRUE(fraction);
  EXPECT_EQ(fraction->goString(), "{{15 -1} {<nil>}  DecimalSI}");
  auto binary = GoQuantity::parse("2Gi");
  ASSERT_TRUE(binary);
  EXPECT_EQ(binary->goString(), "{{2147483648 0} {<nil>}  BinarySI}");
  auto exponent = GoQuantity::fromJson(Json("1e3"));
  ASSERT_TRUE(exponent);
  EXPECT_EQ(exponent->goString(), "{{1 3} {<nil>}  DecimalExponent}");
  EXPECT_FALSE(GoQuantity::parse("12x"));
  EXPECT_FALSE(GoQuantity::parse(""));
}

TEST(GoQuantity, SubTakesTheSmallerScale) {
  GoQuantity twelve{12, 0, "DecimalSI"};
  twelve.sub({8000, -3, "DecimalSI"});
  EXPECT_EQ(twelve.goString(), "{{4000 -3} {<nil>}  DecimalSI}");
  GoQuantity kilo{2, 3, "DecimalSI"};
  kilo.sub({500, 0, "DecimalSI"});
  EXPECT_EQ(kilo.goString(), "{{1500 0} {<nil>}  DecimalSI}");
}

}  // namespace
}  // namespace fakekube::coscheduling
