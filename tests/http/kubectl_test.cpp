// The real kubectl against `fakekube serve`: what a developer does on a laptop without a cluster.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = fakekube::Json;

constexpr const char* kDeploymentV1 = R"yaml(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, stage: beta}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.25
        env: [{name: MODE, value: one}]
      - name: sidecar
        image: busybox:1.36
)yaml";

// The same Deployment, edited: 2 replicas, the `stage` label dropped, a second env var, the
// sidecar's image changed.
constexpr const char* kDeploymentV2 = R"yaml(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.25
        env: [{name: MODE, value: one}, {name: LEVEL, value: debug}]
      - name: sidecar
        image: busybox:1.37
)yaml";

constexpr const char* kWidgetCrd = R"yaml(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
)yaml";

Json parse(const std::string& text) {
  Json j = Json::parse(text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON:\n" << text;
  return j;
}

class KubectlServeTest : public KubectlTest {};

TEST_F(KubectlServeTest, ApiResourcesListsBuiltInKinds) {
  std::string out = ok({"api-resources"});
  EXPECT_THAT(out, HasSubstr("pods"));
  EXPECT_THAT(out, HasSubstr("deployments"));
  EXPECT_THAT(out, HasSubstr("apps/v1"));
  EXPECT_THAT(out, HasSubstr("customresourcedefinitions"));
  EXPECT_THAT(out, HasSubstr("Lease"));
}

TEST_F(KubectlServeTest, ApplyCreatesThenReapplyMergesTheEdit) {
  EXPECT_EQ(ok({"apply", "-f", "-"}, kDeploymentV1), "deployment.apps/web created\n");
  EXPECT_EQ(ok({"apply", "-f", "-"}, kDeploymentV2), "deployment.apps/web configured\n");

  Json web = parse(ok({"get", "deployment", "web", "-o", "json"}));
  EXPECT_EQ(web["spec"]["replicas"], 2);
  EXPECT_EQ(web["metadata"]["labels"], (Json{{"app", "web"}}));  // the dropped label is gone
  const Json& containers = web["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["name"], "app");
  EXPECT_EQ(containers[0]["env"],
            (Json::parse(R"([{"name":"MODE","value":"one"},{"name":"LEVEL","value":"debug"}])")));
  EXPECT_EQ(containers[1]["image"], "busybox:1.37");
  EXPECT_TRUE(
      web["metadata"]["annotations"].contains("kubectl.kubernetes.io/last-applied-configuration"));
  EXPECT_EQ(web["metadata"]["generation"], 2);
}

constexpr const char* kMisspeltPod = R"yaml(
apiVersion: v1
kind: Pod
metadata:
  name: typo
spec:
  containers:
  - name: app
    image: nginx:1.25
    imagePullPolizy: Always
)yaml";

// kubectl --validate=warn sends fieldValidation=Warn: the server drops the misspelt field and
// answers a Warning header, which kubectl prints.
TEST_F(KubectlServeTest, ApplyWithValidateWarnPrintsTheUnknownFieldAndDropsIt) {
  ProcessResult applied = kubectl({"apply", "--validate=warn", "-f", "-"}, kMisspeltPod);
  ASSERT_EQ(applied.exitCode, 0) << applied.err;
  EXPECT_EQ(applied.out, "pod/typo created\n");
  EXPECT_THAT(applied.err,
              HasSubstr("Warning: unknown field \"spec.containers[0].imagePullPolizy\""));
  Json pod = parse(ok({"get", "pod", "typo", "-o", "json"}));
  EXPECT_FALSE(pod["spec"]["containers"][0].contains("imagePullPolizy"));
  EXPECT_EQ(pod["spec"]["containers"][0]["image"], "nginx:1.25");
}

// kubectl's default, --validate=strict, sends fieldValidation=Strict: the create is refused with
// the strict decoding error and nothing is written.
TEST_F(KubectlServeTest, ApplyByDefaultRefusesTheUnknownField) {
  ProcessResult refused = kubectl({"apply", "-f", "-"}, kMisspeltPod);
  EXPECT_NE(refused.exitCode, 0);
  EXPECT_THAT(refused.err,
              HasSubstr("Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: "
                        "unknown field \"spec.containers[0].imagePullPolizy\""));
  EXPECT_NE(kubectl({"get", "pod", "typo"}).exitCode, 0);
}

TEST_F(KubectlServeTest, ReplaceWithAStaleResourceVersionPrintsTheConflict) {
  ok({"create", "configmap", "settings", "--from-literal=mode=a"});
  std::string stale = ok({"get", "configmap", "settings", "-o", "json"});
  EXPECT_EQ(
      ok({"patch", "configmap", "settings", "--type=merge", "-p", R"({"data":{"mode":"b"}})"}),
      "configmap/settings patched\n");

  Json edited = parse(stale);
  edited["data"]["mode"] = "c";
  ProcessResult replaced = kubectl({"replace", "-f", "-"}, edited.dump());
  EXPECT_NE(replaced.exitCode, 0);
  EXPECT_THAT(replaced.err,
              HasSubstr("Operation cannot be fulfilled on configmaps \"settings\": the object has "
                        "been modified; please apply your changes to the latest version and try "
                        "again"));
  EXPECT_EQ(ok({"get", "configmap", "settings", "-o", "jsonpath={.data.mode}"}), "b");
}

TEST_F(KubectlServeTest, PatchOfEachType) {
  ok({"apply", "-f", "-"}, kDeploymentV1);
  EXPECT_EQ(ok({"patch", "deployment", "web", "--type=merge", "-p",
                R"({"metadata":{"annotations":{"team":"infra"}}})"}),
            "deployment.apps/web patched\n");
  EXPECT_EQ(ok({"patch", "deployment", "web", "--type=json", "-p",
                R"([{"op":"replace","path":"/spec/replicas","value":3}])"}),
            "deployment.apps/web patched\n");
  // Strategic: the container list is merged by name, so the sidecar stays.
  EXPECT_EQ(
      ok({"patch", "deployment", "web", "--type=strategic", "-p",
          R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.26"}]}}}})"}),
      "deployment.apps/web patched\n");

  Json web = parse(ok({"get", "deployment", "web", "-o", "json"}));
  EXPECT_EQ(web["metadata"]["annotations"]["team"], "infra");
  EXPECT_EQ(web["spec"]["replicas"], 3);
  const Json& containers = web["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["image"], "nginx:1.26");
  EXPECT_EQ(containers[1]["name"], "sidecar");

  ProcessResult bad = kubectl({"patch", "deployment", "web", "--type=json", "-p", R"({"op":1})"});
  EXPECT_NE(bad.exitCode, 0);
}

TEST_F(KubectlServeTest, LabelAndAnnotate) {
  ok({"create", "configmap", "settings", "--from-literal=mode=a"});
  EXPECT_EQ(ok({"label", "configmap", "settings", "tier=db"}), "configmap/settings labeled\n");
  EXPECT_EQ(ok({"annotate", "configmap", "settings", "owner=team-a"}),
            "configmap/settings annotated\n");
  EXPECT_EQ(ok({"get", "configmap", "-l", "tier=db", "-o", "name"}), "configmap/settings\n");
  EXPECT_EQ(ok({"get", "configmap", "settings", "-o", "jsonpath={.metadata.annotations.owner}"}),
            "team-a");
  EXPECT_EQ(ok({"label", "configmap", "settings", "tier-"}), "configmap/settings unlabeled\n");
  EXPECT_EQ(ok({"get", "configmap", "-l", "tier=db", "-o", "name"}), "");
}

TEST_F(KubectlServeTest, WatchPrintsAddedModifiedDeleted) {
  ChildProcess watch(
      kubectlArgv({"get", "configmaps", "-l", "watched=yes", "-w", "--output-watch-events"}));
  ok({"apply", "-f", "-"}, R"(
apiVersion: v1
kind: ConfigMap
metadata: {name: observed, labels: {watched: "yes"}}
data: {mode: one}
)");
  // Each step waits for the previous event, so the watch (started from the list's
  // resourceVersion) must report every later change.
  auto nextEvent = [&]() -> std::string {
    while (auto line = watch.readLine()) {
      if (line->rfind("EVENT", 0) == 0) continue;  // the header
      return *line;
    }
    return "(end of output)";
  };
  // EVENT NAME DATA AGE
  EXPECT_THAT(nextEvent(), ::testing::MatchesRegex("ADDED +observed +1 +[0-9]+s"));
  ok({"patch", "configmap", "observed", "--type=merge", "-p", R"({"data":{"level":"two"}})"});
  EXPECT_THAT(nextEvent(), ::testing::MatchesRegex("MODIFIED +observed +2 +[0-9]+s"));
  ok({"delete", "configmap", "observed"});
  EXPECT_THAT(nextEvent(), ::testing::MatchesRegex("DELETED +observed +2 +[0-9]+s"));
}

TEST_F(KubectlServeTest, DeleteCascadeForegroundOrphanBackground) {
  auto family = [&](const std::string& parent) {
    ok({"create", "configmap", parent});
    std::string uid = ok({"get", "configmap", parent, "-o", "jsonpath={.metadata.uid}"});
    Json child = {{"apiVersion", "v1"},
                  {"kind", "ConfigMap"},
                  {"metadata",
                   {{"name", parent + "-child"},
                    {"ownerReferences",
                     {{{"apiVersion", "v1"},
                       {"kind", "ConfigMap"},
                       {"name", parent},
                       {"uid", uid},
                       {"blockOwnerDeletion", true}}}}}}};
    ok({"create", "-f", "-"}, child.dump());
  };

  // Foreground: kubectl waits for the parent, which goes only after its child.
  family("fg");
  EXPECT_EQ(ok({"delete", "configmap", "fg", "--cascade=foreground"}),
            "configmap \"fg\" deleted\n");
  ProcessResult child = kubectl({"get", "configmap", "fg-child"});
  EXPECT_NE(child.exitCode, 0);
  EXPECT_THAT(child.err, HasSubstr("configmaps \"fg-child\" not found"));

  // Orphan: the child stays, without its reference.
  family("orphan");
  ok({"delete", "configmap", "orphan", "--cascade=orphan"});
  EXPECT_EQ(ok({"get", "configmap", "orphan-child", "-o", "jsonpath={.metadata.ownerReferences}"}),
            "");

  // Background: the parent goes at once; the garbage collector removes the child after.
  family("bg");
  ok({"delete", "configmap", "bg", "--cascade=background"});
  // Prints "condition met" if the child was still there when kubectl looked, nothing if the
  // collector had already removed it.
  EXPECT_THAT(ok({"wait", "--for=delete", "configmap/bg-child", "--timeout=60s"}),
              ::testing::AnyOf("", "configmap/bg-child condition met\n"));
  EXPECT_NE(kubectl({"get", "configmap", "bg-child"}).exitCode, 0);
}

TEST_F(KubectlServeTest, CustomResourceDefinitionThenTheNewKind) {
  EXPECT_EQ(ok({"apply", "-f", "-"}, kWidgetCrd),
            "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n");
  EXPECT_EQ(ok({"wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=60s"}),
            "customresourcedefinition.apiextensions.k8s.io/widgets.example.com condition met\n");
  ok({"apply", "-f", "-"}, R"(
apiVersion: example.com/v1
kind: Widget
metadata: {name: w1}
spec: {size: 3}
)");
  // A CRD's printer columns replace the default AGE column, as on a real API server.
  EXPECT_THAT(ok({"get", "widgets"}), ::testing::MatchesRegex("NAME +SIZE\nw1 +3\n"));
  EXPECT_EQ(ok({"get", "wd", "w1", "-o", "jsonpath={.spec.size}"}), "3");

  // kubectl wait on a condition that a controller (here: the test) writes to status.
  ChildProcess wait(kubectlArgv({"wait", "--for=condition=Ready", "widget/w1", "--timeout=60s"}));
  ok({"patch", "widget", "w1", "--subresource=status", "--type=merge", "-p",
      R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})"});
  EXPECT_EQ(wait.readLine().value_or(""), "widget.example.com/w1 condition met");
  EXPECT_EQ(wait.wait(), 0);
}

TEST_F(KubectlServeTest, ServerSideApplyCreatesThenMerges) {
  EXPECT_EQ(ok({"apply", "--server-side", "-f", "-"}, R"(
apiVersion: v1
kind: ConfigMap
metadata: {name: ssa}
data: {a: "1"}
)"),
            "configmap/ssa serverside-applied\n");
  ok({"apply", "--server-side", "-f", "-"}, R"(
apiVersion: v1
kind: ConfigMap
metadata: {name: ssa, labels: {applied: "yes"}}
data: {a: "2"}
)");
  Json ssa = parse(ok({"get", "configmap", "ssa", "-o", "json"}));
  EXPECT_EQ(ssa["data"]["a"], "2");
  EXPECT_EQ(ssa["metadata"]["labels"]["applied"], "yes");
}

TEST_F(KubectlServeTest, DeploymentRollsOutOnTheSimulatedNodes) {
  EXPECT_EQ(ok({"create", "deployment", "web", "--image=nginx:1.25", "--replicas=2"}),
            "deployment.apps/web created\n");
  EXPECT_THAT(ok({"rollout", "status", "deployment/web", "--timeout=60s"}),
              HasSubstr("deployment \"web\" successfully rolled out"));
  EXPECT_EQ(ok({"wait", "--for=condition=Available", "deployment/web", "--timeout=60s"}),
            "deployment.apps/web condition met\n");
  std::string pods = ok({"get", "pods", "-l", "app=web"});
  EXPECT_THAT(
      pods, ::testing::MatchesRegex("NAME +READY +STATUS +RESTARTS +AGE\n"
                                    "(web-[a-z0-9]+-[a-z0-9]{5} +1/1 +Running +0 +[0-9]+s\n){2}"));

  // kubectl scale goes through the scale subresource.
  EXPECT_EQ(ok({"scale", "deployment", "web", "--replicas=3"}), "deployment.apps/web scaled\n");
  EXPECT_THAT(ok({"rollout", "status", "deployment/web", "--timeout=60s"}),
              HasSubstr("deployment \"web\" successfully rolled out"));
  EXPECT_EQ(ok({"get", "deployment", "web", "-o", "jsonpath={.status.readyReplicas}"}), "3");
}

class KubectlTokenTest : public KubectlTest {
  std::vector<std::string> serveArguments() override { return {"--token", "s3cret"}; }
};

TEST_F(KubectlTokenTest, TheTokenIsRequired) {
  EXPECT_EQ(ok({"get", "configmaps", "-n", "kube-system", "-o", "name"}), "");
  EXPECT_EQ(serve->url().rfind("https://", 0), 0u) << "a token needs TLS: " << serve->url();
  ProcessResult denied = runProcess({kKubectl, "--server", serve->url(), "--token", "wrong",
                                     "--insecure-skip-tls-verify", "--cache-dir",
                                     dir.path() + "/cache2", "get", "configmaps"});
  EXPECT_NE(denied.exitCode, 0);
  EXPECT_THAT(denied.err, HasSubstr("error: You must be logged in to the server"));
}

TEST(ServeRestartTest, AFileBackedServerComesBackWithItsObjectsAndRevision) {
  TemporaryDirectory dir;
  const std::string db = dir.path() + "/state.db";
  auto kubectl = [&](const Serve& serve, std::vector<std::string> args, std::string input = "") {
    std::vector<std::string> argv = {kKubectl, "--kubeconfig", serve.kubeconfig(), "--cache-dir",
                                     dir.path() + "/cache"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = runProcess(argv, input);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.out;
  };
  std::string rvBefore;
  {
    Serve serve(dir.path(), {"--db", db});
    kubectl(serve, {"create", "configmap", "kept", "--from-literal=k=v"});
    kubectl(serve, {"create", "namespace", "team-a"});
    rvBefore = kubectl(
        serve, {"get", "namespace", "team-a", "-o", "jsonpath={.metadata.resourceVersion}"});
    EXPECT_EQ(serve.stop(), 0);
  }
  Serve again(dir.path(), {"--db", db});
  EXPECT_EQ(kubectl(again, {"get", "configmap", "kept", "-o", "jsonpath={.data.k}"}), "v");
  EXPECT_EQ(
      kubectl(again, {"get", "namespace", "team-a", "-o", "jsonpath={.metadata.resourceVersion}"}),
      rvBefore);
  kubectl(again, {"create", "configmap", "after"});
  std::string rvAfter =
      kubectl(again, {"get", "configmap", "after", "-o", "jsonpath={.metadata.resourceVersion}"});
  EXPECT_GT(std::stoll(rvAfter), std::stoll(rvBefore));
  EXPECT_EQ(again.stop(), 0);
}

TEST(ServeCommandLineTest, BadFlagsGiveOneLineErrors) {
  ProcessResult badListen = runProcess({FAKEKUBE_CLI, "serve", "--listen", "nowhere"});
  EXPECT_EQ(badListen.exitCode, 1);
  EXPECT_EQ(badListen.err,
            "fakekube serve: --listen \"nowhere\": expected HOST:PORT (port 0 picks a free one)\n");
  ProcessResult badController = runProcess({FAKEKUBE_CLI, "serve", "--controllers", "gc,sheduler"});
  EXPECT_EQ(badController.exitCode, 1);
  EXPECT_THAT(badController.err, HasSubstr("unknown controller \"sheduler\""));
}

}  // namespace
}  // namespace fakekube::e2e
