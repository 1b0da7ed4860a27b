// Container logs and the pods/log subresource on virtual time: what simulated containers print,
// per container and restart; every PodLogOptions field; the API server's and the kubelet's
// errors; following a log until its container ends; the bounds that keep long runs small.
#include "fakekube/apiserver/pod_logs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakekube/cluster/container_logs.h"
#include "pod_lifecycle_fixture.h"

namespace fakekube::clustertest {
namespace {

using ::testing::ElementsAre;

// "400 BadRequest: message", or "ok" for a success.
template <class T>
std::string errorOf(const Result<T>& result) {
  return result ? std::string("ok") : result.error().str();
}

class PodLogsTest : public PodLifecycleTest {
 protected:
  void SetUp() override {
    PodLifecycleTest::SetUp();
    kubeletOptions.containerCreatingDelay = seconds(1);
    kubeletOptions.containerLogs = &logs;
    // Prints "tick N" every second, N = 0..2, then exits 0.
    behaviors.onImage("ticker", behavior::fromFunction([](std::shared_ptr<ProcessContext> c) {
                        // The pending timer owns the function; the function only names
                        // itself weakly, or the two would keep each other alive for ever.
                        auto tick = std::make_shared<std::function<void(int)>>();
                        std::weak_ptr<std::function<void(int)>> self = tick;
                        std::weak_ptr<ProcessContext> weak = c;
                        *tick = [weak, self](int n) {
                          auto context = weak.lock();
                          auto next = self.lock();
                          if (!context || !next) return;
                          context->print("tick " + std::to_string(n));
                          if (n == 2) {
                            context->exit(0);
                            return;
                          }
                          context->after(seconds(1), [next, n] { (*next)(n + 1); });
                        };
                        (*tick)(0);
                      }));
    // Says which run it is, then exits 1 after 2 s: a crash loop under restartPolicy Always.
    behaviors.onImage("crasher", behavior::fromFunction([](std::shared_ptr<ProcessContext> c) {
                        c->print("run " + std::to_string(c->restartCount()));
                        std::weak_ptr<ProcessContext> weak = c;
                        c->after(seconds(2), [weak] {
                          if (auto context = weak.lock()) context->exit(1);
                        });
                      }));
    addNode("node-a");
    startCluster();
    podLogs = std::make_unique<PodLogs>(*server, &logs);
  }

  Result<std::string> read(const std::string& name, PodLogOptions options = {}) {
    return podLogs->read("default", name, std::move(options));
  }

