// The Deployment controller (with the ReplicaSet controller under it): the ReplicaSet per
// template hash, rolling updates within maxSurge / maxUnavailable at every step, Recreate,
// scaling, status and conditions, and deletion through the garbage collector.
#include "fakekube/cluster/deployment_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/cluster/internal/deployment_util.h"
#include "fakekube/cluster/internal/pod_template_hash.h"
#include "fakekube/cluster/replicaset_controller.h"
#include "fakekube/cluster/workload_fixture.h"

namespace fakekube::workloadtest {
namespace {

using std::chrono::seconds;

class DeploymentControllerTest : public WorkloadTest {
 protected:
  void SetUp() override {
    WorkloadTest::SetUp();
    newManager();
    ASSERT_TRUE(addReplicaSetController(*manager).has_value());
    ASSERT_TRUE(addDeploymentController(*manager).has_value());
    startManager();
  }

  std::vector<Json> replicaSets() {
    Json listed = list(kReplicaSets, "default");
    return std::vector<Json>(listed["items"].begin(), listed["items"].end());
  }

  // A rollout: the Deployment web's pod template runs `image`.
  void setWebImage(const std::string& image) {
    mergePatch(
        kDeployments, "default", "web",
        {{"spec",
          {{"template",
            {{"spec", {{"containers", Json::array({{{"name", "main"}, {"image", image}}})}}}}}}}});
  }

  // Creates the Deployment and runs until its pods are Running and Ready.
  void createAndReady(const Json& deployment) {
    create(kDeployments, deployment);
    run();
    readyAllPending();
    run();
  }

