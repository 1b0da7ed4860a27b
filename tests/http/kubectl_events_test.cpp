// The real kubectl reading Events through both of their group-versions: an Event recorded through
// core/v1 (what the KubeRay operator's and the controllers' recorders write) is what `kubectl
// events` and `kubectl get events.v1.events.k8s.io` show, and one written through
// events.k8s.io/v1 (what kube-scheduler's recorder writes) shows in `kubectl events`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

constexpr const char* kCoreEvent = R"yaml(
apiVersion: v1
kind: Event
metadata:
  name: raycluster-sample.1
  namespace: default
involvedObject:
  apiVersion: ray.io/v1
  kind: RayCluster
  name: raycluster-sample
  namespace: default
reason: CreatedService
message: Created service default/raycluster-sample-head-svc
source:
  component: raycluster-controller
firstTimestamp: "2024-01-01T00:00:00Z"
lastTimestamp: "2024-01-01T00:00:00Z"
count: 1
type: Normal
)yaml";

constexpr const char* kEventsV1Event = R"yaml(
apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: web.1
  namespace: default
eventTime: "2024-01-01T00:00:01.000000Z"
reportingController: default-scheduler
reportingInstance: default-scheduler-node-1
action: Binding
reason: Scheduled
regarding:
  apiVersion: v1
  kind: Pod
  name: web
  namespace: default
note: Successfully assigned default/web to node-1
type: Normal
)yaml";

class KubectlEventsTest : public KubectlTest {};

TEST_F(KubectlEventsTest, CoreEventShowsInKubectlEventsAndThroughEventsK8sIo) {
  EXPECT_EQ(ok({"create", "-f", "-"}, kCoreEvent), "event/raycluster-sample.1 created\n");

  // kubectl events lists core/v1 Events (GET /api/v1/namespaces/default/events).
  std::string events = ok({"events"});
  EXPECT_THAT(events, MatchesRegex("LAST SEEN +TYPE +REASON +OBJECT +MESSAGE\n"
                                   ".* +Normal +CreatedService +RayCluster/raycluster-sample +"
                                   "Created service default/raycluster-sample-head-svc\n"));
  EXPECT_THAT(ok({"events", "--for", "RayCluster.ray.io/raycluster-sample"}),
              HasSubstr("CreatedService"));

  // The same object through events.k8s.io/v1, converted.
  EXPECT_EQ(ok({"get", "events.v1.events.k8s.io", "raycluster-sample.1", "-o",
                "jsonpath={.apiVersion} {.regarding.kind}/{.regarding.name} {.note} "
                "{.deprecatedSource.component} {.deprecatedCount}"}),
            "events.k8s.io/v1 RayCluster/raycluster-sample Created service "
            "default/raycluster-sample-head-svc raycluster-controller 1");
  EXPECT_EQ(ok({"get", "events.v1.events.k8s.io", "--field-selector",
                "regarding.name=raycluster-sample", "-o", "name"}),
            "event.events.k8s.io/raycluster-sample.1\n");

  // kubectl get prints the server's Event table, the same through both group-versions.
  for (const char* resource : {"events", "events.v1.events.k8s.io"}) {
    EXPECT_THAT(ok({"get", resource}),
                MatchesRegex("LAST SEEN +TYPE +REASON +OBJECT +MESSAGE\n"
                             "[0-9a-z]+ +Normal +CreatedService +raycluster/raycluster-sample +"
                             "Created service default/raycluster-sample-head-svc\n"))
        << resource;
  }

  // Deleted through events.k8s.io/v1, gone from both.
  EXPECT_EQ(ok({"delete", "events.v1.events.k8s.io", "raycluster-sample.1"}),
            "event.events.k8s.io \"raycluster-sample.1\" deleted\n");
  EXPECT_THAT(ok({"get", "events", "-o", "name"}), Not(HasSubstr("raycluster-sample.1")));
}

TEST_F(KubectlEventsTest, EventsK8sIoEventShowsInKubectlEvents) {
  EXPECT_EQ(ok({"create", "-f", "-"}, kEventsV1Event), "event.events.k8s.io/web.1 created\n");
  EXPECT_THAT(ok({"events"}), MatchesRegex("LAST SEEN +TYPE +REASON +OBJECT +MESSAGE\n"
                                           ".* +Normal +Scheduled +Pod/web +"
                                           "Successfully assigned default/web to node-1\n"));
  EXPECT_EQ(ok({"get", "events", "web.1", "-o",
                "jsonpath={.involvedObject.name} {.message} {.reportingComponent}"}),
            "web Successfully assigned default/web to node-1 default-scheduler");

  // events.k8s.io/v1 refuses what core/v1 accepts: an Event without its reporting fields.
  ProcessResult refused = kubectl({"create", "-f", "-"}, R"yaml(
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: bare, namespace: default}
eventTime: "2024-01-01T00:00:01.000000Z"
reason: Scheduled
type: Normal
)yaml");
  EXPECT_NE(refused.exitCode, 0);
  EXPECT_THAT(refused.err, HasSubstr("reportingController: Required value"));
}

// The KubeRay operator in `fakekube serve` records its Events through core/v1, as KubeRay's
// controller-runtime recorder does; kubectl reads them through either group-version.
class KubectlRayEventsTest : public KubectlTest {
  std::vector<std::string> serveArguments() override { return {"--nodes", "2"}; }
};

TEST_F(KubectlRayEventsTest, TheOperatorsEventsShowInKubectlEventsAndThroughEventsK8sIo) {
  EXPECT_EQ(ok({"apply", "-f", "-"}, readManifest("ray-cluster.sample.yaml")),
            "raycluster.ray.io/raycluster-kuberay created\n");
  ok({"wait", "--for=jsonpath={.status.state}=ready", "raycluster/raycluster-kuberay",
      "--timeout=60s"});
  const std::string events = ok({"events", "--for", "RayCluster.ray.io/raycluster-kuberay"});
  EXPECT_THAT(events,
              MatchesRegex("(.|\n)* +Normal +CreatedService +RayCluster/raycluster-kuberay "
                           "+Created service default/raycluster-kuberay-head-svc\n(.|\n)*"));
  EXPECT_THAT(events, HasSubstr("CreatedHeadPod"));
  EXPECT_EQ(ok({"get", "events.v1.events.k8s.io", "--field-selector",
                "regarding.name=raycluster-kuberay,reason=CreatedService", "-o",
                "jsonpath={.items[*].regarding.kind} {.items[*].note}"}),
            "RayCluster Created service default/raycluster-kuberay-head-svc");
}

}  // namespace
}  // namespace fakekube::e2e
