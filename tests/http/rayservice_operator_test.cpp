// The RayService controller end to end: `kubectl apply` of KubeRay's config/samples/
// ray-service.sample.yaml against `fakekube serve` (real threads, a clock ten times real time),
// with the operator inside serve (dashboards and Serve proxies through the cluster's network) and
// as `fakekube operator` out of process (through the API server's service and pods proxies). The
// sample reaches Ready; an edit of its rayVersion prepares a pending cluster, switches both
// Services to it and deletes the old cluster 60 s (virtual) later, as `kubectl get rayservice -w`,
// `kubectl get raycluster -w` and `kubectl get svc -w` show it. Every wait is a `kubectl wait` or
// a watch, bounded; nothing sleeps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "controllers/ray/custom_resource_definitions.h"
#include "fakekube/api/json.h"
#include "fakekube/client/rest_client.h"
#include "tests/http/ray_operator_fixture.h"
#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace rayservice_e2e {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

class RayServiceServeTest : public RayOperatorServeTest {
 protected:
  Json rayService() {
    return Json::parse(ok({"get", "rayservice", "rayservice-sample", "-o", "json"}));
  }
  std::string jsonpath(const std::string& object, const std::string& path) {
    return ok({"get", object, "-o", "jsonpath=" + path});
  }
  void waitFor(const std::string& condition, const std::string& object,
               const std::string& timeout) {
    ok({"wait", "--for=" + condition, object, "--timeout=" + timeout});
  }

  // Stops a `kubectl get -w`: the lines it printed, each with single spaces between columns.
  static std::string stopAndRead(ChildProcess& watch) {
    watch.signal(SIGTERM);
    std::string lines;
    while (auto line = watch.readLine()) {
      std::istringstream columns(*line);
      std::string column;
      std::string joined;
      while (columns >> column) joined += (joined.empty() ? "" : " ") + column;
      lines += joined + "\n";
    }
    watch.wait();
    return "\n" + lines;
  }
  // A line of stopAndRead's text with these columns.
  static std::string lineOf(const std::vector<std::string>& columns) {
    std::string line = "\n";
    for (const std::string& column : columns) line += (line.size() > 1 ? " " : "") + column;
    return line + "\n";
  }
};