  // Plays the kubelet: every pending pod becomes Running and Ready.
  int readyAllPending() {
    int n = 0;
    for (const auto& p : pods()) {
      if (podPhase(p) == "Pending" && !meta::isDeleting(p)) {
        markRunning(p);
        ++n;
      }
    }
    return n;
  }
};

TEST_F(DeploymentControllerTest, CreatesAReplicaSetNamedByTheTemplateHash) {
  Json d = create(kDeployments, deployment("web", "default", 2));
  run();
  auto sets = replicaSets();
  ASSERT_EQ(sets.size(), 1u);
  const Json& rs = sets[0];
  const std::string hash = workload::computePodTemplateHash(d["spec"]["template"], std::nullopt);
  EXPECT_EQ(meta::name(rs), "web-" + hash);
  EXPECT_EQ(hash.size() >= 8 && hash.size() <= 10, true) << hash;
  EXPECT_EQ(hash.find_first_not_of("bcdfghjklmnpqrstvwxz2456789"), std::string::npos);
  EXPECT_EQ(meta::label(rs, "pod-template-hash"), hash);
  EXPECT_EQ(rs["spec"]["selector"]["matchLabels"]["pod-template-hash"], hash);
  EXPECT_EQ(rs["spec"]["template"]["metadata"]["labels"]["pod-template-hash"], hash);
  EXPECT_EQ(meta::annotation(rs, "deployment.kubernetes.io/revision"), "1");
  EXPECT_EQ(meta::annotation(rs, "deployment.kubernetes.io/desired-replicas"), "2");
  EXPECT_EQ(meta::annotation(rs, "deployment.kubernetes.io/max-replicas"), "3");
  EXPECT_EQ(meta::controllerOf(rs)->uid, meta::uid(d));
  EXPECT_EQ(rs["spec"]["replicas"], 2);
  EXPECT_EQ(
      meta::annotation(get(kDeployments, "default", "web"), "deployment.kubernetes.io/revision"),
      "1");
  auto created = pods("app=web");
  ASSERT_EQ(created.size(), 2u);
  for (const auto& p : created) EXPECT_EQ(meta::label(p, "pod-template-hash"), hash);

  // Not yet available: the rollout is progressing.
  Json status = get(kDeployments, "default", "web")["status"];
  EXPECT_EQ(status["replicas"], 2);
  EXPECT_EQ(status["updatedReplicas"], 2);
  EXPECT_EQ(status["unavailableReplicas"], 2);
  Json available = condition(get(kDeployments, "default", "web"), "Available");
  EXPECT_EQ(available["status"], "False");
  EXPECT_EQ(available["reason"], "MinimumReplicasUnavailable");
  EXPECT_EQ(available["message"], "Deployment does not have minimum availability.");
  Json progressing = condition(get(kDeployments, "default", "web"), "Progressing");
  EXPECT_EQ(progressing["status"], "True");
  EXPECT_EQ(progressing["reason"], "ReplicaSetUpdated");
  EXPECT_EQ(progressing["message"], "ReplicaSet \"" + meta::name(rs) + "\" is progressing.");
  const std::string createdAt = progressing["lastTransitionTime"];

  run(seconds(5));
  readyAllPending();
  run();
  Json done = get(kDeployments, "default", "web");
  EXPECT_EQ(done["status"]["readyReplicas"], 2);
  EXPECT_EQ(done["status"]["availableReplicas"], 2);
  EXPECT_FALSE(done["status"].contains("unavailableReplicas"));
  EXPECT_EQ(done["status"]["observedGeneration"], 1);
  available = condition(done, "Available");
  EXPECT_EQ(available["status"], "True");
  EXPECT_EQ(available["reason"], "MinimumReplicasAvailable");
  EXPECT_EQ(available["message"], "Deployment has minimum availability.");
  EXPECT_EQ(available["lastTransitionTime"], now());
  progressing = condition(done, "Progressing");
  EXPECT_EQ(progressing["reason"], "NewReplicaSetAvailable");
  EXPECT_EQ(progressing["message"],
            "ReplicaSet \"" + meta::name(rs) + "\" has successfully progressed.");
  EXPECT_EQ(progressing["lastUpdateTime"], now());
  EXPECT_EQ(progressing["lastTransitionTime"], createdAt);  // still True since the start
}

TEST_F(DeploymentControllerTest, RollingUpdateStaysWithinSurgeAndUnavailableAtEveryStep) {
  Json d = deployment("web", "default", 4);
  d["spec"]["strategy"] = {{"type", "RollingUpdate"},
                           {"rollingUpdate", {{"maxSurge", 1}, {"maxUnavailable", "25%"}}}};
  createAndReady(d);
  ASSERT_EQ(get(kDeployments, "default", "web")["status"]["availableReplicas"], 4);
  Json firstRs = replicaSets().at(0);

  setWebImage("nginx:1.28");
  int steps = 0;
  for (; steps < 50; ++steps) {
    run();
    auto all = pods("app=web");
    int ready = 0, updated = 0;
    for (const auto& p : all) {
      ready += isPodReady(p) ? 1 : 0;
      updated += p["spec"]["containers"][0]["image"] == "nginx:1.28" ? 1 : 0;
    }
    EXPECT_LE(all.size(), 5u) << "step " << steps << ": more than replicas + maxSurge pods";
    EXPECT_GE(ready, 3) << "step " << steps << ": fewer than replicas - maxUnavailable available";
    if (updated == 4 && all.size() == 4u && ready == 4) break;
    run(seconds(1));
    readyAllPending();  // the kubelet starts the new pods, one step later
  }
  EXPECT_LT(steps, 50) << "the rollout did not finish";
  run();
  Json done = get(kDeployments, "default", "web");
  EXPECT_EQ(done["status"]["updatedReplicas"], 4);
  EXPECT_EQ(done["status"]["availableReplicas"], 4);
  EXPECT_EQ(meta::annotation(done, "deployment.kubernetes.io/revision"), "2");
  EXPECT_EQ(condition(done, "Progressing")["reason"], "NewReplicaSetAvailable");
  auto sets = replicaSets();
  ASSERT_EQ(sets.size(), 2u);  // the old one stays, scaled to 0 (revisionHistoryLimit 10)
  for (const auto& rs : sets) {
    if (meta::uid(rs) == meta::uid(firstRs)) {
      EXPECT_EQ(rs["spec"]["replicas"], 0);
      EXPECT_EQ(meta::annotation(rs, "deployment.kubernetes.io/revision"), "1");
    } else {
      EXPECT_EQ(rs["spec"]["replicas"], 4);
      EXPECT_EQ(meta::annotation(rs, "deployment.kubernetes.io/revision"), "2");
    }
  }
}

// An update writes the template as the client sent it, without the pod-spec defaults the
// ReplicaSet's copy got on create: the two are still the same template.
TEST_F(DeploymentControllerTest, AnUndefaultedTemplateFromAnUpdateMatchesItsReplicaSet) {
  create(kDeployments, deployment("web", "default", 2));
  run();
  Json d = get(kDeployments, "default", "web");
  d["spec"]["template"] = deployment("web")["spec"]["template"];
  d["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28";
  update(kDeployments, d);
  for (int i = 0; i < 10; ++i) {
    run(seconds(1));
    readyAllPending();
  }
  run(seconds(60));
  EXPECT_EQ(replicaSets().size(), 2u);
  Json done = get(kDeployments, "default", "web");
  EXPECT_FALSE(done["status"].contains("collisionCount"));
  EXPECT_EQ(done["status"]["updatedReplicas"], 2);
  EXPECT_EQ(meta::annotation(done, "deployment.kubernetes.io/revision"), "2");
}

TEST_F(DeploymentControllerTest, RevisionHistoryLimitDeletesOldEmptyReplicaSets) {
  Json d = deployment("web", "default", 1);
  d["spec"]["revisionHistoryLimit"] = 1;
  create(kDeployments, d);
  for (const char* image : {"nginx:1", "nginx:2", "nginx:3"}) {
    run();
    readyAllPending();
    run();
    setWebImage(image);
  }
  for (int i = 0; i < 10; ++i) {
    run(seconds(1));
    readyAllPending();
  }
  run();
  auto sets = replicaSets();
  std::vector<std::string> revisions;
  for (const auto& rs : sets)
    revisions.push_back(meta::annotation(rs, "deployment.kubernetes.io/revision"));
  std::sort(revisions.begin(), revisions.end());
  EXPECT_EQ(revisions, (std::vector<std::string>{"3", "4"}));
}

TEST_F(DeploymentControllerTest, RecreateWaitsForTheOldPodsToBeGone) {
  Json d = deployment("web", "default", 2);
  d["spec"]["strategy"] = {{"type", "Recreate"}};
  createAndReady(d);
  // The old pods hold a finalizer, so they linger after their deletion.
  for (const auto& p : pods("app=web")) {
    mergePatch(kPods, "default", meta::name(p),
               {{"metadata", {{"finalizers", Json::array({"example.com/hold"})}}}});
  }
  setWebImage("nginx:1.28");
  run(seconds(5));
  auto sets = replicaSets();
  ASSERT_EQ(sets.size(), 1u) << "no new ReplicaSet while old pods are still there";
  EXPECT_EQ(sets[0]["spec"]["replicas"], 0);
  for (const auto& p : pods("app=web")) EXPECT_TRUE(meta::isDeleting(p));
  EXPECT_EQ(condition(get(kDeployments, "default", "web"), "Available")["status"], "False");

  for (const auto& p : pods("app=web")) release(kPods, "default", meta::name(p));
  run();
  sets = replicaSets();
  ASSERT_EQ(sets.size(), 2u);
  auto fresh = pods("app=web");
  ASSERT_EQ(fresh.size(), 2u);
  for (const auto& p : fresh) EXPECT_EQ(p["spec"]["containers"][0]["image"], "nginx:1.28");
}

TEST_F(DeploymentControllerTest, ScalesUpAndDown) {
  createAndReady(deployment("web", "default", 2));
  mergePatch(kDeployments, "default", "web", {{"spec", {{"replicas", 5}}}});
  run();
  EXPECT_EQ(pods("app=web").size(), 5u);
  auto sets = replicaSets();
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(meta::annotation(sets[0], "deployment.kubernetes.io/desired-replicas"), "5");
  EXPECT_EQ(meta::annotation(sets[0], "deployment.kubernetes.io/max-replicas"), "7");
  readyAllPending();
  run();
  EXPECT_EQ(get(kDeployments, "default", "web")["status"]["availableReplicas"], 5);
  mergePatch(kDeployments, "default", "web", {{"spec", {{"replicas", 1}}}});
  run();
  EXPECT_EQ(pods("app=web").size(), 1u);
  Json status = get(kDeployments, "default", "web")["status"];
  EXPECT_EQ(status["replicas"], 1);
  EXPECT_EQ(status["availableReplicas"], 1);
  EXPECT_EQ(status["observedGeneration"], 3);
}

TEST_F(DeploymentControllerTest, PausedDeploymentDoesNotRollOut) {
  createAndReady(deployment("web", "default", 1));
  mergePatch(kDeployments, "default", "web", {{"spec", {{"paused", true}}}});
  run();
  Json progressing = condition(get(kDeployments, "default", "web"), "Progressing");
  EXPECT_EQ(progressing["status"], "Unknown");
  EXPECT_EQ(progressing["reason"], "DeploymentPaused");
  EXPECT_EQ(progressing["message"], "Deployment is paused");
  setWebImage("nginx:1.28");
  run(seconds(10));
  EXPECT_EQ(replicaSets().size(), 1u);
  mergePatch(kDeployments, "default", "web", {{"spec", {{"paused", false}}}});
  run();
  EXPECT_EQ(replicaSets().size(), 2u);
}

TEST_F(DeploymentControllerTest, ProgressDeadlineExceededWhenPodsNeverBecomeReady) {
  Json d = deployment("web", "default", 1);
  d["spec"]["progressDeadlineSeconds"] = 30;
  create(kDeployments, d);
  run();
  const std::string rsName = meta::name(replicaSets().at(0));
  run(seconds(30));
  EXPECT_EQ(condition(get(kDeployments, "default", "web"), "Progressing")["status"], "True");
  run(seconds(2));
  Json progressing = condition(get(kDeployments, "default", "web"), "Progressing");
  EXPECT_EQ(progressing["status"], "False");
  EXPECT_EQ(progressing["reason"], "ProgressDeadlineExceeded");
  EXPECT_EQ(progressing["message"], "ReplicaSet \"" + rsName + "\" has timed out progressing.");
}

TEST_F(DeploymentControllerTest, DeletingTheDeploymentRemovesReplicaSetsAndPodsThroughTheGc) {
  create(kDeployments, deployment("web", "default", 3));
  run();
  ASSERT_EQ(replicaSets().size(), 1u);
  ASSERT_EQ(pods("app=web").size(), 3u);
  remove(kDeployments, "default", "web");
  settle();
  EXPECT_FALSE(exists(kDeployments, "default", "web"));
  EXPECT_TRUE(replicaSets().empty());
  EXPECT_TRUE(pods("app=web").empty());
}

TEST(DeploymentUtil, FencepostsRoundSurgeUpAndUnavailableDown) {
  Json d = {{"spec",
             {{"replicas", 10},
              {"strategy",
               {{"type", "RollingUpdate"},
                {"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}}}}}}};
  EXPECT_EQ(workload::maxSurge(d), 3);        // 2.5 rounded up
  EXPECT_EQ(workload::maxUnavailable(d), 2);  // 2.5 rounded down
  d["spec"]["replicas"] = 1;
  EXPECT_EQ(workload::maxSurge(d), 1);
  EXPECT_EQ(workload::maxUnavailable(d), 0);
  d["spec"]["strategy"]["rollingUpdate"] = {{"maxSurge", 0}, {"maxUnavailable", 0}};
  EXPECT_EQ(workload::maxUnavailable(d), 1);  // both 0: one may be unavailable
  d["spec"]["strategy"] = {{"type", "Recreate"}};
  EXPECT_EQ(workload::maxSurge(d), 0);
}

TEST(PodTemplateHash, SafeEncodingOfTheDecimalFnvHash) {
  EXPECT_EQ(workload::fnv32a(""), 2166136261u);
  EXPECT_EQ(workload::fnv32a("a"), 0xe40c292cu);
  EXPECT_EQ(workload::safeEncodeString("0123456789"), "456789bcdf");
  Json t = {{"metadata", {{"labels", {{"app", "web"}}}}}};
  EXPECT_EQ(workload::computePodTemplateHash(t, std::nullopt),
            workload::computePodTemplateHash(t, std::nullopt));
  EXPECT_NE(workload::computePodTemplateHash(t, std::nullopt),
            workload::computePodTemplateHash(t, 1));
}

}  // namespace
}  // namespace fakekube::workloadtest
