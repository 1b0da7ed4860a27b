// The StatefulSet controller: pods <set>-<ordinal> made in order (OrderedReady waits for each to
// be Running and Ready) or all at once (Parallel), scale-down from the highest ordinal one at a
// time, PVCs from volumeClaimTemplates, revisions and status.
#include "fakekube/cluster/statefulset_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "fakekube/cluster/workload_fixture.h"

namespace fakekube::workloadtest {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

Json statefulSet(const std::string& name, int replicas) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "StatefulSet"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"replicas", replicas},
            {"serviceName", name},
            {"selector", {{"matchLabels", {{"app", name}}}}},
            {"template",
             {{"metadata", {{"labels", {{"app", name}}}}},
              {"spec",
               // Bound, so a deleted pod stays terminating until the test finishes it.
               {{"nodeName", "node-1"},
                {"containers", Json::array({{{"name", "main"}, {"image", "postgres:16"}}})}}}}}}}};
}

class StatefulSetControllerTest : public WorkloadTest {
 protected:
  void SetUp() override {
    WorkloadTest::SetUp();
    newManager();
    ASSERT_TRUE(addStatefulSetController(*manager).has_value());
    startManager();
  }

  std::vector<std::string> podNames(const std::string& app = "db") {
    std::vector<std::string> out;
    for (const auto& p : pods("app=" + app)) out.push_back(meta::name(p));
    std::sort(out.begin(), out.end());
    return out;
  }
  void markReady(const std::string& name) { markRunning(get(kPods, "default", name)); }
  // Deletes a pod for good (no kubelet here to finish a graceful deletion).
  void finishDeletion(const std::string& name) {
    DeleteOptions options;
    options.gracePeriodSeconds = 0;
    (void)server->deleteObject(kPods, "default", name, options);
  }
  std::vector<std::string> terminating() {
    std::vector<std::string> out;
    for (const auto& p : pods("app=db")) {
      if (meta::isDeleting(p)) out.push_back(meta::name(p));
    }
    return out;
  }
};

TEST_F(StatefulSetControllerTest, OrderedReadyMakesOnePodAtATime) {
  create(kStatefulSets, statefulSet("db", 3));
  run();
  EXPECT_THAT(podNames(), ElementsAre("db-0"));
  run(std::chrono::seconds(30));
  EXPECT_THAT(podNames(), ElementsAre("db-0")) << "db-1 waits for db-0 to be Running and Ready";
  Json db0 = get(kPods, "default", "db-0");
  EXPECT_EQ(meta::label(db0, "statefulset.kubernetes.io/pod-name"), "db-0");
  EXPECT_EQ(meta::label(db0, "apps.kubernetes.io/pod-index"), "0");
  EXPECT_EQ(db0["spec"]["hostname"], "db-0");
  EXPECT_EQ(db0["spec"]["subdomain"], "db");
  EXPECT_EQ(meta::controllerOf(db0)->kind, "StatefulSet");

  markRunning(db0, false);
  run();
  EXPECT_THAT(podNames(), ElementsAre("db-0")) << "Running but not Ready is not enough";
  markReady("db-0");
  run();
  EXPECT_THAT(podNames(), ElementsAre("db-0", "db-1"));
  markReady("db-1");
  run();
  EXPECT_THAT(podNames(), ElementsAre("db-0", "db-1", "db-2"));
  markReady("db-2");
  run();
  Json status = get(kStatefulSets, "default", "db")["status"];
  EXPECT_EQ(status["replicas"], 3);
  EXPECT_EQ(status["readyReplicas"], 3);
  EXPECT_EQ(status["availableReplicas"], 3);
  EXPECT_EQ(status["currentReplicas"], 3);
  EXPECT_EQ(status["updatedReplicas"], 3);
  EXPECT_EQ(status["observedGeneration"], 1);
  EXPECT_EQ(status["currentRevision"], status["updateRevision"]);
  EXPECT_EQ(meta::label(get(kPods, "default", "db-2"), "controller-revision-hash"),
            status["updateRevision"].get<std::string>().substr(3));
  Json revision = get(kControllerRevisions, "default", status["updateRevision"].get<std::string>());
  EXPECT_EQ(revision["revision"], 1);
}

