// The Deployment story as a test: a Deployment on a two-node cluster, end to end on virtual time.
//
// `default/intro-deployment` with 2 replicas: the Deployment controller creates a ReplicaSet, the
// ReplicaSet controller its 2 Pods, the scheduler binds them (least-allocated scoring puts one on
// each node), the kubelet starts them: Pending (PodScheduled True, containers ContainerCreating),
// Running (containers started, ContainersReady and Ready still False while the readiness probe's
// initial delay runs), Ready. A managed pod that is deleted gets a replacement; a bare pod does
// not. Deleting the Deployment lets the garbage collector remove its ReplicaSet and, through the
// kubelet's graceful termination, its pods. The same seed gives the same run.
//
// Every transition is taken from watch streams drained after each executor task, so the virtual
// instant recorded for it is the instant the write happened.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cluster_fixture.h"
#include "fakekube/api/conditions.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/cluster.h"

namespace fakekube::clustertest {
namespace {

using std::chrono::seconds;

constexpr std::uint64_t kSeed = 7;

// The story's Deployment: app: intro, two replicas, a web container whose readiness probe starts
// checking 5 s after the container started. Its requests are large enough for least-allocated
// scoring to tell the nodes apart (with 100m / 128Mi on 8 cpu / 32 Gi nodes the integer scores
// of an empty node and a node with one replica tie, and ties go to the first name).
Json introDeployment() {
  Json labels = {{"app", "intro"}};
  Json web = {
      {"name", "web"},
      {"image", "nginx:1.27"},
      {"resources", {{"requests", {{"cpu", "250m"}, {"memory", "256Mi"}}}}},
      {"readinessProbe", {{"httpGet", {{"path", "/"}, {"port", 80}}}, {"initialDelaySeconds", 5}}}};
  return {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", {{"name", "intro-deployment"}, {"namespace", "default"}}},
      {"spec",
       {{"replicas", 2},
        {"selector", {{"matchLabels", labels}}},
        {"template",
         {{"metadata", {{"labels", labels}}}, {"spec", {{"containers", Json::array({web})}}}}}}}};
}

// A pod nobody owns, with labels no ReplicaSet selects.
Json barePod() {
  Json p = pod("bare-pod");
  p["metadata"]["labels"] = {{"app", "bare"}};
  return p;
}

// Virtual time since the start of the run: "+6s", or "+6.250s" off the whole second.
std::string offset(Duration d) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  if (ms % 1000 == 0) return "+" + std::to_string(ms / 1000) + "s";
  return "+" + std::to_string(ms / 1000) + "." + std::to_string(1000 + ms % 1000).substr(1) + "s";
}

// When each step of one pod's life was first seen, as offsets ("" = not seen).
struct PodHistory {
  std::string uid;
  std::string owner;  // the controller's name, "" for a bare pod
  std::string node;
  std::string ip;
  std::string added, bound, running, ready, terminating, deleted;
};

// One run of the story: a seeded executor and server, a Cluster of two nodes, and watches on
// Deployments, ReplicaSets and Pods whose events become a trace and per-pod histories.
class StoryRun {
 public:
  explicit StoryRun(std::uint64_t seed) : ex(SimExecutor::Options{seed}) {
    server = openSeededServer(ex, seed);
    ClusterOptions clusterOptions;
    clusterOptions.nodes = 2;
    cluster = std::make_unique<Cluster>(ex, *server, clusterOptions);
    WatchOptions fromNow;
    fromNow.resourceVersion = std::to_string(server->revision());
    for (const auto* gvr : {&kDeployments, &kReplicaSets, &kPods}) {
      watches.push_back(must(server->watch(*gvr, "default", fromNow), "watch"));
    }
    if (auto started = cluster->start(); !started) {
      throw std::runtime_error("the cluster did not start: " + started.error().str());
    }
    // The controllers run once the manager's caches synced (a millisecond in); the story's
    // +0s is then.
    if (!ex.runUntil([&] { return cluster->manager().running(); }, seconds(1))) {
      throw std::runtime_error("the cluster's controllers did not start");
    }
    start = ex.now();
    runFor(Duration::zero());
  }
  ~StoryRun() {
    cluster.reset();
    for (auto& w : watches) w->stop();
  }

