// PodTopologySpread's filter and score, ported from kube-scheduler's
// pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go (TestSingleConstraint,
// TestMultipleConstraints; each case named after upstream's `name:`), and the scoring rules of
// scoring.go.
#include <gtest/gtest.h>

#include <map>

#include "fakekube/cluster/internal/scheduler_plugins.h"
#include "scheduler_plugin_fixture.h"

namespace fakekube::scheduling::podtopologyspreadtest {
namespace {

using testing::node;
using testing::podWithSpec;
using testing::shared;
using Code = FilterStatus::Code;

constexpr Code kOk = Code::Success;
constexpr Code kSkew = Code::Unschedulable;
constexpr Code kNoLabel = Code::UnschedulableAndUnresolvable;

// SpreadConstraint(maxSkew, key, action, Exists(selectorKey)).
Json constraint(int maxSkew, const std::string& key, const std::string& selectorKey,
                const std::string& action = "DoNotSchedule") {
  return {{"maxSkew", maxSkew},
          {"topologyKey", key},
          {"whenUnsatisfiable", action},
          {"labelSelector",
           {{"matchExpressions", Json::array({{{"key", selectorKey}, {"operator", "Exists"}}})}}}};
}

// A node with zone and node labels ("" leaves the label out).
std::pair<std::string, Json> zoned(const std::string& name, const std::string& zone,
                                   const std::string& nodeLabel) {
  Json labels = Json::object();
  if (!zone.empty()) labels["zone"] = zone;
  if (!nodeLabel.empty()) labels["node"] = nodeLabel;
  return {name, labels};
}

struct Existing {
  std::string name;
  std::string node;
  Json labels;
  std::string ns = "default";
  bool terminating = false;
};

struct SpreadCase {
  const char* name;
  Json podLabels;
  Json spec;  // topologySpreadConstraints and any node affinity
  std::vector<std::pair<std::string, Json>> nodes;
  std::vector<Existing> pods;
  std::map<std::string, Code> want;
};

Json spreadSpec(std::vector<Json> constraints) {
  return {{"topologySpreadConstraints", constraints}};
}

std::vector<std::pair<std::string, Json>> fourNodes() {
  return {zoned("node-a", "zone1", "node-a"), zoned("node-b", "zone1", "node-b"),
          zoned("node-x", "zone2", "node-x"), zoned("node-y", "zone2", "node-y")};
}

// Pods with label foo on nodes a, a, b, y, y, y: the 2/1/0/3 spread.
std::vector<Existing> spread2103() {
  return {{"p-a1", "node-a", {{"foo", ""}}}, {"p-a2", "node-a", {{"foo", ""}}},
          {"p-b1", "node-b", {{"foo", ""}}}, {"p-y1", "node-y", {{"foo", ""}}},
          {"p-y2", "node-y", {{"foo", ""}}}, {"p-y3", "node-y", {{"foo", ""}}}};
}

void buildSnapshot(Snapshot& snapshot, const std::vector<std::pair<std::string, Json>>& nodes,
                   const std::vector<Existing>& pods) {
  std::vector<ObjectPtr> objects;
  for (const auto& [name, labels] : nodes) objects.push_back(node(name, labels));
  snapshot.setNodes(objects);
  for (const Existing& e : pods) {
    Json pod = podWithSpec(e.name, Json::object(), e.labels, e.ns);
    if (e.terminating) pod["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z";
    snapshot.addPod(shared(std::move(pod)), e.node);
  }
}

void runSpreadCase(const SpreadCase& c) {
  SCOPED_TRACE(c.name);
  Snapshot snapshot;
  buildSnapshot(snapshot, c.nodes, c.pods);
  const Json pod = podWithSpec("p", c.spec, c.podLabels);
  auto plugin = podTopologySpreadPlugin(pod, snapshot, {});
  ASSERT_TRUE(plugin.has_value());
  for (const NodeInfo* n : snapshot.nodes()) {
    SCOPED_TRACE(n->name);
    const FilterStatus status = (*plugin)->filter(*n);
    EXPECT_EQ(status.code, c.want.at(n->name));
    if (status.code == kSkew) {
      EXPECT_EQ(status.reasons,
                std::vector<std::string>{"node(s) didn't match pod topology spread constraints"});
    } else if (status.code == kNoLabel) {
      EXPECT_EQ(status.reasons, std::vector<std::string>{"node(s) didn't match pod topology "
                                                         "spread constraints (missing required "
                                                         "label)"});
    }
  }
}

TEST(PodTopologySpreadTest, TestSingleConstraint) {
  const Json foo = {{"foo", ""}};
  const std::vector<SpreadCase> cases = {
      {"no existing pods",
       foo,
       spreadSpec({constraint(1, "zone", "foo")}),
       fourNodes(),
       {},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"no existing pods, incoming pod doesn't match itself",
       foo,
       spreadSpec({constraint(1, "zone", "bar")}),
       fourNodes(),
       {},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"existing pods in a different namespace do not count",
       foo,
       spreadSpec({constraint(1, "zone", "foo")}),
       fourNodes(),
       {{"p-a1", "node-a", foo, "ns1"},
        {"p-b1", "node-a", foo, "ns2"},
        {"p-x1", "node-x", foo},
        {"p-y1", "node-y", foo}},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kSkew}, {"node-y", kSkew}}},
      {"pods spread across zones as 3/3, all nodes fit",
       foo,
       spreadSpec({constraint(1, "zone", "foo")}),
       fourNodes(),
       {{"p-a1", "node-a", foo},
        {"p-a2", "node-a", foo},
        {"p-b1", "node-b", foo},
        {"p-y1", "node-y", foo},
        {"p-y2", "node-y", foo},
        {"p-y3", "node-y", foo}},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}}},
      {"pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
       foo,
       spreadSpec({constraint(1, "zone", "foo")}),
       {zoned("node-a", "zone1", "node-a"),
        {"node-b", {{"zon", "zone1"}, {"node", "node-b"}}},
        zoned("node-x", "zone2", "node-x"),
        zoned("node-y", "zone2", "node-y")},
       {{"p-a1", "node-a", foo},
        {"p-b1", "node-b", foo},
        {"p-x1", "node-x", foo},
        {"p-y1", "node-y", foo}},
       {{"node-a", kOk}, {"node-b", kNoLabel}, {"node-x", kSkew}, {"node-y", kSkew}}},
      {"pod cannot be scheduled as all nodes don't have label 'rack'",
       foo,
       spreadSpec({constraint(1, "rack", "foo")}),
       {zoned("node-a", "zone1", "node-a"), zoned("node-x", "zone2", "node-x")},
       {},
       {{"node-a", kNoLabel}, {"node-x", kNoLabel}}},
      {"pods spread across nodes as 2/1/0/3, only node-x fits",
       foo,
       spreadSpec({constraint(1, "node", "foo")}),
       fourNodes(),
       spread2103(),
       {{"node-a", kSkew}, {"node-b", kSkew}, {"node-x", kOk}, {"node-y", kSkew}}},
      {"pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
       foo,
       spreadSpec({constraint(2, "node", "foo")}),
       fourNodes(),
       spread2103(),
       {{"node-a", kSkew}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kSkew}}},
      {"pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
       {{"bar", ""}},
       spreadSpec({constraint(1, "node", "foo")}),
       fourNodes(),
       spread2103(),
       {{"node-a", kSkew}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kSkew}}},
      {"incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
       foo,
       [] {
         Json spec = spreadSpec({constraint(1, "node", "foo")});
         spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = {
             {"nodeSelectorTerms",
              Json::array({{{"matchExpressions",
                             Json::array({{{"key", "node"},
                                           {"operator", "In"},
                                           {"values", Json::array({"node-a", "node-y"})}}})}}})}};
         return spec;
       }(),
       fourNodes(),
       spread2103(),
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kSkew}}},
      {"terminating Pods should be excluded",
       foo,
       spreadSpec({constraint(1, "node", "foo")}),
       {{"node-a", {{"node", "node-a"}}}, {"node-b", {{"node", "node-b"}}}},
       {{"p-a", "node-a", foo, "default", true}, {"p-b", "node-b", foo}},
       {{"node-a", kOk}, {"node-b", kSkew}}},
  };
  for (const SpreadCase& c : cases) runSpreadCase(c);
}

