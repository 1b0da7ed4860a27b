// NodeAffinity's filter, PreFilter and score, ported from kube-scheduler's
// pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go (TestNodeAffinity,
// TestNodeAffinityPriority): each case is named after upstream's `name:`.
#include <gtest/gtest.h>

#include "fakekube/cluster/internal/scheduler_plugins.h"
#include "scheduler_plugin_fixture.h"

namespace fakekube::scheduling::nodeaffinitytest {
namespace {

using testing::node;
using testing::podWithSpec;

constexpr const char* kReasonPod = "node(s) didn't match Pod's node affinity/selector";

Json requiredTerms(const char* termsJson) {
  return {{"affinity",
           {{"nodeAffinity",
             {{"requiredDuringSchedulingIgnoredDuringExecution",
               {{"nodeSelectorTerms", Json::parse(termsJson)}}}}}}}};
}

struct FilterCase {
  const char* name;
  Json spec;
  Json labels;
  std::string nodeName = "node1";
  bool fits = true;
  // The PreFilter's node names, when it narrows them.
  std::optional<std::set<std::string>> preFilterNodes;
};

std::vector<FilterCase> filterCases() {
  return {
      {"missing labels", {{"nodeSelector", {{"foo", "bar"}}}}, Json::object(), "node1", false},
      {"same labels", {{"nodeSelector", {{"foo", "bar"}}}}, {{"foo", "bar"}}},
      {"node labels are superset",
       {{"nodeSelector", {{"foo", "bar"}}}},
       {{"foo", "bar"}, {"baz", "blah"}}},
      {"node labels are subset",
       {{"nodeSelector", {{"foo", "bar"}, {"baz", "blah"}}}},
       {{"foo", "bar"}},
       "node1",
       false},
      {"Pod with matchExpressions using In operator that matches the existing node",
       requiredTerms(
           R"([{"matchExpressions":[{"key":"foo","operator":"In","values":["bar","value2"]}]}])"),
       {{"foo", "bar"}}},
      {"Pod with matchExpressions using Gt operator that matches the existing node",
       requiredTerms(
           R"([{"matchExpressions":[{"key":"kernel-version","operator":"Gt","values":["0204"]}]}])"),
       {{"kernel-version", "0206"}}},
      {"Pod with matchExpressions using NotIn operator that matches the existing node",
       requiredTerms(
           R"([{"matchExpressions":[{"key":"mem-type","operator":"NotIn","values":["DDR","DDR2"]}]}])"),
       {{"mem-type", "DDR3"}}},
      {"Pod with matchExpressions using Exists operator that matches the existing node",
       requiredTerms(R"([{"matchExpressions":[{"key":"GPU","operator":"Exists"}]}])"),
       {{"GPU", "NVIDIA-GRID-K1"}}},
      {"Pod with affinity that don't match node's labels won't schedule onto the node",
       requiredTerms(
           R"([{"matchExpressions":[{"key":"foo","operator":"In","values":["value1","value2"]}]}])"),
       {{"foo", "bar"}},
       "node1",
       false},
      {"Pod with empty MatchExpressions is not a valid value will match no objects and won't "
       "schedule onto the node",
       requiredTerms(R"([{"matchExpressions":[]}])"),
       {{"foo", "bar"}},
       "node1",
       false},
      {"Pod with no Affinity will schedule onto a node", Json::object(), {{"foo", "bar"}}},
      {"Pod with Affinity but nil NodeSelector will schedule onto a node",
       {{"affinity",
         {{"nodeAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", nullptr}}}}}},
       {{"foo", "bar"}}},
      {"Pod with multiple matchExpressions ANDed that matches the existing node",
       requiredTerms(R"([{"matchExpressions":[{"key":"GPU","operator":"Exists"},
           {"key":"GPU","operator":"NotIn","values":["AMD","INTER"]}]}])"),
       {{"GPU", "NVIDIA-GRID-K1"}}},
      {"Pod with multiple matchExpressions ANDed that doesn't match the existing node",
       requiredTerms(R"([{"matchExpressions":[{"key":"GPU","operator":"Exists"},
           {"key":"GPU","operator":"In","values":["AMD","INTER"]}]}])"),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "node1",
       false},
      {"Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will "
       "schedule onto the node",
       requiredTerms(
           R"([{"matchExpressions":[{"key":"foo","operator":"In","values":["bar","value2"]}]},
           {"matchExpressions":[{"key":"diffkey","operator":"In","values":["wrong","value2"]}]}])"),
       {{"foo", "bar"}}},
      {"Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) "
       "both are satisfied, will schedule onto the node",
       [] {
         Json spec = requiredTerms(R"([{"matchExpressions":[{"key":"foo","operator":"Exists"}]}])");
         spec["nodeSelector"] = {{"foo", "bar"}};
         return spec;
       }(),
       {{"foo", "bar"}}},
      {"Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing "
       "that we are deprecating) is not satisfied, won't schedule onto the node",
       [] {
         Json spec = requiredTerms(R"([{"matchExpressions":[{"key":"foo","operator":"Exists"}]}])");
         spec["nodeSelector"] = {{"foo", "bar"}};
         return spec;
       }(),
       {{"foo", "barrrrrr"}},
       "node1",
       false},
      {"Pod with an invalid value in Affinity term won't be scheduled onto the node",
       requiredTerms(
           R"([{"matchExpressions":[{"key":"foo","operator":"NotIn","values":["invalid value: ___@#$%^"]}]}])"),
       {{"foo", "bar"}},
       "node1",
       false},
      {"Pod with matchFields using In operator that matches the existing node",
       requiredTerms(
           R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]}]}])"),
       Json::object(), "node1", true, std::set<std::string>{"node1"}},
      {"Pod with matchFields using In operator that does not match the existing node",
       requiredTerms(
           R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]}]}])"),
       Json::object(), "node2", false, std::set<std::string>{"node1"}},
      {"Pod with two terms: matchFields does not match, but matchExpressions matches",
       requiredTerms(R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]},
           {"key":"metadata.name","operator":"In","values":["node2"]}]},
           {"matchExpressions":[{"key":"foo","operator":"In","values":["bar"]}]}])"),
       {{"foo", "bar"}},
       "node2"},
      {"Pod with one term: matchFields does not match, but matchExpressions matches",
       requiredTerms(
           R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]}],
           "matchExpressions":[{"key":"foo","operator":"In","values":["bar"]}]}])"),
       {{"foo", "bar"}},
       "node2",
       false,
       std::set<std::string>{"node1"}},
      {"Pod with one term: both matchFields and matchExpressions match",
       requiredTerms(
           R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]}],
           "matchExpressions":[{"key":"foo","operator":"In","values":["bar"]}]}])"),
       {{"foo", "bar"}},
       "node1",
       true,
       std::set<std::string>{"node1"}},
      {"Pod with two terms: both matchFields and matchExpressions do not match",
       requiredTerms(
           R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]}]},
           {"matchExpressions":[{"key":"foo","operator":"In","values":["not-match-to-bar"]}]}])"),
       {{"foo", "bar"}},
       "node2",
       false},
      {"Pod with two terms of node.Name affinity",
       requiredTerms(
           R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]}]},
           {"matchFields":[{"key":"metadata.name","operator":"In","values":["node2"]}]}])"),
       Json::object(), "node2", true, std::set<std::string>{"node1", "node2"}},
  };
}

