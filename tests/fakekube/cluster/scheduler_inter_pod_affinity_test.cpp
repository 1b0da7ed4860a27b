// InterPodAffinity's filter and score, ported from kube-scheduler's
// pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go
// (TestRequiredAffinitySingleNode, TestRequiredAffinityMultipleNodes; each case named after
// upstream's `name:`), and the scoring rules of scoring.go.
#include <gtest/gtest.h>

#include "fakekube/cluster/internal/scheduler_plugins.h"
#include "scheduler_plugin_fixture.h"

namespace fakekube::scheduling::interpodaffinitytest {
namespace {

using testing::node;
using testing::podWithSpec;
using testing::shared;
using Code = FilterStatus::Code;

constexpr const char* kAffinityRules = "node(s) didn't match pod affinity rules";
constexpr const char* kAntiAffinityRules = "node(s) didn't match pod anti-affinity rules";
constexpr const char* kExistingAntiAffinity =
    "node(s) didn't satisfy existing pods anti-affinity rules";

// A v1.PodAffinityTerm: matchExpressions (JSON), topologyKey, namespaces.
Json term(const char* expressions, const std::string& topologyKey,
          std::vector<std::string> namespaces = {}) {
  Json t = {{"labelSelector", {{"matchExpressions", Json::parse(expressions)}}},
            {"topologyKey", topologyKey}};
  if (!namespaces.empty()) t["namespaces"] = namespaces;
  return t;
}

// createPodWithAffinityTerms: required affinity and anti-affinity terms.
Json affinitySpec(std::vector<Json> affinity, std::vector<Json> antiAffinity) {
  Json spec = Json::object();
  if (!affinity.empty()) {
    spec["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = affinity;
  }
  if (!antiAffinity.empty()) {
    spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
        antiAffinity;
  }
  return spec;
}

struct Existing {
  std::string name;
  std::string node;
  Json labels;
  Json spec = Json::object();
  std::string ns = "default";
};

struct Want {
  Code code = Code::Success;
  const char* reason = nullptr;
};

struct FilterCase {
  const char* name;
  Json podLabels;
  Json podSpec;
  std::vector<Existing> pods;
  std::vector<std::pair<std::string, Json>> nodes;  // name, labels
  std::vector<Want> want;                           // per node
};

void runFilterCase(const FilterCase& c) {
  SCOPED_TRACE(c.name);
  Snapshot snapshot;
  std::vector<ObjectPtr> nodes;
  for (const auto& [name, labels] : c.nodes) nodes.push_back(node(name, labels));
  snapshot.setNodes(nodes);
  for (const Existing& e : c.pods) {
    snapshot.addPod(shared(podWithSpec(e.name, e.spec, e.labels, e.ns)), e.node);
  }
  const Json pod = podWithSpec("incoming", c.podSpec, c.podLabels);
  auto plugin = interPodAffinityPlugin(pod, snapshot);
  ASSERT_TRUE(plugin.has_value());
  ASSERT_EQ(c.want.size(), snapshot.nodes().size());
  for (std::size_t i = 0; i < c.want.size(); ++i) {
    SCOPED_TRACE(snapshot.nodes()[i]->name);
    const FilterStatus status = (*plugin)->filter(*snapshot.nodes()[i]);
    EXPECT_EQ(status.code, c.want[i].code);
    if (c.want[i].reason != nullptr) {
      EXPECT_EQ(status.reasons, std::vector<std::string>{c.want[i].reason});
    }
  }
}

const Json kPodLabel = {{"service", "securityscan"}};
const Json kPodLabel2 = {{"security", "S1"}};
const std::vector<std::pair<std::string, Json>> kNode1 = {
    {"machine1", {{"region", "r1"}, {"zone", "z11"}}}};

TEST(InterPodAffinityTest, TestRequiredAffinitySingleNode) {
  const char* inSecurityScan =
      R"([{"key":"service","operator":"In","values":["securityscan","value2"]}])";
  const char* inAntivirus =
      R"([{"key":"service","operator":"In","values":["antivirusscan","value2"]}])";
  const std::vector<FilterCase> cases = {
      {"A pod that has no required pod affinity scheduling rules can schedule onto a node with no "
       "existing pods",
       Json::object(),
       Json::object(),
       {},
       kNode1,
       {{}}},
      {"satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In "
       "operator that matches the existing pod",
       kPodLabel2,
       affinitySpec({term(inSecurityScan, "region")}, {}),
       {{"p1", "machine1", kPodLabel}},
       kNode1,
       {{}}},
      {"satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using "
       "not in operator in labelSelector that matches the existing pod",
       kPodLabel2,
       affinitySpec(
           {term(R"([{"key":"service","operator":"NotIn","values":["securityscan3","value3"]}])",
                 "region")},
           {}),
       {{"p1", "machine1", kPodLabel}},
       kNode1,
       {{}}},
      {"Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
       kPodLabel2,
       affinitySpec({term(inSecurityScan, "region", {"DiffNameSpace"})}, {}),
       {{"p1", "machine1", kPodLabel, Json::object(), "ns"}},
       kNode1,
       {{Code::UnschedulableAndUnresolvable, kAffinityRules}}},
      {"Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
       kPodLabel,
       affinitySpec({term(inAntivirus, "region")}, {}),
       {{"p1", "machine1", kPodLabel}},
       kNode1,
       {{Code::UnschedulableAndUnresolvable, kAffinityRules}}},
      {"satisfies the PodAffinity with different label Operators in multiple "
       "RequiredDuringSchedulingIgnoredDuringExecution ",
       kPodLabel2,
       affinitySpec(
           {term(
                R"([{"key":"service","operator":"Exists"},{"key":"wrongkey","operator":"DoesNotExist"}])",
                "region"),
            term(R"([{"key":"service","operator":"In","values":["securityscan"]},
                              {"key":"service","operator":"NotIn","values":["WrongValue"]}])",
                 "region")},
           {}),
       {{"p1", "machine1", kPodLabel}},
       kNode1,
       {{}}},
      {"The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot "
       "schedule onto the node because one of the matchExpression item don't match.",
       kPodLabel2,
       affinitySpec(
           {term(
                R"([{"key":"service","operator":"Exists"},{"key":"wrongkey","operator":"DoesNotExist"}])",
                "region"),
            term(R"([{"key":"service","operator":"In","values":["securityscan2"]},
                              {"key":"service","operator":"NotIn","values":["WrongValue"]}])",
                 "region")},
           {}),
       {{"p1", "machine1", kPodLabel}},
       kNode1,
       {{Code::UnschedulableAndUnresolvable, kAffinityRules}}},
      {"satisfies the PodAffinity and PodAntiAffinity with the existing pod",
       kPodLabel2,
       affinitySpec({term(inSecurityScan, "region")}, {term(inAntivirus, "node")}),
       {{"p1", "machine1", kPodLabel}},
       kNode1,
       {{}}},
      {"satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the "
       "existing pod",
       kPodLabel2,
       affinitySpec({term(inSecurityScan, "region")}, {term(inAntivirus, "node")}),
       {{"p1", "machine1", kPodLabel, affinitySpec({}, {term(inAntivirus, "node")})}},
       kNode1,
       {{}}},
      {"satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
       kPodLabel2,
       affinitySpec({term(inSecurityScan, "region")}, {term(inSecurityScan, "zone")}),
       {{"p1", "machine1", kPodLabel}},
       kNode1,
       {{Code::Unschedulable, kAntiAffinityRules}}},
      {"satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity "
       "symmetry with the existing pod",
       kPodLabel,
       affinitySpec({term(inSecurityScan, "region")}, {term(inAntivirus, "node")}),
       {{"p1", "machine1", kPodLabel, affinitySpec({}, {term(inSecurityScan, "zone")})}},
       kNode1,
       {{Code::Unschedulable, kExistingAntiAffinity}}},
      {"pod matches its own Label in PodAffinity and that matches the existing pod Labels",
       kPodLabel,
       affinitySpec(
           {term(R"([{"key":"service","operator":"NotIn","values":["securityscan","value2"]}])",
                 "region")},
           {}),
       {{"p1", "machine2", kPodLabel}},
       kNode1,
       {{Code::UnschedulableAndUnresolvable, kAffinityRules}}},
      {"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
       "constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
       kPodLabel,
       Json::object(),
       {{"p1", "machine1", kPodLabel, affinitySpec({}, {term(inSecurityScan, "zone")})}},
       kNode1,
       {{Code::Unschedulable, kExistingAntiAffinity}}},
      {"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
       "constraints. satisfy PodAntiAffinity symmetry with the existing pod",
       kPodLabel,
       Json::object(),
       {{"p1", "machine1", kPodLabel,
         affinitySpec(
             {},
             {term(R"([{"key":"service","operator":"NotIn","values":["securityscan","value2"]}])",
                   "zone")})}},
       kNode1,
       {{}}},
  };
  for (const FilterCase& c : cases) runFilterCase(c);
}