  // Lets `d` of virtual time pass, observing after every task.
  void runFor(Duration d) {
    ex.runUntil(
        [&] {
          observe();
          return false;
        },
        d);
    ex.runUntilIdle();
    observe();
  }
  // Runs until `done` holds (observing after every task), at most `limit`.
  bool runUntil(const std::function<bool()>& done, Duration limit) {
    bool reached = ex.runUntil(
        [&] {
          observe();
          return done();
        },
        limit);
    observe();
    return reached;
  }

  std::string sinceStart() { return offset(ex.now() - start); }

  // The pods of the namespace now, read from the server.
  std::vector<Json> pods() {
    Json listed = must(server->list(kPods, "default"), "list pods");
    return {listed["items"].begin(), listed["items"].end()};
  }
  std::vector<Json> replicaSets() {
    Json listed = must(server->list(kReplicaSets, "default"), "list replicasets");
    return {listed["items"].begin(), listed["items"].end()};
  }
  Json get(const GroupVersionResource& gvr, const std::string& ns, const std::string& name) {
    return must(server->get(gvr, ns, name), "get " + name);
  }
  bool exists(const GroupVersionResource& gvr, const std::string& ns, const std::string& name) {
    return server->get(gvr, ns, name).has_value();
  }

  SimExecutor ex;
  std::unique_ptr<ApiServer> server;
  std::unique_ptr<Cluster> cluster;
  TimePoint start;
  std::vector<std::shared_ptr<Watch>> watches;
  // Every event: "<offset> <TYPE> <Kind> <name> rv=<rv> ..." with the state that matters.
  std::vector<std::string> trace;
  std::map<std::string, PodHistory> history;  // by pod name
  std::vector<std::string> podsAdded;         // in the order they were created

 private:
  // Takes the events of every watch, in the order of the writes they show.
  void observe() {
    std::vector<WatchEvent> events;
    for (auto& w : watches) {
      while (auto event = w->tryNext()) events.push_back(std::move(*event));
    }
    std::stable_sort(events.begin(), events.end(), [](const WatchEvent& a, const WatchEvent& b) {
      return std::stoll(meta::resourceVersion(*a.object)) <
             std::stoll(meta::resourceVersion(*b.object));
    });
    for (const auto& event : events) record(event.type, *event.object);
  }

  void record(WatchEventType type, const Json& object) {
    const std::string kind = meta::kind(object);
    const std::string name = meta::name(object);
    std::string line = fmt::format("{} {} {} {} rv={}", sinceStart(), watchEventTypeName(type),
                                   kind, name, meta::resourceVersion(object));
    if (kind == "Pod") {
      line +=
          fmt::format(" uid={} node={} phase={} ip={} scheduled={} containersReady={} ready={}",
                      meta::uid(object), podNodeName(object), podPhase(object),
                      object["status"].value("podIP", ""), conditionStatus(object, "PodScheduled"),
                      conditionStatus(object, "ContainersReady"), conditionStatus(object, "Ready"));
      recordPod(type, object);
    } else {
      const Json& status = object.value("status", Json::object());
      line += fmt::format(" replicas={} ready={} available={}", status.value("replicas", 0),
                          status.value("readyReplicas", 0), status.value("availableReplicas", 0));
    }
    if (meta::isDeleting(object)) line += " deleting";
    trace.push_back(std::move(line));
  }

