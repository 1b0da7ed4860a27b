// Server-side apply (PATCH application/apply-patch+yaml): create when missing, merge when present,
// for built-in kinds and custom resources, JSON and YAML bodies, and the errors, none of which
// writes anything.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

const GroupVersionResource kGadgets{"example.com", "v1", "gadgets"};

class ApplyTest : public ApiServerTest {
 protected:
  Result<ObjectPtr> applyText(const GroupVersionResource& gvr, std::string_view name,
                              std::string_view body, bool* created = nullptr,
                              PatchOptions options = manager()) {
    return server->patch(gvr, "default", name, PatchType::Apply, body, options, "", created);
  }
  Result<ObjectPtr> apply(const GroupVersionResource& gvr, std::string_view name, const Json& body,
                          bool* created = nullptr) {
    return applyText(gvr, name, body.dump(), created);
  }
  // An apply by a second manager that takes what it sets (force): its partial configuration
  // merges into what the first manager applied, which stays (one manager's own partial
  // configuration would remove what it no longer applies: managed_fields_test.cpp).
  Result<ObjectPtr> applyByAnother(const GroupVersionResource& gvr, std::string_view name,
                                   const Json& body, bool* created = nullptr) {
    PatchOptions options;
    options.fieldManager = "another";
    options.force = true;
    return applyText(gvr, name, body.dump(), created, options);
  }

  static PatchOptions manager() {
    PatchOptions options;
    options.fieldManager = "kubectl";
    return options;
  }

  // A kind whose schema declares a list-map (spec.ports by name) and a set (spec.tags).
  void installGadgetCrd() {
    create(kCustomResourceDefinitions, Json::parse(R"({
      "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
      "metadata": {"name": "gadgets.example.com"},
      "spec": {"group": "example.com", "scope": "Namespaced",
               "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget",
                         "listKind": "GadgetList"},
               "versions": [{"name": "v1", "served": true, "storage": true,
                 "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                   "spec": {"type": "object", "properties": {
                     "size": {"type": "integer"},
                     "ports": {"type": "array", "x-kubernetes-list-type": "map",
                               "x-kubernetes-list-map-keys": ["name"],
                               "items": {"type": "object", "properties": {
                                 "name": {"type": "string"}, "port": {"type": "integer"}}}},
                     "tags": {"type": "array", "x-kubernetes-list-type": "set",
                              "items": {"type": "string"}},
                     "args": {"type": "array", "items": {"type": "string"}}}}}}}}]}})"));
  }
};

