// The DaemonSet controller: one pod per node that should run it (nodeSelector, taints), on nodes
// added later too, pods leave nodes that stop matching, and the status counts.
#include "fakekube/cluster/daemonset_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/cluster/nodes.h"
#include "fakekube/cluster/workload_fixture.h"

namespace fakekube::workloadtest {
namespace {

using ::testing::ElementsAre;

// A DaemonSet running fluentd.
Json daemonSet(const std::string& name) {
  Json object = appsWorkload("DaemonSet", name);
  object["spec"]["template"]["spec"]["containers"][0]["image"] = "fluentd:1";
  return object;
}

class DaemonSetControllerTest : public WorkloadTest {
 protected:
  void SetUp() override {
    WorkloadTest::SetUp();
    client = std::make_unique<InProcessClient>(*server);
    addTestNode("node-1", {{"disk", "ssd"}});
    addTestNode("node-2", {});
    newManager();
    ASSERT_TRUE(addDaemonSetController(*manager).has_value());
    startManager();
  }
  void TearDown() override {
    WorkloadTest::TearDown();
    client.reset();
  }
  void addTestNode(const std::string& name, std::map<std::string, std::string> labels) {
    NodeConfig config;
    config.name = name;
    config.labels = std::move(labels);
    ASSERT_TRUE(addNode(*client, ex.clock(), config).has_value());
  }
  // The nodes the set's live pods are on, sorted.
  std::vector<std::string> nodesWithPods(const std::string& app = "agent") {
    std::vector<std::string> out;
    for (const auto& p : pods("app=" + app)) {
      if (!meta::isDeleting(p)) out.push_back(p["spec"].value("nodeName", ""));
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  std::unique_ptr<InProcessClient> client;
};

TEST_F(DaemonSetControllerTest, OnePodPerNodeIncludingNodesAddedLater) {
  create(kDaemonSets, daemonSet("agent"));
  run();
  EXPECT_THAT(nodesWithPods(), ElementsAre("node-1", "node-2"));
  Json p = pods("app=agent")[0];
  EXPECT_EQ(meta::generateName(p), "agent-");
  EXPECT_EQ(meta::controllerOf(p)->kind, "DaemonSet");
  EXPECT_FALSE(meta::label(p, "controller-revision-hash").empty());
  Json status = get(kDaemonSets, "default", "agent")["status"];
  EXPECT_EQ(status["desiredNumberScheduled"], 2);
  EXPECT_EQ(status["currentNumberScheduled"], 2);
  EXPECT_EQ(status["numberReady"], 0);
  EXPECT_EQ(status["numberUnavailable"], 2);
  EXPECT_EQ(status["updatedNumberScheduled"], 2);

  addTestNode("node-3", {});
  run();
  EXPECT_THAT(nodesWithPods(), ElementsAre("node-1", "node-2", "node-3"));
  for (const auto& pod : pods("app=agent")) markRunning(pod);
  run();
  status = get(kDaemonSets, "default", "agent")["status"];
  EXPECT_EQ(status["desiredNumberScheduled"], 3);
  EXPECT_EQ(status["numberReady"], 3);
  EXPECT_EQ(status["numberAvailable"], 3);
  EXPECT_FALSE(status.contains("numberUnavailable"));

  // A deleted daemon pod is made again; one per node even when a second one appears.
  remove(kPods, "default", meta::name(pods("app=agent")[0]),
         DeleteOptions{.gracePeriodSeconds = 0});
  run();
  EXPECT_THAT(nodesWithPods(), ElementsAre("node-1", "node-2", "node-3"));
}

TEST_F(DaemonSetControllerTest, NodeSelectorAndTaints) {
  Json set = daemonSet("agent");
  set["spec"]["template"]["spec"]["nodeSelector"] = {{"disk", "ssd"}};
  create(kDaemonSets, set);
  run();
  EXPECT_THAT(nodesWithPods(), ElementsAre("node-1"));

  // A taint the pod does not tolerate keeps it off (and takes the pod away).
  mergePatch(
      kNodes, "", "node-1",
      {{"spec",
        {{"taints",
          Json::array({{{"key", "dedicated"}, {"value", "db"}, {"effect", "NoSchedule"}}})}}}});
  run();
  EXPECT_TRUE(nodesWithPods().empty());
  EXPECT_EQ(get(kDaemonSets, "default", "agent")["status"]["desiredNumberScheduled"], 0);
  // ...unless it tolerates it; cordoning does not matter to daemons.
  Json tolerating = daemonSet("tolerant");
  tolerating["spec"]["template"]["spec"]["tolerations"] =
      Json::array({{{"key", "dedicated"}, {"operator", "Exists"}}});
  create(kDaemonSets, tolerating);
  mergePatch(kNodes, "", "node-2", {{"spec", {{"unschedulable", true}}}});
  run();
  EXPECT_THAT(nodesWithPods("tolerant"), ElementsAre("node-1", "node-2"));
}

}  // namespace
}  // namespace fakekube::workloadtest