  void recordPod(WatchEventType type, const Json& pod) {
    const std::string name = meta::name(pod);
    auto& h = history[name];
    auto first = [&](std::string& field, bool happened) {
      if (happened && field.empty()) field = sinceStart();
    };
    if (type == WatchEventType::Added && h.added.empty()) {
      podsAdded.push_back(name);
      h.uid = meta::uid(pod);
      auto ref = meta::controllerOf(pod);
      h.owner = ref ? ref->name : "";
    }
    first(h.added, type == WatchEventType::Added);
    first(h.bound, !podNodeName(pod).empty());
    first(h.running, podPhase(pod) == "Running");
    first(h.ready, isPodReady(pod));
    first(h.terminating, meta::isDeleting(pod));
    first(h.deleted, type == WatchEventType::Deleted);
    if (!podNodeName(pod).empty()) h.node = podNodeName(pod);
    if (pod["status"].contains("podIP")) h.ip = pod["status"]["podIP"];
  }
};

// The condition of `type` of an object (null when absent).
Json condition(const Json& object, const std::string& type) {
  const Json* c = findCondition(object, type);
  return c ? *c : Json();
}

class DeploymentStoryTest : public ::testing::Test {
 protected:
  // A failing story shows what the watches saw.
  void TearDown() override {
    if (!HasFailure()) return;
    for (const auto& line : run.trace) std::printf("  %s\n", line.c_str());
  }

  // Step 1: create the Deployment at +0s and let 10 s pass.
  void bringUp() {
    must(run.server->create(kDeployments, "default", introDeployment()), "create Deployment");
    run.runFor(seconds(10));
  }
  // The Deployment's two pods, by name (after bringUp).
  std::vector<std::string> firstPods() {
    return {run.podsAdded.begin(), run.podsAdded.begin() + 2};
  }
  std::string podOn(const std::string& node) {
    for (const auto& [name, h] : run.history) {
      if (h.node == node && h.deleted.empty()) return name;
    }
    return "";
  }