TEST_F(ApplyTest, CreatesThenMerges) {
  bool created = false;
  Json first = must(apply(kDeployments, "web", deployment("web"), &created));
  EXPECT_TRUE(created);
  EXPECT_EQ(meta::generation(first), 1);
  EXPECT_FALSE(meta::uid(first).empty());
  EXPECT_EQ(get(kDeployments, "default", "web"), first);

  // Another writer adds a label; the next apply changes replicas and the image.
  mergePatch(kDeployments, "default", "web", {{"metadata", {{"labels", {{"team", "a"}}}}}});
  Json next = deployment("web");
  next["spec"]["replicas"] = 4;
  next["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28";
  Json second = must(apply(kDeployments, "web", next, &created));
  EXPECT_FALSE(created);
  EXPECT_EQ(meta::uid(second), meta::uid(first));
  EXPECT_EQ(second["spec"]["replicas"], 4);
  const Json& containers = second["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 1u);
  EXPECT_EQ(containers[0]["image"], "nginx:1.28");
  EXPECT_EQ(second["metadata"]["labels"]["team"], "a");
  EXPECT_EQ(meta::generation(second), 2);

  // Applying the same configuration again writes nothing.
  const std::int64_t before = server->revision();
  Json third = must(apply(kDeployments, "web", next, &created));
  EXPECT_FALSE(created);
  EXPECT_EQ(rv(third), rv(second));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(ApplyTest, MergeListsMergeByKeyAndOtherListsAreReplaced) {
  Json d = deployment("web");
  Json& podSpec = d["spec"]["template"]["spec"];
  podSpec["containers"].push_back({{"name", "sidecar"}, {"image", "envoy:1"}});
  podSpec["containers"][0]["args"] = {"-a", "-b"};
  must(apply(kDeployments, "web", d));
  Json partial = Json::parse(R"({"apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"name": "web", "finalizers": ["example.com/f"]},
      "spec": {"template": {"spec": {
        "containers": [{"name": "main", "image": "nginx:1.28", "args": ["-c"]}]}}}})");
  Json merged = must(applyByAnother(kDeployments, "web", partial));
  const Json& containers = merged["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u);
  EXPECT_EQ(containers[0]["name"], "main");
  EXPECT_EQ(containers[0]["image"], "nginx:1.28");
  EXPECT_EQ(containers[0]["args"], Json({"-c"}));
  EXPECT_EQ(containers[1]["name"], "sidecar");
  EXPECT_EQ(containers[1]["image"], "envoy:1");
  EXPECT_EQ(merged["spec"]["selector"], d["spec"]["selector"]);
  EXPECT_EQ(merged["metadata"]["finalizers"], Json({"example.com/f"}));
}

TEST_F(ApplyTest, YamlBody) {
  bool created = false;
  Json cm = must(applyText(kConfigMaps, "c1", std::string_view(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: c1
  labels:
    app: web
data:
  port: "8080"
  mode: 'on'
)"),
                           &created));
  EXPECT_TRUE(created);
  EXPECT_EQ(cm["data"], Json({{"port", "8080"}, {"mode", "on"}}));
  EXPECT_EQ(cm["metadata"]["labels"], Json({{"app", "web"}}));
  // Unquoted, the same scalars are typed: a number and a boolean.
  installWidgetCrd();
  Json w = must(applyText(kWidgets, "w1",
                          std::string_view("apiVersion: example.com/v1\nkind: Widget\n"
                                           "metadata: {name: w1}\n"
                                           "spec: {port: 8080, quoted: '8080', mode: on}\n")));
  EXPECT_EQ(w["spec"], Json::parse(R"({"port": 8080, "quoted": "8080", "mode": true})"));
}

TEST_F(ApplyTest, CustomResourcesMergeByTheirSchema) {
  installGadgetCrd();
  bool created = false;
  Json first = must(apply(kGadgets, "g1", Json::parse(R"({
      "apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"},
      "spec": {"size": 1, "ports": [{"name": "http", "port": 80}], "tags": ["a"],
               "args": ["x"]}})"),
                          &created));
  EXPECT_TRUE(created);
  EXPECT_EQ(meta::generation(first), 1);
  Json second = must(applyByAnother(kGadgets, "g1", Json::parse(R"({
      "apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g1"},
      "spec": {"ports": [{"name": "http", "port": 8080}, {"name": "metrics", "port": 9090}],
               "tags": ["b"], "args": ["y"]}})"),
                                    &created));
  EXPECT_FALSE(created);
  EXPECT_EQ(second["spec"]["size"], 1);
  EXPECT_EQ(second["spec"]["ports"], Json::parse(R"([{"name": "http", "port": 8080},
                                                     {"name": "metrics", "port": 9090}])"));
  EXPECT_EQ(second["spec"]["tags"], Json({"a", "b"}));
  EXPECT_EQ(second["spec"]["args"], Json({"y"}));
  EXPECT_EQ(meta::generation(second), 2);
  // Without list types in the schema (the Widget kind preserves unknown fields) lists are atomic.
  installWidgetCrd();
  must(apply(kWidgets, "w1", Json::parse(R"({"apiVersion": "example.com/v1", "kind": "Widget",
      "metadata": {"name": "w1"}, "spec": {"items": [{"name": "a"}], "size": 1}})")));
  Json widget = must(applyByAnother(kWidgets, "w1", Json::parse(R"({"apiVersion": "example.com/v1",
      "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"items": [{"name": "b"}]}})")));
  EXPECT_EQ(widget["spec"], Json::parse(R"({"items": [{"name": "b"}], "size": 1})"));
}

TEST_F(ApplyTest, StatusSubresource) {
  installWidgetCrd();
  must(apply(kWidgets, "w1", widget("w1")));
  Json status = {{"apiVersion", "example.com/v1"},
                 {"kind", "Widget"},
                 {"metadata", {{"name", "w1"}}},
                 {"status", {{"ready", true}}},
                 {"spec", {{"size", 9}}}};
  Json applied = must(server->patch(kWidgets, "default", "w1", PatchType::Apply, status.dump(),
                                    manager(), "status"));
  EXPECT_EQ(applied["status"], Json({{"ready", true}}));
  EXPECT_EQ(applied["spec"]["size"], 1);  // the status subresource changes status only
  // The main resource ignores status.
  Json main = must(apply(kWidgets, "w1",
                         Json({{"apiVersion", "example.com/v1"},
                               {"kind", "Widget"},
                               {"metadata", {{"name", "w1"}}},
                               {"status", {{"ready", false}}}})));
  EXPECT_EQ(main["status"], Json({{"ready", true}}));
  // Apply never creates through a subresource.
  EXPECT_TRUE(failsWith(server->patch(kWidgets, "default", "w2", PatchType::Apply, status.dump(),
                                      manager(), "status"),
                        404, "NotFound", "widgets.example.com \"w2\" not found"));
}