TEST(PodTopologySpreadTest, TestMultipleConstraints) {
  const Json foo = {{"foo", ""}};
  const Json bar = {{"bar", ""}};
  const Json fooBar = {{"foo", ""}, {"bar", ""}};
  const std::vector<SpreadCase> cases = {
      {"two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
       foo,
       spreadSpec({constraint(1, "zone", "foo"), constraint(1, "node", "foo")}),
       fourNodes(),
       spread2103(),
       {{"node-a", kSkew}, {"node-b", kSkew}, {"node-x", kOk}, {"node-y", kSkew}}},
      {"two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
       foo,
       spreadSpec({constraint(1, "zone", "foo"), constraint(1, "node", "foo")}),
       fourNodes(),
       [] {
         auto pods = spread2103();
         pods.push_back({"p-y4", "node-y", {{"foo", ""}}});
         return pods;
       }(),
       {{"node-a", kSkew}, {"node-b", kSkew}, {"node-x", kSkew}, {"node-y", kSkew}}},
      {"Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
       fooBar,
       spreadSpec({constraint(1, "zone", "foo"), constraint(1, "node", "bar")}),
       fourNodes(),
       {{"p-a1", "node-a", foo}, {"p-y1", "node-y", bar}},
       {{"node-a", kSkew}, {"node-b", kSkew}, {"node-x", kOk}, {"node-y", kSkew}}},
      {"Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
       fooBar,
       spreadSpec({constraint(1, "zone", "foo"), constraint(1, "node", "bar")}),
       fourNodes(),
       {{"p-a1", "node-a", foo}, {"p-x1", "node-x", bar}, {"p-y1", "node-y", bar}},
       {{"node-a", kSkew}, {"node-b", kSkew}, {"node-x", kSkew}, {"node-y", kSkew}}},
      {"Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
       fooBar,
       spreadSpec({constraint(1, "zone", "foo"), constraint(1, "node", "bar")}),
       fourNodes(),
       {{"p-a1", "node-a", foo},
        {"p-a2", "node-a", fooBar},
        {"p-y1", "node-y", foo},
        {"p-y2", "node-y", fooBar},
        {"p-y3", "node-y", foo}},
       {{"node-a", kSkew}, {"node-b", kOk}, {"node-x", kSkew}, {"node-y", kSkew}}},
      {"Constraints hold different labelSelectors but pod doesn't match itself on 'zone' "
       "constraint",
       bar,
       spreadSpec({constraint(1, "zone", "foo"), constraint(1, "node", "bar")}),
       fourNodes(),
       {{"p-a1", "node-a", foo}, {"p-x1", "node-x", bar}, {"p-y1", "node-y", bar}},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kSkew}, {"node-y", kSkew}}},
      {"two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, "
       "1/0/0/1]",
       foo,
       spreadSpec({constraint(1, "zone", "foo"), constraint(1, "node", "foo")}),
       {zoned("node-a", "zone1", "node-a"), zoned("node-b", "zone1", "node-b"),
        zoned("node-x", "zone2", ""), zoned("node-y", "zone2", "node-y")},
       {{"p-a1", "node-a", foo}, {"p-y3", "node-y", foo}},
       {{"node-a", kSkew}, {"node-b", kOk}, {"node-x", kNoLabel}, {"node-y", kSkew}}},
  };
  for (const SpreadCase& c : cases) runSpreadCase(c);
}