  StoryRun run{kSeed};
};

TEST_F(DeploymentStoryTest, TheDeploymentComesUpOnTwoNodes) {
  // The cluster: two Ready nodes, each with its own pod range.
  for (const char* name : {"node-1", "node-2"}) {
    Json node = must(run.server->get(kNodes, "", name), "get node");
    EXPECT_EQ(conditionStatus(node, "Ready"), "True") << name;
  }

  must(run.server->create(kDeployments, "default", introDeployment()), "create Deployment");
  run.runFor(Duration::zero());

  // +0s: one ReplicaSet named by the template hash, owned by the Deployment.
  auto replicaSets = run.replicaSets();
  ASSERT_EQ(replicaSets.size(), 1u);
  const Json& rs = replicaSets[0];
  const std::string hash = meta::label(rs, "pod-template-hash");
  ASSERT_FALSE(hash.empty());
  EXPECT_EQ(meta::name(rs), "intro-deployment-" + hash);
  Json deployment = run.get(kDeployments, "default", "intro-deployment");
  ASSERT_TRUE(meta::controllerOf(rs).has_value());
  EXPECT_EQ(meta::controllerOf(rs)->uid, meta::uid(deployment));
  EXPECT_EQ(rs["spec"]["replicas"], 2);
  EXPECT_EQ(rs["spec"]["selector"]["matchLabels"],
            Json({{"app", "intro"}, {"pod-template-hash", hash}}));

  // +0s: two pods from its template, bound one per node, Pending: the kubelet has seen them and
  // is creating their containers.
  auto pods = run.pods();
  ASSERT_EQ(pods.size(), 2u);
  std::set<std::string> nodes;
  for (const Json& p : pods) {
    SCOPED_TRACE(meta::name(p));
    EXPECT_TRUE(meta::name(p).starts_with(meta::name(rs) + "-"));
    EXPECT_EQ(meta::controllerOf(p)->uid, meta::uid(rs));
    EXPECT_EQ(meta::label(p, "pod-template-hash"), hash);
    nodes.insert(podNodeName(p));
    EXPECT_EQ(podPhase(p), "Pending");
    EXPECT_EQ(p["status"]["startTime"], formatRfc3339(run.start));
    EXPECT_FALSE(p["status"].contains("podIP"));
    EXPECT_EQ(condition(p, "PodScheduled")["status"], "True");
    EXPECT_EQ(condition(p, "PodReadyToStartContainers")["status"], "False");
    EXPECT_EQ(condition(p, "ContainersReady")["status"], "False");
    EXPECT_EQ(condition(p, "Ready")["status"], "False");
    EXPECT_EQ(p["status"]["containerStatuses"][0]["state"],
              Json({{"waiting", {{"reason", "ContainerCreating"}}}}));
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"node-1", "node-2"}));

  // +1s: the sandboxes are up and the containers started: Running, but not Ready yet.
  run.runFor(seconds(1));
  for (Json& p : run.pods()) {
    SCOPED_TRACE(meta::name(p));
    EXPECT_EQ(podPhase(p), "Running");
    EXPECT_EQ(p["status"]["podIP"], podNodeName(p) == "node-1" ? "10.244.0.2" : "10.244.1.2");
    EXPECT_EQ(p["status"]["containerStatuses"][0]["state"]["running"]["startedAt"],
              formatRfc3339(run.start + seconds(1)));
    EXPECT_EQ(p["status"]["containerStatuses"][0]["ready"], false);
    EXPECT_EQ(condition(p, "ContainersReady")["status"], "False");
    EXPECT_EQ(condition(p, "Ready")["status"], "False");
    EXPECT_EQ(condition(p, "Ready")["reason"], "ContainersNotReady");
    EXPECT_EQ(condition(p, "Ready")["message"], "containers with unready status: [web]");
  }
  EXPECT_EQ(
      run.get(kDeployments, "default", "intro-deployment")["status"].value("readyReplicas", 0), 0);

  // +6s: the probe's 5 s initial delay has passed: ContainersReady and Ready.
  run.runFor(seconds(5));
  for (Json& p : run.pods()) {
    SCOPED_TRACE(meta::name(p));
    EXPECT_EQ(podPhase(p), "Running");
    EXPECT_EQ(condition(p, "ContainersReady")["status"], "True");
    EXPECT_EQ(condition(p, "Ready")["status"], "True");
    EXPECT_EQ(condition(p, "Ready")["lastTransitionTime"], formatRfc3339(run.start + seconds(6)));
    EXPECT_EQ(p["status"]["containerStatuses"][0]["ready"], true);
  }
  deployment = run.get(kDeployments, "default", "intro-deployment");
  EXPECT_EQ(deployment["status"]["replicas"], 2);
  EXPECT_EQ(deployment["status"]["updatedReplicas"], 2);
  EXPECT_EQ(deployment["status"]["readyReplicas"], 2);
  EXPECT_EQ(deployment["status"]["availableReplicas"], 2);
  EXPECT_EQ(condition(deployment, "Available")["status"], "True");
  EXPECT_EQ(condition(deployment, "Available")["reason"], "MinimumReplicasAvailable");
  EXPECT_EQ(condition(deployment, "Available")["lastTransitionTime"],
            formatRfc3339(run.start + seconds(6)));
  EXPECT_EQ(condition(deployment, "Progressing")["reason"], "NewReplicaSetAvailable");
  Json rsNow = run.get(kReplicaSets, "default", meta::name(rs));
  EXPECT_EQ(rsNow["status"]["readyReplicas"], 2);
  EXPECT_EQ(rsNow["status"]["availableReplicas"], 2);

  // The watches saw each step at the instant it happened.
  ASSERT_EQ(run.podsAdded.size(), 2u);
  std::set<std::string> ips;
  for (const auto& name : run.podsAdded) {
    SCOPED_TRACE(name);
    const PodHistory& h = run.history[name];
    EXPECT_EQ(h.owner, meta::name(rs));
    EXPECT_EQ(h.added, "+0s");
    EXPECT_EQ(h.bound, "+0s");
    EXPECT_EQ(h.running, "+1s");
    EXPECT_EQ(h.ready, "+6s");
    EXPECT_EQ(h.terminating, "");
    ips.insert(h.ip);
  }
  EXPECT_EQ(ips, (std::set<std::string>{"10.244.0.2", "10.244.1.2"}));
  // Nothing else happens once both are Ready.
  const std::size_t settled = run.trace.size();
  run.runFor(std::chrono::minutes(10));
  EXPECT_EQ(run.trace.size(), settled) << run.trace.back();
}