  ContainerLogs logs;
  std::unique_ptr<PodLogs> podLogs;
};

TEST_F(PodLogsTest, APlainContainerLogsWhatWasSimulated) {
  runPod("web", "nginx:1.27");
  run(seconds(2));
  EXPECT_EQ(*read("web"),
            "fakekube: simulated container \"main\" (image nginx:1.27): runs until stopped\n");

  Json p = podWith("job", {container("main", "busybox")});
  p["spec"]["containers"][0]["command"] = Json::array({"sh", "-c", "echo hi"});
  behaviors.onImage("busybox", behavior::exitAfter(seconds(3), 0));
  createPod(p);
  run(seconds(2));
  EXPECT_EQ(*read("job"),
            "fakekube: simulated container \"main\" (image busybox, command sh -c echo hi): "
            "exits with code 0 after 3s\n");
}

TEST_F(PodLogsTest, TheApiServersChecksComeFirst) {
  EXPECT_EQ(errorOf(read("nope")), "404 NotFound: pods \"nope\" not found");
  createPod(podWith("two", {container("a", "nginx"), container("b", "nginx")},
                    {container("setup", "busybox")}));
  runUntilIdle();
  EXPECT_EQ(errorOf(read("two")),
            "400 BadRequest: a container name must be specified for pod two, choose one of: "
            "[setup a b]");
  EXPECT_EQ(errorOf(read("two", {.container = "c"})),
            "400 BadRequest: container c is not valid for pod two");
  EXPECT_EQ(errorOf(read("two", {.tailLines = -1})),
            "422 Invalid: PodLogOptions \"two\" is invalid: tailLines: Invalid value: -1: must be "
            "greater than or equal to 0");
  EXPECT_EQ(errorOf(read("two", {.limitBytes = 0})),
            "422 Invalid: PodLogOptions \"two\" is invalid: limitBytes: Invalid value: 0: must be "
            "greater than 0");
  EXPECT_EQ(errorOf(read("two", {.sinceSeconds = 0})),
            "422 Invalid: PodLogOptions \"two\" is invalid: sinceSeconds: Invalid value: 0: must "
            "be greater than 0");
  EXPECT_EQ(errorOf(read("two", {.sinceSeconds = 5, .sinceTime = ex.now()})),
            "422 Invalid: PodLogOptions \"two\" is invalid: : Forbidden: at most one of "
            "`sinceTime` or `sinceSeconds` may be specified");
}

TEST_F(PodLogsTest, AContainerThatHasNotStartedHasNoLogYet) {
  runPod("web", "nginx:1.27");
  // Seen by the kubelet, sandbox not up yet.
  EXPECT_EQ(errorOf(read("web")),
            "400 BadRequest: container \"main\" in pod \"web\" is waiting to start: "
            "ContainerCreating");
  // An init container runs first: the others wait in PodInitializing.
  createPod(podWith("init", {container("main", "nginx")}, {container("setup", "busybox")}));
  run(seconds(1) + milliseconds(500));
  EXPECT_EQ(errorOf(read("init", {.container = "main"})),
            "400 BadRequest: container \"main\" in pod \"init\" is waiting to start: "
            "PodInitializing");
  EXPECT_EQ(read("init", {.container = "setup"}).value_or("?"),
            "fakekube: simulated container \"setup\" (image busybox): exits with code 0 after "
            "1s\n");
  // A pod no scheduler takes has no node: an empty log, as the API server answers.
  Json unscheduled = podWith("pending", {container("main", "nginx")});
  unscheduled["spec"]["schedulerName"] = "nobody";
  createPod(unscheduled);
  runUntilIdle();
  EXPECT_EQ(read("pending").value_or("?"), "");
}

TEST_F(PodLogsTest, LinesCarryTheExecutorsTimeAndTheOptionsSelectThem) {
  runPod("tick", "ticker", "Never");
  run(seconds(5));
  const TimePoint started = start + seconds(1);  // after containerCreatingDelay
  EXPECT_EQ(*read("tick"), "tick 0\ntick 1\ntick 2\n");
  EXPECT_EQ(*read("tick", {.timestamps = true}),
            formatRfc3339NanoFixed(started) + " tick 0\n" +
                formatRfc3339NanoFixed(started + seconds(1)) + " tick 1\n" +
                formatRfc3339NanoFixed(started + seconds(2)) + " tick 2\n");
  EXPECT_EQ(formatRfc3339NanoFixed(started), "2024-01-01T00:00:01.000000000Z");
  EXPECT_EQ(*read("tick", {.tailLines = 2}), "tick 1\ntick 2\n");
  EXPECT_EQ(*read("tick", {.tailLines = 0}), "");
  EXPECT_EQ(*read("tick", {.tailLines = 10}), "tick 0\ntick 1\ntick 2\n");
  // Now is start + 5 s: the last 2 s hold tick 2 only (printed at start + 3 s).
  EXPECT_EQ(*read("tick", {.sinceSeconds = 2}), "tick 2\n");
  EXPECT_EQ(*read("tick", {.sinceSeconds = 3}), "tick 1\ntick 2\n");
  EXPECT_EQ(*read("tick", {.sinceTime = started + seconds(1)}), "tick 1\ntick 2\n");
  // tailLines first, then since.
  EXPECT_EQ(*read("tick", {.tailLines = 1, .sinceSeconds = 4}), "tick 2\n");
  // limitBytes cuts mid-line, timestamps included.
  EXPECT_EQ(*read("tick", {.limitBytes = 9}), "tick 0\nti");
  EXPECT_EQ(*read("tick", {.timestamps = true, .limitBytes = 10}), "2024-01-01");
}

TEST_F(PodLogsTest, EachRestartHasItsOwnLogAndPreviousReadsTheOneBefore) {
  runPod("crash", "crasher");
  run(seconds(2));
  EXPECT_EQ(*read("crash"), "run 0\n");
  EXPECT_EQ(errorOf(read("crash", {.previous = true})),
            "400 BadRequest: previous terminated container \"main\" in pod \"crash\" not found");
  // Exits at 3 s; the first restart is immediate.
  run(seconds(2));
  ASSERT_EQ(containerStatus(getPod("crash"), "main")["restartCount"], 1);
  EXPECT_EQ(*read("crash"), "run 1\n");
  EXPECT_EQ(*read("crash", {.previous = true}), "run 0\n");
  // In CrashLoopBackOff the log is the last terminated instance's, as the kubelet reads it.
  run(seconds(2) + milliseconds(500));
  ASSERT_EQ(containerStatus(getPod("crash"), "main")["state"]["waiting"]["reason"],
            "CrashLoopBackOff");
  EXPECT_EQ(*read("crash"), "run 1\n");
  EXPECT_EQ(*read("crash", {.previous = true}), "run 1\n");
  // After the back-off (10 s) run 2 starts; only it and run 1 are kept.
  run(seconds(10));
  ASSERT_EQ(containerStatus(getPod("crash"), "main")["restartCount"], 2);
  EXPECT_EQ(*read("crash"), "run 2\n");
  EXPECT_EQ(*read("crash", {.previous = true}), "run 1\n");
  EXPECT_EQ(logs.size(), 2u);
}

TEST_F(PodLogsTest, FollowingALogEndsWhenTheContainerEnds) {
  runPod("tick", "ticker", "Never");
  run(seconds(1));
  auto reader = podLogs->open("default", "tick", {.follow = true});
  ASSERT_TRUE(reader.has_value()) << reader.error().str();
  std::string out;
  EXPECT_EQ((*reader)->read(out, milliseconds(0)), ContainerLogReader::Step::Data);
  EXPECT_EQ(out, "tick 0\n");
  EXPECT_EQ((*reader)->read(out, milliseconds(0)), ContainerLogReader::Step::Idle);
  run(seconds(1));
  EXPECT_EQ((*reader)->read(out, milliseconds(0)), ContainerLogReader::Step::Data);
  EXPECT_EQ(out, "tick 0\ntick 1\n");
  // The last line, and the container exits: the reader ends with it.
  run(seconds(1));
  EXPECT_EQ((*reader)->read(out, milliseconds(0)), ContainerLogReader::Step::Ended);
  EXPECT_EQ(out, "tick 0\ntick 1\ntick 2\n");
  EXPECT_EQ(getPod("tick")["status"]["phase"], "Succeeded");

  // Following an ended container reads its log and ends at once.
  auto again = podLogs->open("default", "tick", {.follow = true, .tailLines = 1});
  ASSERT_TRUE(again.has_value());
  std::string last;
  EXPECT_EQ((*again)->read(last, milliseconds(0)), ContainerLogReader::Step::Ended);
  EXPECT_EQ(last, "tick 2\n");
}

TEST_F(PodLogsTest, FollowingARunningContainerEndsWhenItsPodIsDeleted) {
  runPod("web", "nginx:1.27");
  run(seconds(2));
  auto reader = podLogs->open("default", "web", {.follow = true, .limitBytes = 1000});
  ASSERT_TRUE(reader.has_value());
  std::string out;
  EXPECT_EQ((*reader)->read(out, milliseconds(0)), ContainerLogReader::Step::Data);
  run(minutes(5));
  EXPECT_EQ((*reader)->read(out, milliseconds(0)), ContainerLogReader::Step::Idle);
  remove(kPods, "default", "web");
  run(seconds(5));
  EXPECT_FALSE(podExists("web"));
  EXPECT_EQ((*reader)->read(out, milliseconds(0)), ContainerLogReader::Step::Ended);
  EXPECT_EQ(logs.size(), 0u);  // the pod's logs went with it
}

TEST_F(PodLogsTest, LimitBytesEndsAFollowingReader) {
  runPod("tick", "ticker", "Never");
  run(seconds(1));
  auto reader = podLogs->open("default", "tick", {.follow = true, .limitBytes = 10});
  ASSERT_TRUE(reader.has_value());
  std::string out;
  EXPECT_EQ((*reader)->read(out, milliseconds(0)), ContainerLogReader::Step::Data);
  run(seconds(1));
  EXPECT_EQ((*reader)->read(out, milliseconds(0)), ContainerLogReader::Step::Ended);
  EXPECT_EQ(out, "tick 0\ntic");
}

TEST(ContainerLogsTest, EachLogKeepsItsNewestLinesWithinItsBounds) {
  ContainerLogs logs(ContainerLogs::Limits{.maxLines = 3, .maxBytes = 1000});
  logs.open("c1", "pod", "main");
  const TimePoint t = kSimulatedEpoch;
  logs.append("c1", t, "one\ntwo");
  logs.append("c1", t, "");
  logs.append("c1", t, "four\nfive");
  EXPECT_THAT(logs.lines("c1"), ElementsAre("", "four", "five"));

  ContainerLogs small(ContainerLogs::Limits{.maxLines = 100, .maxBytes = 12});
  small.open("c1", "pod", "main");
  small.append("c1", t, "aaaa");  // 5 bytes with its newline
  small.append("c1", t, "bbbb");
  small.append("c1", t, "cccc");  // 15 > 12: aaaa goes
  EXPECT_THAT(small.lines("c1"), ElementsAre("bbbb", "cccc"));

  // A reader that fell behind the dropped lines goes on from the oldest one kept.
  auto reader = small.reader("c1", {.follow = true});
  small.append("c1", t, "dddd");
  small.append("c1", t, "eeee");
  std::string out;
  EXPECT_EQ(reader->read(out, std::chrono::milliseconds(0)), ContainerLogReader::Step::Data);
  EXPECT_EQ(out, "dddd\neeee\n");
  small.close("c1");
  small.append("c1", t, "after close");
  EXPECT_EQ(reader->read(out, std::chrono::milliseconds(0)), ContainerLogReader::Step::Ended);
  EXPECT_THAT(small.lines("c1"), ElementsAre("dddd", "eeee"));
}

TEST(ContainerLogsTest, OnlyTheCurrentAndThePreviousInstanceAreKept) {
  ContainerLogs logs;
  for (const char* id : {"c0", "c1", "c2"}) {
    logs.open(id, "pod", "main");
    logs.append(id, kSimulatedEpoch, id);
  }
  logs.open("other", "pod", "sidecar");
  EXPECT_FALSE(logs.contains("c0"));
  EXPECT_TRUE(logs.contains("c1"));
  EXPECT_TRUE(logs.contains("c2"));
  EXPECT_TRUE(logs.contains("other"));
  logs.removePod("pod");
  EXPECT_EQ(logs.size(), 0u);
  // An unknown log reads as empty.
  EXPECT_EQ(logs.reader("c2", {})->readAll(), "");
}

// Removing a pod drops its own logs, current and previous instances, ends their open readers,
// and leaves every other pod's, including a pod whose uid begins with the removed one's.
TEST(ContainerLogsTest, RemovingAPodDropsOnlyItsOwnLogs) {
  ContainerLogs logs;
  logs.open("a0", "pod-a", "main");
  logs.open("a1", "pod-a", "main");
  logs.open("a2", "pod-a", "sidecar");
  logs.open("b0", "pod-b", "main");
  logs.open("ab0", "pod-ab", "main");
  logs.append("a1", kSimulatedEpoch, "line");
  auto reader = logs.reader("a1", {.follow = true});
  logs.removePod("pod-a");
  EXPECT_FALSE(logs.contains("a0"));
  EXPECT_FALSE(logs.contains("a1"));
  EXPECT_FALSE(logs.contains("a2"));
  EXPECT_TRUE(logs.contains("b0"));
  EXPECT_TRUE(logs.contains("ab0"));
  EXPECT_EQ(logs.size(), 2u);
  // The reader still hands out what was written, and ends with it.
  std::string out;
  EXPECT_EQ(reader->read(out, std::chrono::milliseconds(0)), ContainerLogReader::Step::Ended);
  EXPECT_EQ(out, "line\n");
  // The pod's container names are free again: a new pod with its uid starts afresh.
  logs.open("a3", "pod-a", "main");
  EXPECT_TRUE(logs.contains("a3"));
  EXPECT_EQ(logs.size(), 3u);
}

}  // namespace
}  // namespace fakekube::clustertest