// minDomains: with fewer domains than minDomains the global minimum is 0, so even the emptiest
// domain is full once it holds maxSkew matching pods.
TEST(PodTopologySpreadTest, MinDomainsTreatsTheGlobalMinimumAsZero) {
  Json c = constraint(1, "zone", "foo");
  c["minDomains"] = 3;
  runSpreadCase({"minDomains 3 over two zones 1/1",
                 {{"foo", ""}},
                 spreadSpec({c}),
                 {zoned("node-a", "zone1", "node-a"), zoned("node-x", "zone2", "node-x")},
                 {{"p-a1", "node-a", {{"foo", ""}}}, {"p-x1", "node-x", {{"foo", ""}}}},
                 {{"node-a", kSkew}, {"node-x", kSkew}}});
}

// Scoring (ScheduleAnyway), hostname constraint maxSkew 1 over 2/1/0/3: raw count * log(4 + 2)
// rounded (4, 2, 0, 5), normalised as 100 * (max + min - s) / max: 20, 60, 100, 0.
TEST(PodTopologySpreadTest, ScoreFewerMatchingPodsScoresHigher) {
  Snapshot snapshot;
  std::vector<std::pair<std::string, Json>> nodes;
  for (const char* n : {"node-a", "node-b", "node-x", "node-y"}) {
    nodes.push_back({n, {{"kubernetes.io/hostname", n}}});
  }
  buildSnapshot(snapshot, nodes, spread2103());
  const Json pod = podWithSpec(
      "p", spreadSpec({constraint(1, "kubernetes.io/hostname", "foo", "ScheduleAnyway")}),
      {{"foo", ""}});
  auto plugin = podTopologySpreadPlugin(pod, snapshot, {});
  ASSERT_TRUE(plugin.has_value());
  const auto& all = snapshot.nodes();
  for (const NodeInfo* n : all) EXPECT_TRUE((*plugin)->filter(*n).ok());  // soft only
  ASSERT_TRUE((*plugin)->preScore(all));
  std::vector<std::int64_t> scores;
  for (const NodeInfo* n : all) scores.push_back((*plugin)->score(*n));
  EXPECT_EQ(scores, (std::vector<std::int64_t>{4, 2, 0, 5}));
  (*plugin)->normalizeScores(all, scores);
  EXPECT_EQ(scores, (std::vector<std::int64_t>{20, 60, 100, 0}));
}