TEST_F(DeploymentStoryTest, ADeletedPodIsReplacedAndABarePodIsNot) {
  bringUp();  // now +10s, both pods Ready
  const std::string victim = podOn("node-1");
  const std::string survivor = podOn("node-2");
  ASSERT_FALSE(victim.empty());
  ASSERT_FALSE(survivor.empty());

  // +10s: delete the pod on node-1. It is bound, so the deletion is graceful: the kubelet stops
  // it and removes it 1 s later (its terminationDelay).
  auto deleted = must(run.server->deleteObject(kPods, "default", victim), "delete pod");
  ASSERT_TRUE(deleted.object);
  EXPECT_EQ(meta::deletionGracePeriodSeconds(*deleted.object), 30);
  run.runFor(Duration::zero());

  // +10s: the ReplicaSet controller does not count a terminating pod and creates a replacement
  // at once. The terminating pod still holds its requests on node-1, so both nodes are equally
  // allocated and the replacement goes to node-1 (ties go to the first name).
  ASSERT_EQ(run.podsAdded.size(), 3u);
  const std::string replacement = run.podsAdded[2];
  const PodHistory& r = run.history[replacement];
  EXPECT_EQ(r.owner, run.history[victim].owner);
  EXPECT_EQ(r.added, "+10s");
  EXPECT_EQ(r.bound, "+10s");
  EXPECT_EQ(r.node, "node-1");
  EXPECT_EQ(run.history[victim].terminating, "+10s");
  EXPECT_EQ(run.history[victim].deleted, "");
  Json terminating = run.get(kPods, "default", victim);
  EXPECT_EQ(podPhase(terminating), "Running");
  EXPECT_EQ(meta::deletionTimestamp(terminating), formatRfc3339(run.start + seconds(40)));

  run.runFor(seconds(10));  // +20s
  EXPECT_EQ(run.history[victim].deleted, "+11s");
  EXPECT_FALSE(run.exists(kPods, "default", victim));
  EXPECT_EQ(r.running, "+11s");
  EXPECT_EQ(r.ready, "+16s");
  // node-1's addresses are handed out in turn, as host-local IPAM does: .2 was the old pod's.
  EXPECT_EQ(r.ip, "10.244.0.3");
  EXPECT_EQ(run.history[survivor].terminating, "");
  Json deployment = run.get(kDeployments, "default", "intro-deployment");
  EXPECT_EQ(deployment["status"]["readyReplicas"], 2);
  EXPECT_EQ(deployment["status"]["availableReplicas"], 2);
  EXPECT_EQ(run.pods().size(), 2u);

  // +20s: a bare pod, owned by nobody, is scheduled and runs like any other.
  must(run.server->create(kPods, "default", barePod()), "create bare pod");
  run.runFor(seconds(10));  // +30s
  const PodHistory& bare = run.history["bare-pod"];
  EXPECT_EQ(bare.owner, "");
  EXPECT_EQ(bare.bound, "+20s");
  EXPECT_EQ(bare.running, "+21s");
  EXPECT_EQ(bare.ready, "+21s");  // no readiness probe: ready when started

  // +30s: deleted, it terminates and is gone; nothing creates it again.
  must(run.server->deleteObject(kPods, "default", "bare-pod"), "delete bare pod");
  const std::size_t podsBefore = run.podsAdded.size();
  run.runFor(std::chrono::minutes(5));
  EXPECT_EQ(bare.terminating, "+30s");
  EXPECT_EQ(bare.deleted, "+31s");
  EXPECT_EQ(run.podsAdded.size(), podsBefore);
  std::set<std::string> left;
  for (const Json& p : run.pods()) left.insert(meta::name(p));
  EXPECT_EQ(left, (std::set<std::string>{survivor, replacement}));
}