TEST(NodeAffinityTest, TestNodeAffinityFilterCases) {
  for (const FilterCase& c : filterCases()) {
    SCOPED_TRACE(c.name);
    const Json pod = podWithSpec("p", c.spec);
    Snapshot snapshot;
    snapshot.setNodes({node(c.nodeName, c.labels)});
    auto plugin = nodeAffinityPlugin(pod);
    ASSERT_TRUE(plugin.has_value());
    const PreFilterResult pre = (*plugin)->preFilter();
    EXPECT_TRUE(pre.status.ok());
    EXPECT_EQ(pre.nodeNames, c.preFilterNodes);
    const FilterStatus status = (*plugin)->filter(*snapshot.nodes()[0]);
    EXPECT_EQ(status.ok(), c.fits);
    if (!c.fits) {
      EXPECT_EQ(status.code, FilterStatus::Code::UnschedulableAndUnresolvable);
      EXPECT_EQ(status.reasons, std::vector<std::string>{kReasonPod});
    }
  }
}

// Upstream: "Pod with two terms: matchFields does not match, but matchExpressions matches" pins
// disjoint names inside one term; with every term pinning no common name, PreFilter rejects all.
TEST(NodeAffinityTest, TermsPinningNoNodeNameConflict) {
  const Json pod = podWithSpec(
      "p",
      requiredTerms(R"([{"matchFields":[{"key":"metadata.name","operator":"In","values":["node1"]},
           {"key":"metadata.name","operator":"In","values":["node2"]}]}])"));
  auto plugin = nodeAffinityPlugin(pod);
  ASSERT_TRUE(plugin.has_value());
  const PreFilterResult pre = (*plugin)->preFilter();
  EXPECT_EQ(pre.status.code, FilterStatus::Code::UnschedulableAndUnresolvable);
  EXPECT_EQ(pre.status.reasons, std::vector<std::string>{"pod affinity terms conflict"});
}

