// The kubelet simulation: a bound pod's phases, container states, conditions and timestamps on
// virtual time; restarts and back-off; init containers; graceful deletion.
#include "fakekube/cluster/kubelet.h"

#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "pod_lifecycle_fixture.h"

namespace fakekube::clustertest {
namespace {

class KubeletTest : public PodLifecycleTest {
 protected:
  void SetUp() override {
    PodLifecycleTest::SetUp();
    kubeletOptions.containerCreatingDelay = seconds(1);
    kubeletOptions.readinessDelay = seconds(5);
    kubeletOptions.terminationDelay = seconds(2);
    behaviors.onImage("job:ok", behavior::exitAfter(seconds(3), 0));
    behaviors.onImage("job:fail", behavior::exitAfter(seconds(3), 1));
    behaviors.onImage("crash:1", behavior::crashLoop(seconds(2)));
    behaviors.onImage("stuck:1", behavior::neverReady());
    behaviors.onImage("init:slow", behavior::exitAfter(seconds(2), 0));
    behaviors.onImage("init:fail", behavior::exitAfter(seconds(2), 1));
    addNode("node-a");
    startCluster();
  }
};

TEST_F(KubeletTest, PodBecomesRunningThenReadyExactlyAfterItsReadinessDelay) {
  runPod("web", "nginx:1.27");
  Json p = getPod("web");
  EXPECT_EQ(p["spec"]["nodeName"], "node-a");
  EXPECT_EQ(p["status"]["phase"], "Pending");
  EXPECT_EQ(p["status"]["startTime"], at(seconds(0)));
  EXPECT_EQ(p["status"]["hostIP"], "172.18.0.2");
  EXPECT_FALSE(p["status"].contains("podIP"));
  Json main = containerStatus(p, "main");
  EXPECT_EQ(main["state"], Json({{"waiting", {{"reason", "ContainerCreating"}}}}));
  EXPECT_EQ(main["ready"], false);
  EXPECT_EQ(main["started"], false);
  EXPECT_EQ(main["restartCount"], 0);
  EXPECT_EQ(main["imageID"], "");
  EXPECT_EQ(condition(p, "PodReadyToStartContainers")["status"], "False");
  EXPECT_EQ(condition(p, "Initialized")["status"], "True");
  Json ready = condition(p, "Ready");
  EXPECT_EQ(ready["status"], "False");
  EXPECT_EQ(ready["reason"], "ContainersNotReady");
  EXPECT_EQ(ready["message"], "containers with unready status: [main]");
  // The kubelet's conditions first, in its order, then the scheduler's.
  std::vector<std::string> types;
  for (const auto& c : p["status"]["conditions"]) types.push_back(c["type"]);
  EXPECT_EQ(types, (std::vector<std::string>{"PodReadyToStartContainers", "Initialized", "Ready",
                                             "ContainersReady", "PodScheduled"}));

  run(seconds(1));
  p = getPod("web");
  EXPECT_EQ(p["status"]["phase"], "Running");
  EXPECT_EQ(p["status"]["podIP"], "10.244.0.2");
  EXPECT_EQ(p["status"]["podIPs"], Json::array({{{"ip", "10.244.0.2"}}}));
  EXPECT_EQ(condition(p, "PodReadyToStartContainers")["status"], "True");
  EXPECT_EQ(condition(p, "PodReadyToStartContainers")["lastTransitionTime"], at(seconds(1)));
  main = containerStatus(p, "main");
  EXPECT_EQ(main["state"]["running"]["startedAt"], at(seconds(1)));
  EXPECT_EQ(main["started"], true);
  EXPECT_EQ(main["ready"], false);
  EXPECT_TRUE(main["containerID"].get<std::string>().starts_with("containerd://"));
  EXPECT_TRUE(main["imageID"].get<std::string>().starts_with("docker.io/library/nginx@sha256:"));
  EXPECT_EQ(condition(p, "Ready")["status"], "False");

  run(seconds(5) - milliseconds(1));
  EXPECT_EQ(condition(getPod("web"), "Ready")["status"], "False");
  run(milliseconds(1));
  p = getPod("web");
  EXPECT_EQ(condition(p, "Ready")["status"], "True");
  EXPECT_EQ(condition(p, "Ready")["lastTransitionTime"], at(seconds(6)));
  EXPECT_EQ(condition(p, "ContainersReady")["status"], "True");
  EXPECT_EQ(containerStatus(p, "main")["ready"], true);
  EXPECT_EQ(kubelet->runningProcesses(), 1u);

  // Nothing changes any more, so nothing is written.
  const std::string rvReady = rv(p);
  run(minutes(10));
  EXPECT_EQ(rv(getPod("web")), rvReady);
}

TEST_F(KubeletTest, ReadinessProbeInitialDelayOverridesTheDefault) {
  Json p = podWith("probed", {container("main", "nginx:1.27")});
  p["spec"]["containers"][0]["readinessProbe"] = {{"httpGet", {{"path", "/"}, {"port", 80}}},
                                                  {"initialDelaySeconds", 20}};
  createPod(p);
  run(seconds(21) - milliseconds(1));
  EXPECT_EQ(condition(getPod("probed"), "Ready")["status"], "False");
  run(milliseconds(1));
  EXPECT_EQ(condition(getPod("probed"), "Ready")["status"], "True");
  EXPECT_EQ(condition(getPod("probed"), "Ready")["lastTransitionTime"], at(seconds(21)));
}

TEST_F(KubeletTest, ExitOneWithRestartPolicyNeverFailsThePod) {
  runPod("job", "job:fail", "Never");
  run(seconds(4));
  Json p = getPod("job");
  EXPECT_EQ(p["status"]["phase"], "Failed");
  Json main = containerStatus(p, "main");
  EXPECT_EQ(main["state"]["terminated"]["exitCode"], 1);
  EXPECT_EQ(main["state"]["terminated"]["reason"], "Error");
  EXPECT_EQ(main["state"]["terminated"]["startedAt"], at(seconds(1)));
  EXPECT_EQ(main["state"]["terminated"]["finishedAt"], at(seconds(4)));
  EXPECT_EQ(main["restartCount"], 0);
  EXPECT_EQ(main["ready"], false);
  EXPECT_EQ(condition(p, "Ready")["reason"], "ContainersNotReady");
  EXPECT_EQ(condition(p, "PodReadyToStartContainers")["status"], "False");
  EXPECT_EQ(kubelet->runningProcesses(), 0u);
}

// The write of the terminal status meets a 409 (the kubelet's cached pod was behind): the
// kubelet writes that status again on the fresher pod, though the run itself is over. Before,
// the retry found the run finished and wrote nothing, and the pod stayed Running for good.
TEST_F(KubeletTest, AConflictOnTheTerminalStatusWriteIsRetried) {
  struct ConflictOnce final : Interceptor {
    int conflicts = 0;
    std::optional<Status> before(const Request& r) override {
      if (r.verb != Verb::Update || r.resource.resource != "pods" || r.subresource != "status" ||
          r.body == nullptr || conflicts > 0) {
        return std::nullopt;
      }
      const Json& status = r.body->value("status", Json::object());
      if (status.value("phase", "") != "Failed") return std::nullopt;
      ++conflicts;
      return Status::conflictModified({"", "pods"}, r.name);
    }
  };
  auto conflictOnce = std::make_shared<ConflictOnce>();
  server->addInterceptor(conflictOnce);
  runPod("job", "job:fail", "Never");
  run(seconds(10));
  server->removeInterceptor(conflictOnce.get());
  EXPECT_EQ(conflictOnce->conflicts, 1);
  Json p = getPod("job");
  EXPECT_EQ(p["status"]["phase"], "Failed");
  EXPECT_EQ(containerStatus(p, "main")["state"]["terminated"]["exitCode"], 1);
  EXPECT_EQ(containerStatus(p, "main")["state"]["terminated"]["finishedAt"], at(seconds(4)));
}

TEST_F(KubeletTest, ExitZeroWithRestartPolicyNeverSucceeds) {
  runPod("job", "job:ok", "Never");
  run(seconds(4));
  Json p = getPod("job");
  EXPECT_EQ(p["status"]["phase"], "Succeeded");
  EXPECT_EQ(containerStatus(p, "main")["state"]["terminated"]["reason"], "Completed");
  EXPECT_EQ(containerStatus(p, "main")["state"]["terminated"]["exitCode"], 0);
  EXPECT_EQ(condition(p, "Ready")["status"], "False");
  EXPECT_EQ(condition(p, "Ready")["reason"], "PodCompleted");
  EXPECT_EQ(condition(p, "ContainersReady")["reason"], "PodCompleted");
}

TEST_F(KubeletTest, OnFailureRestartsAFailureAndKeepsASuccess) {
  runPod("ok", "job:ok", "OnFailure");
  runPod("bad", "job:fail", "OnFailure");
  run(seconds(4));
  EXPECT_EQ(getPod("ok")["status"]["phase"], "Succeeded");
  Json bad = getPod("bad");
  EXPECT_EQ(bad["status"]["phase"], "Running");
  EXPECT_EQ(containerStatus(bad, "main")["restartCount"], 1);
  EXPECT_EQ(containerStatus(bad, "main")["lastState"]["terminated"]["exitCode"], 1);
}

TEST_F(KubeletTest, AlwaysRestartsWithCrashLoopBackOffThatDoublesUpToFiveMinutes) {
  Json created = runPod("crash", "crash:1");
  const std::string uid = meta::uid(created);
  auto message = [&](const std::string& backOff) {
    return "back-off " + backOff + " restarting failed container=main pod=crash_default(" + uid +
           ")";
  };
  // Started at 1 s, exits at 3 s: the first restart is immediate.
  run(seconds(3));
  Json main = containerStatus(getPod("crash"), "main");
  EXPECT_EQ(main["restartCount"], 1);
  EXPECT_EQ(main["state"]["running"]["startedAt"], at(seconds(3)));
  EXPECT_EQ(main["lastState"]["terminated"]["finishedAt"], at(seconds(3)));
  EXPECT_EQ(main["lastState"]["terminated"]["reason"], "Error");
  // Exits again at 5 s: back-off 10 s.
  run(seconds(2));
  Json p = getPod("crash");
  EXPECT_EQ(p["status"]["phase"], "Running");
  main = containerStatus(p, "main");
  EXPECT_EQ(main["state"]["waiting"]["reason"], "CrashLoopBackOff");
  EXPECT_EQ(main["state"]["waiting"]["message"], message("10s"));
  EXPECT_EQ(main["restartCount"], 1);
  EXPECT_EQ(main["started"], false);

  // Each later restart waits twice as long, up to 5 minutes.
  TimePoint exitedAt = start + seconds(5);
  std::vector<std::string> backOffs = {"10s", "20s", "40s", "1m20s", "2m40s", "5m0s", "5m0s"};
  std::vector<int> waits = {10, 20, 40, 80, 160, 300, 300};
  for (std::size_t i = 0; i < waits.size(); ++i) {
    TimePoint restartAt = exitedAt + seconds(waits[i]);
    run(restartAt - milliseconds(1) - ex.now());
    main = containerStatus(getPod("crash"), "main");
    EXPECT_EQ(main["state"]["waiting"]["message"], message(backOffs[i])) << i;
    run(milliseconds(1));
    main = containerStatus(getPod("crash"), "main");
    EXPECT_EQ(main["state"]["running"]["startedAt"], formatRfc3339(restartAt)) << i;
    EXPECT_EQ(main["restartCount"], static_cast<int>(i) + 2);
    run(seconds(2));
    exitedAt = restartAt + seconds(2);
  }
  EXPECT_EQ(containerStatus(getPod("crash"), "main")["state"]["waiting"]["message"],
            message("5m0s"));
}

TEST_F(KubeletTest, NeverReadyContainerRunsButIsNeverReady) {
  runPod("stuck", "stuck:1");
  run(minutes(30));
  Json p = getPod("stuck");
  EXPECT_EQ(p["status"]["phase"], "Running");
  EXPECT_EQ(containerStatus(p, "main")["started"], true);
  EXPECT_EQ(containerStatus(p, "main")["ready"], false);
  EXPECT_EQ(condition(p, "Ready")["status"], "False");
}

TEST_F(KubeletTest, InitContainersRunFirstInOrder) {
  createPod(podWith("app", {container("main", "nginx:1.27")},
                    {container("first", "init:slow"), container("second", "init:slow")}));
  runUntilIdle();
  Json p = getPod("app");
  EXPECT_EQ(containerStatus(p, "main")["state"]["waiting"]["reason"], "PodInitializing");
  EXPECT_EQ(containerStatus(p, "first", "initContainerStatuses")["state"]["waiting"]["reason"],
            "PodInitializing");
  EXPECT_EQ(condition(p, "Initialized")["message"],
            "containers with incomplete status: [first second]");
  run(seconds(1));
  p = getPod("app");
  EXPECT_EQ(p["status"]["phase"], "Pending");
  EXPECT_EQ(containerStatus(p, "first", "initContainerStatuses")["state"]["running"]["startedAt"],
            at(seconds(1)));
  EXPECT_TRUE(containerStatus(p, "second", "initContainerStatuses")["state"].contains("waiting"));
  run(seconds(2));
  p = getPod("app");
  Json first = containerStatus(p, "first", "initContainerStatuses");
  EXPECT_EQ(first["state"]["terminated"]["reason"], "Completed");
  EXPECT_EQ(first["ready"], true);
  EXPECT_EQ(containerStatus(p, "second", "initContainerStatuses")["state"]["running"]["startedAt"],
            at(seconds(3)));
  EXPECT_EQ(condition(p, "Initialized")["message"], "containers with incomplete status: [second]");
  run(seconds(2));
  p = getPod("app");
  EXPECT_EQ(condition(p, "Initialized")["status"], "True");
  EXPECT_EQ(condition(p, "Initialized")["lastTransitionTime"], at(seconds(5)));
  EXPECT_EQ(p["status"]["phase"], "Running");
  EXPECT_EQ(containerStatus(p, "main")["state"]["running"]["startedAt"], at(seconds(5)));
}

TEST_F(KubeletTest, FailingInitContainerFollowsRestartPolicy) {
  Json never =
      podWith("never", {container("main", "nginx:1.27")}, {container("setup", "init:fail")});
  never["spec"]["restartPolicy"] = "Never";
  createPod(never);
  createPod(
      podWith("always", {container("main", "nginx:1.27")}, {container("setup", "init:fail")}));
  run(seconds(3));
  Json p = getPod("never");
  EXPECT_EQ(p["status"]["phase"], "Failed");
  EXPECT_EQ(containerStatus(p, "setup", "initContainerStatuses")["state"]["terminated"]["exitCode"],
            1);
  EXPECT_EQ(containerStatus(p, "main")["state"]["waiting"]["reason"], "PodInitializing");
  p = getPod("always");
  EXPECT_EQ(p["status"]["phase"], "Pending");
  EXPECT_EQ(containerStatus(p, "setup", "initContainerStatuses")["restartCount"], 1);
  run(seconds(2));
  Json setup = containerStatus(getPod("always"), "setup", "initContainerStatuses");
  EXPECT_EQ(setup["state"]["waiting"]["reason"], "CrashLoopBackOff");
}

TEST_F(KubeletTest, GracefulDeletionRemovesThePodAfterTheTerminationDelay) {
  runPod("web", "nginx:1.27");
  run(seconds(10));
  EXPECT_EQ(kubelet->runningProcesses(), 1u);
  const TimePoint deletedAt = ex.now();
  remove(kPods, "default", "web");
  runUntilIdle();
  Json p = getPod("web");
  EXPECT_TRUE(meta::isDeleting(p));
  EXPECT_EQ(kubelet->runningProcesses(), 0u);  // stopped at once
  run(seconds(2) - milliseconds(1));
  EXPECT_TRUE(podExists("web"));
  run(milliseconds(1));
  EXPECT_FALSE(podExists("web"));
  EXPECT_EQ(ex.now(), deletedAt + seconds(2));
  EXPECT_EQ(kubelet->trackedPods(), 0u);
}

TEST_F(KubeletTest, TerminationDelayIsCappedByTheGracePeriod) {
  Json p = podWith("quick", {container("main", "nginx:1.27")});
  p["spec"]["terminationGracePeriodSeconds"] = 1;
  createPod(p);
  run(seconds(10));
  remove(kPods, "default", "quick");
  run(seconds(1));
  EXPECT_FALSE(podExists("quick"));
}

TEST_F(KubeletTest, APodRecreatedUnderTheSameNameIsANewPod) {
  runPod("web", "crash:1");
  run(seconds(6));
  EXPECT_EQ(containerStatus(getPod("web"), "main")["restartCount"], 1);
  DeleteOptions now;
  now.gracePeriodSeconds = 0;
  remove(kPods, "default", "web", now);
  createPod(podWith("web", {container("main", "nginx:1.27")}));
  runUntilIdle();
  Json p = getPod("web");
  EXPECT_EQ(containerStatus(p, "main")["state"]["waiting"]["reason"], "ContainerCreating");
  EXPECT_EQ(containerStatus(p, "main")["restartCount"], 0);
  run(seconds(1));
  p = getPod("web");
  EXPECT_EQ(p["status"]["phase"], "Running");
  EXPECT_EQ(p["status"]["podIP"], "10.244.0.3");  // host-local IPAM moves on
  EXPECT_EQ(kubelet->trackedPods(), 1u);
}

// One run of a small cluster under a seeded interleaving; answers every pod as stored.
std::string seededRun(std::uint64_t seed) {
  SimExecutor ex(SimExecutor::Options{seed});
  ApiServerOptions serverOptions;
  serverOptions.seed = seed;
  auto server = std::move(*ApiServer::open(ex.clock(), serverOptions));
  InProcessClient client(*server);
  BehaviorRegistry behaviors;
  behaviors.onImage("crash:1", behavior::crashLoop(seconds(2)));
  behaviors.onImage("job:ok", behavior::exitAfter(seconds(3), 0));
  std::string pods;
  {
    Manager manager(ex, *server);
    Network network(manager.client());
    for (const char* name : {"node-a", "node-b"}) {
      NodeConfig config;
      config.name = name;
      config.cpu = "2";
      (void)addNode(client, ex.clock(), config);
    }
    auto scheduler = addScheduler(manager);
    auto kubelet = addKubelet(manager, {.behaviors = &behaviors, .network = &network});
    manager.start();
    for (int i = 0; i < 6; ++i) {
      Json p = podWith("p" + std::to_string(i), {container("main",
                                                           i % 3 == 0   ? "crash:1"
                                                           : i % 3 == 1 ? "job:ok"
                                                                        : "web",
                                                           "700m")});
      p["spec"]["restartPolicy"] = i % 3 == 1 ? "Never" : "Always";
      auto created = client.create(kPods, p);
      if (!created) ADD_FAILURE() << created.error().str();
    }
    ex.advance(minutes(2));
    Json all = must(client.list(kPods, "default"), "list");
    for (const auto& p : all["items"]) pods += p.dump() + "\n";
  }
  return pods;
}

TEST(KubeletSeededTest, TheSameSeedGivesTheSameRun) {
  std::string first = seededRun(7);
  EXPECT_EQ(first, seededRun(7));
  EXPECT_NE(first.find("CrashLoopBackOff"), std::string::npos);
  EXPECT_NE(first.find("Succeeded"), std::string::npos);
}

}  // namespace
}  // namespace fakekube::clustertest