TEST_F(DeploymentStoryTest, DeletingTheDeploymentLetsTheGarbageCollectorRemoveEverything) {
  bringUp();  // now +10s
  const std::string rsName = run.history[run.podsAdded[0]].owner;
  ASSERT_TRUE(run.exists(kReplicaSets, "default", rsName));

  // +10s: delete the Deployment (Background propagation, the default for apps/v1).
  must(run.server->deleteObject(kDeployments, "default", "intro-deployment"), "delete");
  EXPECT_FALSE(run.exists(kDeployments, "default", "intro-deployment"));
  run.runFor(Duration::zero());

  // +10s: the collector deleted the ReplicaSet whose owner is gone, then its pods, which are
  // bound and so terminate gracefully.
  EXPECT_FALSE(run.exists(kReplicaSets, "default", rsName));
  for (const auto& name : firstPods()) {
    SCOPED_TRACE(name);
    Json p = run.get(kPods, "default", name);
    EXPECT_TRUE(meta::isDeleting(p));
    EXPECT_EQ(run.history[name].terminating, "+10s");
  }

  // +11s: the kubelet stopped them and deleted them after its 1 s termination delay.
  run.runFor(seconds(1));
  for (const auto& name : firstPods()) {
    SCOPED_TRACE(name);
    EXPECT_EQ(run.history[name].deleted, "+11s");
  }
  EXPECT_TRUE(run.pods().empty());
  EXPECT_TRUE(run.replicaSets().empty());

  // Nothing comes back (EverySeedTellsTheSameStory checks every order of the two deletions).
  run.runFor(std::chrono::minutes(5));
  EXPECT_EQ(run.podsAdded.size(), 2u);
  EXPECT_TRUE(run.pods().empty());
  EXPECT_TRUE(run.replicaSets().empty());
  EXPECT_TRUE(run.cluster->idle());
}

// The whole story, start to end; answers the run's trace.
std::vector<std::string> wholeStory(StoryRun& run) {
  must(run.server->create(kDeployments, "default", introDeployment()), "create Deployment");
  run.runFor(seconds(10));
  must(run.server->deleteObject(kPods, "default", run.podsAdded[0]), "delete pod");
  run.runFor(seconds(10));
  must(run.server->create(kPods, "default", barePod()), "create bare pod");
  run.runFor(seconds(10));
  must(run.server->deleteObject(kPods, "default", "bare-pod"), "delete bare pod");
  run.runFor(seconds(10));
  must(run.server->deleteObject(kDeployments, "default", "intro-deployment"), "delete");
  run.runFor(seconds(10));
  return run.trace;
}

TEST(DeploymentStoryReplayTest, TheSameSeedGivesTheSameRun) {
  StoryRun first(kSeed);
  StoryRun second(kSeed);
  auto a = wholeStory(first);
  auto b = wholeStory(second);
  EXPECT_GT(a.size(), 40u);
  EXPECT_EQ(a, b);
  EXPECT_EQ(first.ex.tasksRun(), second.ex.tasksRun());
  EXPECT_EQ(first.server->revision(), second.server->revision());
}

TEST(DeploymentStoryReplayTest, EverySeedTellsTheSameStory) {
  // Each seed orders same-instant work differently and draws other names; the story's steps
  // happen at the same virtual instants whatever the order.
  //
  // Whatever the order in which the deletions of the Deployment and of its ReplicaSet reach the
  // Deployment controller, nothing is re-created: the controller reads its Deployment from the
  // server before creating a ReplicaSet, so a Deployment its cache still shows but the server has
  // deleted gets none.
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    StoryRun run(seed);
    wholeStory(run);
    ASSERT_EQ(run.podsAdded.size(), 4u);
    std::vector<std::string> steps;
    for (std::size_t i = 0; i < 4; ++i) {
      const PodHistory& h = run.history[run.podsAdded[i]];
      steps.push_back(fmt::format("{} {} {} {} {} {} {}", h.added, h.bound, h.node, h.running,
                                  h.ready, h.terminating, h.deleted));
    }
    // The first two pods spread over the nodes in either order; the deleted one is replaced on
    // node-1 (its terminating pod still counts there, a tie that goes to the first name).
    const std::string firstNode = run.history[run.podsAdded[0]].node;
    const std::string otherNode = firstNode == "node-1" ? "node-2" : "node-1";
    EXPECT_EQ(steps, (std::vector<std::string>{
                         "+0s +0s " + firstNode + " +1s +6s +10s +11s",
                         "+0s +0s " + otherNode + " +1s +6s +40s +41s",
                         "+10s +10s node-1 +11s +16s +40s +41s",
                         "+20s +20s node-1 +21s +21s +30s +31s",
                     }));
    EXPECT_TRUE(run.pods().empty());
    EXPECT_TRUE(run.replicaSets().empty());
  }
}

}  // namespace
}  // namespace fakekube::clustertest
