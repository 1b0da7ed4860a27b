// KubeRay's incremental upgrade over kubectl: `fakekube serve` runs the Gateway API's definitions
// and a simulated implementation (sim/gateway_controller.h) beside the KubeRay operator, as a
// cluster with Istio would, so that KubeRay's config/samples/ray-service.incremental-upgrade.yaml
// gets a Gateway and an HTTPRoute that the implementation reports Accepted, Programmed and
// ResolvedRefs, and an edit of its rayVersion moves the route's weights to the new cluster in
// steps (`kubectl get httproute -w` shows them) before the old cluster goes. Waits are
// `kubectl wait` or a watch, bounded; nothing sleeps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/json.h"
#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace rayservice_incremental_e2e {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

constexpr const char* kIncrementalSample = "rayservice-incremental-upgrade";

class RayServiceIncrementalUpgradeServeTest : public KubectlTest {
 protected:
  std::vector<std::string> serveArguments() override {
    return {"--nodes", "3", "--time-scale", "10"};
  }
  std::string jsonpath(const std::string& object, const std::string& path) {
    return ok({"get", object, "-o", "jsonpath=" + path});
  }
  void waitFor(const std::string& condition, const std::string& object,
               const std::string& timeout) {
    ok({"wait", "--for=" + condition, object, "--timeout=" + timeout});
  }
  // The HTTPRoute parent's condition `type`: its status.
  std::string routeCondition(const std::string& type) {
    return jsonpath(std::string("httproute/") + kIncrementalSample + "-httproute",
                    "{.status.parents[0].conditions[?(@.type==\"" + type + "\")].status}");
  }
};

// The Gateway API is served, and the Gateway and HTTPRoute KubeRay creates for the sample are
// reported ready by the implementation: Gateway Accepted and Programmed, the route's parent
// Accepted and ResolvedRefs, the route sending everything to the first cluster's serve Service.
// An edit of rayVersion then moves the weights in steps of stepSizePercent until the new cluster
// has them all and is the active one; the old cluster is deleted.
TEST_F(RayServiceIncrementalUpgradeServeTest, TheSampleUpgradesInStepsThroughTheGatewayApi) {
  EXPECT_THAT(
      ok({"api-resources", "--api-group=gateway.networking.k8s.io", "-o", "name"}),
      HasSubstr("gateways.gateway.networking.k8s.io\nhttproutes.gateway.networking.k8s.io"));
  EXPECT_THAT(ok({"apply", "-f", "-"}, readManifest("ray-service.incremental-upgrade.yaml")),
              HasSubstr(std::string("rayservice.ray.io/") + kIncrementalSample + " created"));
  waitFor("condition=Ready", std::string("rayservice/") + kIncrementalSample, "120s");
  const std::string first = jsonpath(std::string("rayservice/") + kIncrementalSample,
                                     "{.status.activeServiceStatus.rayClusterName}");
  ASSERT_THAT(first, MatchesRegex(std::string(kIncrementalSample) + "-[a-z0-9]{5}"));

  const std::string gateway = std::string("gateway/") + kIncrementalSample + "-gateway";
  waitFor("condition=Accepted", gateway, "30s");
  waitFor("condition=Programmed", gateway, "30s");
  EXPECT_EQ(jsonpath(gateway, "{.spec.gatewayClassName}"), "istio");
  const std::string route = std::string("httproute/") + kIncrementalSample + "-httproute";
  waitFor("jsonpath={.spec.rules[0].backendRefs[0].weight}=100", route, "30s");
  EXPECT_EQ(routeCondition("Accepted"), "True");
  EXPECT_EQ(routeCondition("ResolvedRefs"), "True");
  EXPECT_EQ(jsonpath(route, "{.spec.rules[0].backendRefs[*].name}"), first + "-serve-svc");
  EXPECT_EQ(jsonpath(route, "{.status.parents[0].controllerName}"),
            "fakekube.io/gateway-controller");

  ChildProcess weights(kubectlArgv({"get", "httproute", "-w", "-o",
                                    "custom-columns=BACKENDS:.spec.rules[0].backendRefs[*].name,"
                                    "WEIGHTS:.spec.rules[0].backendRefs[*].weight"}));
  EXPECT_THAT(weights.readLine().value_or(""), MatchesRegex("BACKENDS +WEIGHTS"));
  EXPECT_THAT(weights.readLine().value_or(""), MatchesRegex(first + "-serve-svc +100"));
  // Steps of a half, 5 s apart, keep the run short; the new version starts the upgrade.
  ok({"patch", "rayservice", kIncrementalSample, "--type=merge", "-p",
      R"({"spec":{"upgradeStrategy":{"clusterUpgradeOptions":)"
      R"({"stepSizePercent":50,"intervalSeconds":5,"maxSurgePercent":50}},)"
      R"("rayClusterConfig":{"rayVersion":"2.52.0"}}})"});
  std::string pending;
  std::vector<std::string> seen;
  // The route names both clusters' serve Services while the traffic moves, then the new one
  // alone with all of it.
  while (auto line = weights.readLine()) {
    seen.push_back(*line);
    if (line->find(',') == std::string::npos && line->find(first) == std::string::npos &&
        line->find(" 100") != std::string::npos) {
      pending = line->substr(0, line->find("-serve-svc"));
      break;
    }
  }
  weights.signal(SIGTERM);
  weights.wait();
  ASSERT_THAT(pending, MatchesRegex(std::string(kIncrementalSample) + "-[a-z0-9]{5}"))
      << ::testing::PrintToString(seen);
  const std::string both = first + "-serve-svc," + pending + "-serve-svc";
  EXPECT_THAT(seen, ::testing::Contains(MatchesRegex(both + " +100,0")));
  EXPECT_THAT(seen, ::testing::Contains(MatchesRegex(both + " +50,50")));
  EXPECT_THAT(seen, ::testing::Contains(MatchesRegex(both + " +0,100")));

  waitFor("jsonpath={.status.activeServiceStatus.rayClusterName}=" + pending,
          std::string("rayservice/") + kIncrementalSample, "60s");
  EXPECT_EQ(jsonpath("raycluster/" + pending, "{.spec.rayVersion}"), "2.52.0");
  EXPECT_EQ(routeCondition("ResolvedRefs"), "True");
  ok({"wait", "--for=delete", "raycluster/" + first, "--timeout=60s"});
  waitFor("condition=Ready", std::string("rayservice/") + kIncrementalSample, "30s");
}

}  // namespace rayservice_incremental_e2e
}  // namespace fakekube::e2e