TEST_F(StatefulSetControllerTest, ScaleDownFromTheHighestOrdinalOneAtATime) {
  Json set = statefulSet("db", 3);
  set["spec"]["podManagementPolicy"] = "Parallel";
  create(kStatefulSets, set);
  run();
  EXPECT_THAT(podNames(), ElementsAre("db-0", "db-1", "db-2")) << "Parallel makes them at once";
  for (const auto& n : podNames()) markReady(n);
  run();
  // Back to OrderedReady: scaling down to 1 removes db-2, then db-1.
  mergePatch(kStatefulSets, "default", "db",
             {{"spec", {{"replicas", 1}, {"podManagementPolicy", "OrderedReady"}}}});
  run();
  EXPECT_THAT(terminating(), ElementsAre("db-2"));
  run(std::chrono::seconds(10));
  EXPECT_THAT(terminating(), ElementsAre("db-2")) << "db-1 waits until db-2 is gone";
  finishDeletion("db-2");
  run();
  EXPECT_THAT(terminating(), ElementsAre("db-1"));
  finishDeletion("db-1");
  run();
  EXPECT_THAT(podNames(), ElementsAre("db-0"));
  EXPECT_EQ(get(kStatefulSets, "default", "db")["status"]["replicas"], 1);
}

TEST_F(StatefulSetControllerTest, ParallelScaleDownDeletesAllAtOnce) {
  Json set = statefulSet("db", 3);
  set["spec"]["podManagementPolicy"] = "Parallel";
  create(kStatefulSets, set);
  run();
  mergePatch(kStatefulSets, "default", "db", {{"spec", {{"replicas", 1}}}});
  run();
  EXPECT_THAT(terminating(), UnorderedElementsAre("db-1", "db-2"));
}

TEST_F(StatefulSetControllerTest, VolumeClaimTemplatesMakeClaimsPerPod) {
  Json set = statefulSet("db", 2);
  set["spec"]["podManagementPolicy"] = "Parallel";
  set["spec"]["volumeClaimTemplates"] =
      Json::array({{{"metadata", {{"name", "data"}}},
                    {"spec",
                     {{"accessModes", {"ReadWriteOnce"}},
                      {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}}});
  create(kStatefulSets, set);
  run();
  for (const std::string ordinal : {"0", "1"}) {
    Json claim = get(kPersistentVolumeClaims, "default", "data-db-" + ordinal);
    EXPECT_EQ(meta::label(claim, "app"), "db");
    EXPECT_EQ(claim["spec"]["resources"]["requests"]["storage"], "1Gi");
    Json pod = get(kPods, "default", "db-" + ordinal);
    Json volume = pod["spec"]["volumes"][0];
    EXPECT_EQ(volume["name"], "data");
    EXPECT_EQ(volume["persistentVolumeClaim"]["claimName"], "data-db-" + ordinal);
  }
  // Claims stay when the pods go.
  mergePatch(kStatefulSets, "default", "db", {{"spec", {{"replicas", 0}}}});
  run();
  finishDeletion("db-0");
  finishDeletion("db-1");
  run();
  EXPECT_TRUE(server->get(kPersistentVolumeClaims, "default", "data-db-1").has_value());
}

TEST_F(StatefulSetControllerTest, FailedPodIsMadeAgainAndRollingUpdateGoesDownward) {
  Json set = statefulSet("db", 2);
  create(kStatefulSets, set);
  run();
  markReady("db-0");
  run();
  markReady("db-1");
  run();
  std::string uid0 = meta::uid(get(kPods, "default", "db-0"));
  markFinished(get(kPods, "default", "db-0"), false);
  run();
  finishDeletion("db-0");
  run();
  EXPECT_NE(meta::uid(get(kPods, "default", "db-0")), uid0);
  markReady("db-0");
  run();

  // A new template: db-1 is replaced first, then db-0.
  Json before = get(kStatefulSets, "default", "db")["status"];
  Json newTemplate = get(kStatefulSets, "default", "db")["spec"]["template"];
  newTemplate["spec"]["containers"][0]["image"] = "postgres:17";
  mergePatch(kStatefulSets, "default", "db", Json{{"spec", {{"template", newTemplate}}}});
  run();
  EXPECT_THAT(terminating(), ElementsAre("db-1"));
  Json status = get(kStatefulSets, "default", "db")["status"];
  EXPECT_NE(status["updateRevision"], before["updateRevision"]);
  EXPECT_EQ(status["currentRevision"], before["updateRevision"]);
  finishDeletion("db-1");
  run();
  EXPECT_EQ(get(kPods, "default", "db-1")["spec"]["containers"][0]["image"], "postgres:17");
  markReady("db-1");
  run();
  EXPECT_THAT(terminating(), ElementsAre("db-0"));
  finishDeletion("db-0");
  run();
  markReady("db-0");
  run();
  status = get(kStatefulSets, "default", "db")["status"];
  EXPECT_EQ(status["currentRevision"], status["updateRevision"]);
  EXPECT_EQ(status["updatedReplicas"], 2);
  EXPECT_EQ(
      get(kControllerRevisions, "default", status["updateRevision"].get<std::string>())["revision"],
      2);
}

}  // namespace
}  // namespace fakekube::workloadtest