// Scoring with a zone constraint: a node lacking the key is ignored (scores 0); the others by
// their zone's count: zone1 holds 3, zone2 1; weight log(2 + 2): round(3 * 1.386) = 4,
// round(1.386) = 1; normalised 100 * (4 + 1 - s) / 4: 25, 25, 100, and 0 for the unlabelled.
TEST(PodTopologySpreadTest, ScoreIgnoresNodesWithoutTheTopologyKey) {
  Snapshot snapshot;
  buildSnapshot(snapshot,
                {zoned("node-a", "zone1", "node-a"), zoned("node-b", "zone1", "node-b"),
                 zoned("node-x", "zone2", "node-x"), zoned("node-z", "", "node-z")},
                {{"p-a1", "node-a", {{"foo", ""}}},
                 {"p-a2", "node-a", {{"foo", ""}}},
                 {"p-b1", "node-b", {{"foo", ""}}},
                 {"p-x1", "node-x", {{"foo", ""}}}});
  const Json pod =
      podWithSpec("p", spreadSpec({constraint(1, "zone", "foo", "ScheduleAnyway")}), {{"foo", ""}});
  auto plugin = podTopologySpreadPlugin(pod, snapshot, {});
  ASSERT_TRUE(plugin.has_value());
  const auto& all = snapshot.nodes();
  ASSERT_TRUE((*plugin)->preScore(all));
  std::vector<std::int64_t> scores;
  for (const NodeInfo* n : all) scores.push_back((*plugin)->score(*n));
  EXPECT_EQ(scores, (std::vector<std::int64_t>{4, 4, 1, 0}));
  (*plugin)->normalizeScores(all, scores);
  EXPECT_EQ(scores, (std::vector<std::int64_t>{25, 25, 100, 0}));
}

// The system default constraints apply only to a pod without constraints of its own that some
// Service, ReplicaSet, StatefulSet or ReplicationController selects (SpreadDefaults); they score
// (hostname maxSkew 3, zone maxSkew 5) and never filter.
TEST(PodTopologySpreadTest, SystemDefaultConstraintsScoreOnlyPodsWithADefaultSelector) {
  Snapshot snapshot;
  std::vector<std::pair<std::string, Json>> nodes;
  for (const char* n : {"node-a", "node-b"}) nodes.push_back({n, {{"kubernetes.io/hostname", n}}});
  buildSnapshot(snapshot, nodes,
                {{"web-1", "node-a", {{"app", "web"}}}, {"web-2", "node-a", {{"app", "web"}}}});
  const Json pod = podWithSpec("web-3", Json::object(), {{"app", "web"}});
  auto none = podTopologySpreadPlugin(pod, snapshot, {});
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE((*none)->preScore(snapshot.nodes()));

  SpreadDefaults defaults;
  defaults.selector = *LabelSelector::parse("app=web");
  auto plugin = podTopologySpreadPlugin(pod, snapshot, defaults);
  ASSERT_TRUE(plugin.has_value());
  const auto& all = snapshot.nodes();
  for (const NodeInfo* n : all) EXPECT_TRUE((*plugin)->filter(*n).ok());
  ASSERT_TRUE((*plugin)->preScore(all));
  std::vector<std::int64_t> scores;
  for (const NodeInfo* n : all) scores.push_back((*plugin)->score(*n));
  // hostname: 2 * log(4) + 2 = 4.77 -> 5 on node-a, 2 on node-b; the zone label is absent.
  EXPECT_EQ(scores, (std::vector<std::int64_t>{5, 2}));
  (*plugin)->normalizeScores(all, scores);
  EXPECT_EQ(scores, (std::vector<std::int64_t>{40, 100}));
}

}  // namespace
}  // namespace fakekube::scheduling::podtopologyspreadtest