TEST(InterPodAffinityTest, TestRequiredAffinityMultipleNodes) {
  const std::vector<std::pair<std::string, Json>> nodesAB = {
      {"nodeA", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeA"}}},
      {"nodeB", {{"region", "r1"}, {"zone", "z2"}, {"hostname", "nodeB"}}}};
  const char* fooExists = R"([{"key":"foo","operator":"Exists"}])";
  const char* barExists = R"([{"key":"bar","operator":"Exists"}])";
  const std::vector<FilterCase> cases = {
      {"Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when all terms have valid topologyKey",
       {{"foo", ""}, {"bar", ""}},
       Json::object(),
       {{"p1", "nodeA", Json::object(),
         affinitySpec({}, {term(fooExists, "region"), term(barExists, "zone")})}},
       nodesAB,
       {{Code::Unschedulable, kExistingAntiAffinity},
        {Code::Unschedulable, kExistingAntiAffinity}}},
      {"Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when all terms have valid topologyKey",
       Json::object(),
       affinitySpec({}, {term(fooExists, "region"), term(barExists, "zone")}),
       {{"p1", "nodeA", {{"foo", ""}, {"bar", ""}}}},
       nodesAB,
       {{Code::Unschedulable, kAntiAffinityRules}, {Code::Unschedulable, kAntiAffinityRules}}},
      {"Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one "
       "anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
       {{"foo", ""}, {"bar", ""}},
       Json::object(),
       {{"p1", "nodeA", Json::object(),
         affinitySpec({}, {term(fooExists, "zone"),
                           term(R"([{"key":"labelA","operator":"Exists"}])", "zone")})},
        {"p2", "nodeB", Json::object(),
         affinitySpec({}, {term(barExists, "zone"),
                           term(R"([{"key":"labelB","operator":"Exists"}])", "zone")})}},
       {nodesAB[0],
        nodesAB[1],
        {"nodeC", {{"region", "r1"}, {"zone", "z3"}, {"hostname", "nodeC"}}}},
       {{Code::Unschedulable, kExistingAntiAffinity},
        {Code::Unschedulable, kExistingAntiAffinity},
        {}}},
      {"Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if "
       "all topologyKeys match",
       Json::object(),
       affinitySpec({term(fooExists, "region"), term(barExists, "zone")}, {}),
       {{"pod1", "nodeA", {{"foo", ""}, {"bar", ""}}}},
       {nodesAB[0], {"nodeB", {{"region", "r1"}, {"zone", "z1"}, {"hostname", "nodeB"}}}},
       {{}, {}}},
      {"Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if "
       "all topologyKeys match, and the match logic should be satisfied on the same pod",
       Json::object(),
       affinitySpec({term(fooExists, "region"), term(barExists, "zone")}, {}),
       {{"pod1", "nodeA", {{"foo", ""}}}, {"pod2", "nodeB", {{"bar", ""}}}},
       nodesAB,
       {{Code::UnschedulableAndUnresolvable, kAffinityRules},
        {Code::UnschedulableAndUnresolvable, kAffinityRules}}},
  };
  for (const FilterCase& c : cases) runFilterCase(c);
}

// The first pod of a group that requires itself: no pod anywhere matches, the pod matches its
// own term, so every node with the topology key is allowed (satisfyPodAffinity's exception).
TEST(InterPodAffinityTest, FirstPodOfASelfAffineGroupIsAllowed) {
  runFilterCase(
      {"first pod of a self-affine group",
       kPodLabel,
       affinitySpec(
           {term(R"([{"key":"service","operator":"In","values":["securityscan"]}])", "region")},
           {}),
       {},
       {{"machine1", {{"region", "r1"}}}, {"machine2", {{"zone", "z1"}}}},
       {{}, {Code::UnschedulableAndUnresolvable, kAffinityRules}}});
}

// Preferred affinity (scoring.go): the pod prefers (weight 5) pods with security=S1 in its
// region; node1 (region China) holds one, node2 is in the same region, node3 (India) is not:
// raw 5, 5, 0, min-max scaled to 100, 100, 0.
TEST(InterPodAffinityTest, PreferredAffinityScoresTheMatchingPodsWholeDomain) {
  Json spec = Json::object();
  spec["affinity"]["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] =
      Json::array({{{"weight", 5},
                    {"podAffinityTerm",
                     term(R"([{"key":"security","operator":"In","values":["S1"]}])", "region")}}});
  Snapshot snapshot;
  snapshot.setNodes({node("node1", {{"region", "China"}, {"az", "az1"}}),
                     node("node2", {{"region", "China"}, {"az", "az2"}}),
                     node("node3", {{"region", "India"}})});
  snapshot.addPod(shared(podWithSpec("p1", Json::object(), {{"security", "S1"}})), "node1");
  snapshot.addPod(shared(podWithSpec("p2", Json::object(), {{"security", "S2"}})), "node3");
  const Json pod = podWithSpec("incoming", spec, {{"security", "S1"}});
  auto plugin = interPodAffinityPlugin(pod, snapshot);
  ASSERT_TRUE(plugin.has_value());
  const auto& nodes = snapshot.nodes();
  ASSERT_TRUE((*plugin)->preScore(nodes));
  std::vector<std::int64_t> scores;
  for (const NodeInfo* n : nodes) scores.push_back((*plugin)->score(*n));
  EXPECT_EQ(scores, (std::vector<std::int64_t>{5, 5, 0}));
  (*plugin)->normalizeScores(nodes, scores);
  EXPECT_EQ(scores, (std::vector<std::int64_t>{100, 100, 0}));
}

// Preferred anti-affinity: the pod avoids (weight 5) pods with security=S1 in the same region;
// node1 (China) holds one, node2 (India) does not: raw -5, 0, scaled to 0, 100.
TEST(InterPodAffinityTest, PreferredAntiAffinityScoresTheMatchingPodsDomainLowest) {
  Json spec = Json::object();
  spec["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"] =
      Json::array({{{"weight", 5},
                    {"podAffinityTerm",
                     term(R"([{"key":"security","operator":"In","values":["S1"]}])", "region")}}});
  Snapshot snapshot;
  snapshot.setNodes({node("node1", {{"region", "China"}}), node("node2", {{"region", "India"}})});
  snapshot.addPod(shared(podWithSpec("p1", Json::object(), {{"security", "S1"}})), "node1");
  snapshot.addPod(shared(podWithSpec("p2", Json::object(), {{"security", "S2"}})), "node2");
  const Json pod = podWithSpec("incoming", spec, {{"security", "S1"}});
  auto plugin = interPodAffinityPlugin(pod, snapshot);
  ASSERT_TRUE(plugin.has_value());
  const auto& nodes = snapshot.nodes();
  ASSERT_TRUE((*plugin)->preScore(nodes));
  std::vector<std::int64_t> scores;
  for (const NodeInfo* n : nodes) scores.push_back((*plugin)->score(*n));
  (*plugin)->normalizeScores(nodes, scores);
  EXPECT_EQ(scores, (std::vector<std::int64_t>{0, 100}));
}

// matchLabelKeys: the term selects only the pods with the incoming pod's own value of the key.
TEST(InterPodAffinityTest, MatchLabelKeysNarrowTheSelectorToThePodsValue) {
  Json anti = term(R"([{"key":"app","operator":"In","values":["web"]}])", "kubernetes.io/hostname");
  anti["matchLabelKeys"] = Json::array({"pod-template-hash"});
  Snapshot snapshot;
  snapshot.setNodes({node("node1", {{"kubernetes.io/hostname", "node1"}}),
                     node("node2", {{"kubernetes.io/hostname", "node2"}})});
  snapshot.addPod(
      shared(podWithSpec("old", Json::object(), {{"app", "web"}, {"pod-template-hash", "old"}})),
      "node1");
  snapshot.addPod(
      shared(podWithSpec("new", Json::object(), {{"app", "web"}, {"pod-template-hash", "new"}})),
      "node2");
  const Json pod = podWithSpec("incoming", affinitySpec({}, {anti}),
                               {{"app", "web"}, {"pod-template-hash", "new"}});
  auto plugin = interPodAffinityPlugin(pod, snapshot);
  ASSERT_TRUE(plugin.has_value());
  EXPECT_TRUE((*plugin)->filter(*snapshot.nodes()[0]).ok());
  EXPECT_EQ((*plugin)->filter(*snapshot.nodes()[1]).code, Code::Unschedulable);
}

}  // namespace
}  // namespace fakekube::scheduling::interpodaffinitytest