// The sample reaches Ready=True with serve endpoints, and kubectl prints KubeRay's columns; an
// edit of rayVersion performs the blue/green switch: a pending cluster, both Services moved to it
// with their clusterIPs kept, the old cluster deleted after the deletion delay.
TEST_P(RayServiceServeTest, TheRayServiceSampleBecomesReadyAndUpgradesBlueGreen) {
  EXPECT_THAT(ok({"apply", "-f", "-"}, readManifest("ray-service.sample.yaml")),
              HasSubstr("rayservice.ray.io/rayservice-sample created"));
  waitFor("condition=Ready", "rayservice/rayservice-sample", "120s");
  Json service = rayService();
  EXPECT_EQ(service["status"]["serviceStatus"], "Running");
  const std::string first = service["status"]["activeServiceStatus"]["rayClusterName"];
  EXPECT_THAT(first, MatchesRegex("rayservice-sample-[a-z0-9]{5}"));
  EXPECT_EQ(service["status"]["activeServiceStatus"]["applicationStatuses"]["fruit_app"]["status"],
            "RUNNING");
  EXPECT_EQ(service["status"]["activeServiceStatus"]["applicationStatuses"]["math_app"]["status"],
            "RUNNING");
  EXPECT_GE(service["status"].value("numServeEndpoints", 0), 1);
  EXPECT_THAT(ok({"get", "rayservice"}), MatchesRegex("NAME +SERVICE STATUS +NUM SERVE ENDPOINTS\n"
                                                      "rayservice-sample +Running +[1-9]\n"));
  EXPECT_EQ(jsonpath("service/rayservice-sample-serve-svc", "{.spec.selector.ray\\.io/cluster}"),
            first);
  const std::string clusterIp =
      jsonpath("service/rayservice-sample-serve-svc", "{.spec.clusterIP}");
  // The fruit application answers through the serve Service.
  EXPECT_THAT(ok({"get", "--raw",
                  "/api/v1/namespaces/default/services/rayservice-sample-serve-svc:serve/proxy/"
                  "fruit"}),
              HasSubstr("fruit_app"));

  // What `kubectl get ... -w` shows of the switch (kubectl watches one resource type at a time:
  // "you may only specify a single resource type"): the RayService's active and pending cluster,
  // the RayClusters coming and going, the two Services' selectors.
  ChildProcess serviceWatch(kubectlArgv(
      {"get", "rayservice", "-w", "-o",
       "custom-columns=NAME:.metadata.name,ACTIVE:.status.activeServiceStatus.rayClusterName,"
       "PENDING:.status.pendingServiceStatus.rayClusterName"}));
  ChildProcess clusterWatch(kubectlArgv({"get", "raycluster", "-w", "--output-watch-events"}));
  ChildProcess selectorWatch(
      kubectlArgv({"get", "svc", "-w", "-o",
                   "custom-columns=NAME:.metadata.name,CLUSTER:.spec.selector.ray\\.io/cluster"}));
  // Each watch has printed its list (the first cluster) before the edit.
  EXPECT_THAT(serviceWatch.readLine().value_or(""), MatchesRegex("NAME +ACTIVE +PENDING"));
  EXPECT_THAT(serviceWatch.readLine().value_or(""),
              MatchesRegex("rayservice-sample +" + first + " +<none>"));
  EXPECT_THAT(clusterWatch.readLine().value_or(""), MatchesRegex("EVENT +NAME .*"));
  EXPECT_THAT(clusterWatch.readLine().value_or(""), MatchesRegex("ADDED +" + first + " .*"));
  EXPECT_THAT(selectorWatch.readLine().value_or(""), MatchesRegex("NAME +CLUSTER"));

  ok({"patch", "rayservice", "rayservice-sample", "--type=merge", "-p",
      R"({"spec":{"rayClusterConfig":{"rayVersion":"2.53.0"}}})"});
  waitFor("condition=UpgradeInProgress", "rayservice/rayservice-sample", "30s");
  std::string pending =
      jsonpath("rayservice/rayservice-sample", "{.status.pendingServiceStatus.rayClusterName}");
  // A slow machine may see the switch done already: the new cluster is then the active one.
  if (pending.empty()) {
    pending =
        jsonpath("rayservice/rayservice-sample", "{.status.activeServiceStatus.rayClusterName}");
  }
  ASSERT_THAT(pending, MatchesRegex("rayservice-sample-[a-z0-9]{5}"));
  ASSERT_NE(pending, first);
  waitFor("jsonpath={.status.activeServiceStatus.rayClusterName}=" + pending,
          "rayservice/rayservice-sample", "120s");
  EXPECT_EQ(jsonpath("service/rayservice-sample-serve-svc", "{.spec.selector.ray\\.io/cluster}"),
            pending);
  EXPECT_EQ(jsonpath("service/rayservice-sample-head-svc", "{.spec.selector.ray\\.io/cluster}"),
            pending);
  EXPECT_EQ(jsonpath("service/rayservice-sample-serve-svc", "{.spec.clusterIP}"), clusterIp);
  EXPECT_EQ(jsonpath("raycluster/" + pending, "{.spec.rayVersion}"), "2.53.0");
  // The old cluster goes 60 s (6 s of wall time) after the switch.
  ok({"wait", "--for=delete", "raycluster/" + first, "--timeout=60s"});
  waitFor("condition=Ready", "rayservice/rayservice-sample", "30s");

  // The watches saw the blue/green switch: the pending cluster named beside the active one, then
  // active alone; it added, the first deleted; both Services moved from the first to it.
  const std::string watched = stopAndRead(serviceWatch);
  EXPECT_THAT(watched, HasSubstr(lineOf({"rayservice-sample", first, pending})));
  EXPECT_THAT(watched, HasSubstr(lineOf({"rayservice-sample", pending, "<none>"})));
  const std::string clusters = stopAndRead(clusterWatch);
  EXPECT_THAT(clusters, ContainsRegex("\nADDED +" + pending + " "));
  EXPECT_THAT(clusters, ContainsRegex("\nDELETED +" + first + " "));
  const std::string selectors = stopAndRead(selectorWatch);
  for (const char* serviceName : {"rayservice-sample-head-svc", "rayservice-sample-serve-svc"}) {
    EXPECT_THAT(selectors, HasSubstr(lineOf({serviceName, first})));
    EXPECT_THAT(selectors, HasSubstr(lineOf({serviceName, pending})));
  }
}

INSTANTIATE_TEST_SUITE_P(BothPlacements, RayServiceServeTest,
                         ::testing::Values(OperatorPlacement::InsideServe,
                                           OperatorPlacement::OutOfProcess),
                         operatorPlacementName);

}  // namespace rayservice_e2e
}  // namespace fakekube::e2e