// TestNodeAffinityPriority "all nodes matches the preferred scheduling requirements of pod but
// with different priorities": weights 2 (foo=bar), 4 (key=value), 5 (foo=bar, key=value and
// az=az1); node1 matches the first (2), node5 all three (11), node2 the second (4); scores
// normalised to 100 for the best: 18, 100, 36.
TEST(NodeAffinityTest, TestNodeAffinityPriorityDifferentPriorities) {
  const Json spec = {
      {"affinity",
       {{"nodeAffinity", {{"preferredDuringSchedulingIgnoredDuringExecution", Json::parse(R"([
            {"weight":2,"preference":{"matchExpressions":[{"key":"foo","operator":"In","values":["bar"]}]}},
            {"weight":4,"preference":{"matchExpressions":[{"key":"key","operator":"In","values":["value"]}]}},
            {"weight":5,"preference":{"matchExpressions":[{"key":"foo","operator":"In","values":["bar"]},
                {"key":"key","operator":"In","values":["value"]},
                {"key":"az","operator":"In","values":["az1"]}]}}])")}}}}}};
  const Json pod = podWithSpec("p", spec);
  Snapshot snapshot;
  snapshot.setNodes({node("node1", {{"foo", "bar"}}),
                     node("node5", {{"foo", "bar"}, {"key", "value"}, {"az", "az1"}}),
                     node("node2", {{"key", "value"}})});
  auto plugin = nodeAffinityPlugin(pod);
  ASSERT_TRUE(plugin.has_value());
  const auto& nodes = snapshot.nodes();
  ASSERT_TRUE((*plugin)->preScore(nodes));
  std::vector<std::int64_t> scores;
  for (const NodeInfo* n : nodes) scores.push_back((*plugin)->score(*n));
  EXPECT_EQ(scores, (std::vector<std::int64_t>{2, 11, 4}));
  (*plugin)->normalizeScores(nodes, scores);
  EXPECT_EQ(scores, (std::vector<std::int64_t>{18, 100, 36}));
}

// TestNodeAffinityPriority "all nodes are same priority as NodeAffinity is nil": nothing to
// score (Skip), so the plugin adds nothing to any node.
TEST(NodeAffinityTest, TestNodeAffinityPriorityNilAffinityIsSkipped) {
  const Json pod = podWithSpec("p", Json::object());
  Snapshot snapshot;
  snapshot.setNodes({node("node1", {{"foo", "bar"}})});
  auto plugin = nodeAffinityPlugin(pod);
  ASSERT_TRUE(plugin.has_value());
  EXPECT_FALSE((*plugin)->preScore(snapshot.nodes()));
}

}  // namespace
}  // namespace fakekube::scheduling::nodeaffinitytest