TEST_F(ApplyTest, DryRunCreatesNothing) {
  const std::int64_t before = server->revision();
  PatchOptions options = manager();
  options.dryRun = true;
  bool created = false;
  Json answered = must(applyText(kConfigMaps, "c1", configMap("c1").dump(), &created, options));
  EXPECT_TRUE(created);
  EXPECT_EQ(answered["data"], configMap("c1")["data"]);
  EXPECT_EQ(server->revision(), before);
  EXPECT_FALSE(server->get(kConfigMaps, "default", "c1"));
}

TEST_F(ApplyTest, FieldManagerIsRequired) {
  const std::int64_t before = server->revision();
  auto refused = applyText(kConfigMaps, "c1", configMap("c1").dump(), nullptr, PatchOptions{});
  EXPECT_TRUE(failsWith(refused, 422, "Invalid",
                        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: "
                        "is required for apply patch"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().details.kind, "PatchOptions");
  EXPECT_EQ(refused.error().details.group, "meta.k8s.io");
  ASSERT_EQ(refused.error().details.causes.size(), 1u);
  EXPECT_EQ(refused.error().details.causes[0].field, "fieldManager");
  EXPECT_EQ(server->revision(), before);
}

TEST_F(ApplyTest, ForceIsAccepted) {
  PatchOptions options = manager();
  options.force = true;
  EXPECT_TRUE(applyText(kConfigMaps, "c1", configMap("c1").dump(), nullptr, options));
}

TEST_F(ApplyTest, ErrorsWriteNothing) {
  create(kConfigMaps, configMap("c1"));
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(apply(kConfigMaps, "c1", Json::parse(R"({"apiVersion": "v1",
                                 "kind": "Secret", "metadata": {"name": "c1"}})")),
                        400, "BadRequest", "invalid object type: /v1, Kind=Secret"));
  EXPECT_TRUE(failsWith(apply(kConfigMaps, "c1", Json::parse(R"({"metadata": {"name": "c1"}})")),
                        400, "BadRequest", "invalid object type: /, Kind="));
  EXPECT_TRUE(failsWith(apply(kDeployments, "web", Json::parse(R"({"apiVersion": "apps/v2",
                                 "kind": "Deployment", "metadata": {"name": "web"}})")),
                        400, "BadRequest", "invalid object type: apps/v2, Kind=Deployment"));
  Json renamed = configMap("other");
  EXPECT_TRUE(failsWith(apply(kConfigMaps, "c1", renamed), 400, "BadRequest",
                        "the name of the object (other) does not match the name on the URL (c1)"));
  EXPECT_TRUE(failsWith(apply(kConfigMaps, "c2", renamed), 400, "BadRequest",
                        "the name of the object (other) does not match the name on the URL (c2)"));
  EXPECT_TRUE(failsWith(apply(kConfigMaps, "c2", configMap("")), 400, "BadRequest",
                        "the name of the object (c2 based on URL) was undeterminable: name must "
                        "be provided"));
  Json withUid = configMap("c2");
  withUid["metadata"]["uid"] = "1234";
  EXPECT_TRUE(failsWith(apply(kConfigMaps, "c2", withUid), 409, "Conflict",
                        "Operation cannot be fulfilled on configmaps \"c2\": uid mismatch: the "
                        "provided object specified uid 1234, and no existing object was found"));
  Json managed = configMap("c1");
  managed["metadata"]["managedFields"] = Json::array();
  EXPECT_TRUE(failsWith(apply(kConfigMaps, "c1", managed), 400, "BadRequest",
                        "metadata.managedFields must be nil"));
  auto broken =
      applyText(kConfigMaps, "c1", std::string_view("apiVersion: v1\nkind: [ConfigMap\n"));
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().code, 400);
  EXPECT_EQ(broken.error().message.rfind("error decoding YAML: error converting YAML to JSON: ", 0),
            0u)
      << broken.error().message;
  EXPECT_TRUE(failsWith(applyText(kConfigMaps, "c1", std::string_view("- a\n- b\n")), 400,
                        "BadRequest",
                        "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: "
                        "cannot unmarshal array into Go value of type map[string]interface {}"));
  // A stale resourceVersion in the applied configuration is a precondition.
  Json stale = configMap("c1");
  stale["metadata"]["resourceVersion"] = "1";
  auto conflict = apply(kConfigMaps, "c1", stale);
  ASSERT_FALSE(conflict);
  EXPECT_EQ(conflict.error().code, 409);
  EXPECT_EQ(server->revision(), before);
}

}  // namespace
}  // namespace fakekube::apitest
