// Structural schemas of custom resources: what kube-apiserver does with a CRD's openAPIV3Schema
// on every write and read (apiextensions-apiserver schema/pruning, schema/defaulting and
// validation over kube-openapi's validator), with its exact 422 messages, and a refused write
// leaving the store as it was.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/internal/structural_schema.h"
#include "fakekube/api/resources.h"
#include "fakekube/api/yaml.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

const GroupVersionResource kGizmos{"example.com", "v1", "gizmos"};

constexpr const char* kGizmoSchema = R"(
type: object
properties:
  spec:
    type: object
    required: [size]
    properties:
      size: {type: integer, minimum: 1, maximum: 5}
      ratio: {type: number, maximum: 1, exclusiveMaximum: true, minimum: 0, exclusiveMinimum: true}
      replicas: {type: integer, default: 1}
      mode: {type: string, enum: [Fast, Slow], default: Fast}
      name: {type: string, maxLength: 5, minLength: 2, pattern: '^[a-z]+$'}
      tags: {type: array, maxItems: 2, minItems: 1, items: {type: string}}
      port: {x-kubernetes-int-or-string: true}
      note: {type: string, nullable: true}
      started: {type: string, format: date-time}
      group:
        type: object
        default: {}
        properties:
          numOfHosts: {type: integer, default: 1}
          maxReplicas: {type: integer, format: int32, default: 2147483647}
      workers:
        type: array
        items:
          type: object
          properties:
            name: {type: string}
            numOfHosts: {type: integer, default: 1}
      template:
        type: object
        x-kubernetes-preserve-unknown-fields: true
        properties:
          metadata:
            type: object
            properties:
              labels: {type: object, additionalProperties: {type: string}}
      free:
        type: object
        x-kubernetes-preserve-unknown-fields: true
      labels:
        type: object
        additionalProperties: {type: string}
      embedded:
        type: object
        x-kubernetes-embedded-resource: true
        properties:
          data: {type: object, x-kubernetes-preserve-unknown-fields: true}
  status:
    type: object
    properties:
      succeeded: {type: integer, default: 0}
      state: {type: string}
)";

Json yaml(const char* text) {
  auto j = decodeYaml(text);
  EXPECT_TRUE(j) << (j ? "" : j.error().message);
  return j ? *j : Json();
}

Json gizmoCrd(Json schema = yaml(kGizmoSchema)) {
  Json crd = exampleComCrd("gizmos", "gizmo", "Gizmo", std::move(schema));
  crd["spec"]["names"].erase("listKind");
  return crd;
}

Json gizmo(const std::string& name, Json spec = {{"size", 2}}) {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Gizmo"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", std::move(spec)}};
}

class SchemaTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    create(kCustomResourceDefinitions, gizmoCrd());
  }

  // The 422 a create with this spec gets; the store must not move.
  Status refusedCreate(Json spec) {
    const std::int64_t before = server->revision();
    auto r = server->create(kGizmos, "", gizmo("g", std::move(spec)));
    EXPECT_FALSE(r) << (r ? (*r)->dump() : "");
    EXPECT_EQ(server->revision(), before);
    return r ? Status() : r.error();
  }
  std::string refusedMessage(Json spec) { return refusedCreate(std::move(spec)).message; }
};

// --- defaulting ---

TEST_F(SchemaTest, CreateFillsDefaultsOfPropertiesObjectsAndArrayItems) {
  Json g = create(kGizmos,
                  gizmo("g", {{"size", 2},
                              {"workers", {{{"name", "a"}}, {{"name", "b"}, {"numOfHosts", 4}}}}}));
  EXPECT_EQ(g["spec"]["replicas"], 1);
  EXPECT_EQ(g["spec"]["mode"], "Fast");
  // An object default ({}) is defaulted inside in turn.
  EXPECT_EQ(g["spec"]["group"], Json({{"numOfHosts", 1}, {"maxReplicas", 2147483647}}));
  EXPECT_EQ(g["spec"]["workers"][0]["numOfHosts"], 1);
  EXPECT_EQ(g["spec"]["workers"][1]["numOfHosts"], 4);
  // Create drops status (status subresource), so no status default appears.
  EXPECT_FALSE(g.contains("status"));
  EXPECT_EQ(get(kGizmos, "default", "g"), g);
}

TEST_F(SchemaTest, ANonNullableNullTakesTheDefaultAndANullWithoutDefaultIsDropped) {
  Json g = create(
      kGizmos, gizmo("g", {{"size", 2}, {"mode", nullptr}, {"name", nullptr}, {"note", nullptr}}));
  EXPECT_EQ(g["spec"]["mode"], "Fast");
  EXPECT_FALSE(g["spec"].contains("name"));
  EXPECT_TRUE(g["spec"]["note"].is_null());  // nullable: kept
}

// The nulls are dropped at every depth the schema reaches: in array items, under a field that
// preserves unknown fields (its declared members only: an unknown member's null is kept, as any
// unknown value there), and in an embedded resource's declared members.
TEST_F(SchemaTest, NonNullableNullsAreDroppedAtEveryDepthTheSchemaReaches) {
  Json g =
      create(kGizmos,
             gizmo("g", {{"size", 2},
                         {"workers", Json::array({{{"name", nullptr}, {"numOfHosts", nullptr}}})},
                         {"template", {{"metadata", {{"labels", nullptr}}}, {"unknown", nullptr}}},
                         {"free", {{"anything", nullptr}}},
                         {"labels", {{"a", nullptr}, {"b", "x"}}},
                         {"embedded", {{"kind", "Thing"}, {"data", nullptr}}}}));
  const Json& spec = g["spec"];
  EXPECT_EQ(spec["workers"][0], Json({{"numOfHosts", 1}}));  // name dropped, the null defaulted
  EXPECT_EQ(spec["template"], Json({{"metadata", Json::object()}, {"unknown", nullptr}}));
  EXPECT_EQ(spec["free"], Json({{"anything", nullptr}}));
  EXPECT_EQ(spec["labels"], Json({{"b", "x"}}));  // additionalProperties: a string, not null
  EXPECT_EQ(spec["embedded"], Json({{"kind", "Thing"}}));
}

TEST_F(SchemaTest, UpdateAndPatchAreDefaultedToo) {
  Json g = create(kGizmos, gizmo("g", {{"size", 2}, {"replicas", 3}}));
  Json changed = g;
  changed["spec"].erase("replicas");
  changed["spec"].erase("group");
  Json updated = update(kGizmos, changed);
  EXPECT_EQ(updated["spec"]["replicas"], 1);
  EXPECT_EQ(updated["spec"]["group"]["numOfHosts"], 1);
  // Only the replicas changed (3 -> 1): the group came back as it was.
  EXPECT_EQ(meta::generation(updated), 2);

  // A merge patch deleting a defaulted field gets the default back; nothing changes, no write.
  Json patched = mergePatch(kGizmos, "default", "g", {{"spec", {{"mode", nullptr}}}});
  EXPECT_EQ(patched["spec"]["mode"], "Fast");
  EXPECT_EQ(rv(patched), rv(updated));
}

TEST_F(SchemaTest, StatusWritesAreDefaultedAndPruned) {
  Json g = create(kGizmos, gizmo("g"));
  g["status"] = {{"state", "ready"}, {"bogus", true}};
  Json updated = updateStatus(kGizmos, g);
  EXPECT_EQ(updated["status"], Json({{"state", "ready"}, {"succeeded", 0}}));
}

// A status write keeps only the body's status, decoded; what else the body carries, known to the
// schema or not, leaves the stored object as it was.
TEST_F(SchemaTest, StatusWritesKeepTheStoredSpecWhateverTheBodyCarries) {
  Json g = create(kGizmos, gizmo("g"));
  Json body = g;
  body["spec"]["bogus"] = "pruned on a create, ignored here";
  body["spec"]["size"] = 4;
  body["spec"].erase("replicas");
  body["status"] = {{"state", "ready"}, {"bogus", true}, {"succeeded", nullptr}};
  Json updated = updateStatus(kGizmos, body);
  EXPECT_EQ(updated["spec"], g["spec"]);
  EXPECT_EQ(updated["status"], Json({{"state", "ready"}, {"succeeded", 0}}));
  EXPECT_EQ(meta::generation(updated), meta::generation(g));
  EXPECT_EQ(get(kGizmos, "default", "g"), updated);

  // A body without status clears it, and the schema's defaults below status do not apply to a
  // status that is not there (status itself has no default).
  Json cleared = g;
  cleared["metadata"]["resourceVersion"] = updated["metadata"]["resourceVersion"];
  cleared.erase("status");
  Json after = updateStatus(kGizmos, cleared);
  EXPECT_FALSE(after.contains("status")) << after.dump();
  EXPECT_EQ(after["spec"], g["spec"]);
}

TEST_F(SchemaTest, ReadsFromStorageAreDefaultedAndPrunedByTheCurrentSchema) {
  Json g = create(kGizmos, gizmo("g", {{"size", 2}, {"name", "abc"}}));
  const std::int64_t written = server->revision();

  // The definition gains a defaulted field and loses `name`.
  Json crd = get(kCustomResourceDefinitions, "", "gizmos.example.com");
  Json& spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
  spec["properties"]["priority"] = {{"type", "integer"}, {"default", 7}};
  spec["properties"].erase("name");
  update(kCustomResourceDefinitions, crd);
  const std::int64_t afterCrd = server->revision();

  Json read = get(kGizmos, "default", "g");
  EXPECT_EQ(read["spec"]["priority"], 7);
  EXPECT_FALSE(read["spec"].contains("name"));
  // Decoded on read: the stored object was not written again.
  EXPECT_EQ(rv(read), rv(g));
  EXPECT_EQ(server->revision(), afterCrd);
  EXPECT_GT(afterCrd, written);

  Json items = list(kGizmos, "default")["items"];
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0], read);

  auto w = must<std::shared_ptr<Watch>>(server->watch(kGizmos, "default", {}), "watch");
  auto first = w->tryNext();
  ASSERT_TRUE(first);
  EXPECT_EQ(*first->object, read);
  w->stop();

  // An update starts from the decoded object: the default is no spec change.
  Json touched = read;
  meta::setLabel(touched, "touched", "yes");
  Json updated = update(kGizmos, touched);
  EXPECT_EQ(meta::generation(updated), 1);
  EXPECT_EQ(updated["spec"]["priority"], 7);
}

// --- pruning ---

TEST_F(SchemaTest, UnknownFieldsArePrunedAtEveryLevel) {
  Json object = gizmo("g", {{"size", 2},
                            {"unknown", 1},
                            {"workers", {{{"name", "a"}, {"extra", "x"}}}},
                            {"group", {{"numOfHosts", 2}, {"bogus", {{"deep", 1}}}}}});
  object["extra"] = "root";
  object["metadata"]["notObjectMeta"] = "x";
  object["metadata"]["labels"] = {{"app", "g"}};
  Json g = create(kGizmos, object);
  EXPECT_FALSE(g.contains("extra"));
  EXPECT_FALSE(g["metadata"].contains("notObjectMeta"));
  EXPECT_EQ(g["metadata"]["labels"], Json({{"app", "g"}}));
  EXPECT_FALSE(g["spec"].contains("unknown"));
  EXPECT_EQ(g["spec"]["workers"], Json::array({{{"name", "a"}, {"numOfHosts", 1}}}));
  EXPECT_EQ(g["spec"]["group"], Json({{"numOfHosts", 2}, {"maxReplicas", 2147483647}}));
}

TEST_F(SchemaTest, PreserveUnknownFieldsKeepsUnknownKeysButPrunesBelowItsProperties) {
  Json template_ = {{"metadata", {{"labels", {{"a", "b"}}}, {"junk", 1}}},
                    {"spec", {{"containers", {{{"name", "c"}, {"image", "i"}}}}}}};
  Json g = create(kGizmos, gizmo("g", {{"size", 2},
                                       {"template", template_},
                                       {"free", {{"anything", {{"goes", {1, 2}}}}}}}));
  EXPECT_EQ(g["spec"]["template"]["spec"], template_["spec"]);
  EXPECT_EQ(g["spec"]["template"]["metadata"], Json({{"labels", {{"a", "b"}}}}));
  EXPECT_EQ(g["spec"]["free"], Json({{"anything", {{"goes", {1, 2}}}}}));
}

TEST_F(SchemaTest, EmbeddedResourceKeepsApiVersionKindAndObjectMeta) {
  Json embedded = {{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata", {{"name", "x"}, {"junk", 1}}},
                   {"data", {{"k", "v"}}},
                   {"other", 2}};
  Json g = create(kGizmos, gizmo("g", {{"size", 2}, {"embedded", embedded}}));
  EXPECT_EQ(g["spec"]["embedded"], Json({{"apiVersion", "v1"},
                                         {"kind", "ConfigMap"},
                                         {"metadata", {{"name", "x"}}},
                                         {"data", {{"k", "v"}}}}));
}

TEST_F(SchemaTest, AdditionalPropertiesKeepEveryKeyAndIntOrStringTakesBoth) {
  Json g = create(
      kGizmos, gizmo("g", {{"size", 2}, {"labels", {{"a", "1"}, {"b", "2"}}}, {"port", "http"}}));
  EXPECT_EQ(g["spec"]["labels"], Json({{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(g["spec"]["port"], "http");
  Json h = create(kGizmos, gizmo("h", {{"size", 2}, {"port", 8080}}));
  EXPECT_EQ(h["spec"]["port"], 8080);
}

TEST_F(SchemaTest, AKindWithoutSchemaKeepsEverything) {
  installWidgetCrd();  // x-kubernetes-preserve-unknown-fields at the root
  Json w = widget("w");
  w["spec"]["anything"] = {{"x", 1}};
  w["extra"] = true;
  Json created = create(kWidgets, w);
  EXPECT_EQ(created["spec"]["anything"], Json({{"x", 1}}));
  EXPECT_EQ(created["extra"], true);
}

// --- validation: kube-apiserver's messages ---

TEST_F(SchemaTest, TypeIsChecked) {
  Status s = refusedCreate({{"size", "three"}});
  EXPECT_EQ(s.code, 422);
  EXPECT_EQ(s.reason, "Invalid");
  EXPECT_EQ(
      s.message,
      "Gizmo.example.com \"g\" is invalid: spec.size: Invalid value: \"string\": spec.size in "
      "body must be of type integer: \"string\"");
  ASSERT_EQ(s.details.causes.size(), 1u);
  EXPECT_EQ(
      s.details.causes[0],
      cause("FieldValueTypeInvalid",
            "Invalid value: \"string\": spec.size in body must be of type integer: \"string\"",
            "spec.size"));
  EXPECT_EQ(s.details.group, "example.com");
  EXPECT_EQ(s.details.kind, "Gizmo");
}

TEST_F(SchemaTest, IntegerIsNotNumberButTwoPointZeroIsAnInteger) {
  EXPECT_EQ(
      refusedMessage({{"size", 2.5}}),
      "Gizmo.example.com \"g\" is invalid: spec.size: Invalid value: \"number\": spec.size in "
      "body must be of type integer: \"number\"");
  create(kGizmos, gizmo("g", {{"size", 2.0}}));
  // An integer is a number.
  create(kGizmos, gizmo("h", {{"size", 2}, {"ratio", 0.5}}));
}

TEST_F(SchemaTest, MinimumAndMaximum) {
  EXPECT_EQ(refusedMessage({{"size", 0}}),
            "Gizmo.example.com \"g\" is invalid: spec.size: Invalid value: 0: spec.size in body "
            "should be greater than or equal to 1");
  EXPECT_EQ(refusedMessage({{"size", 9}}),
            "Gizmo.example.com \"g\" is invalid: spec.size: Invalid value: 9: spec.size in body "
            "should be less than or equal to 5");
}

TEST_F(SchemaTest, ExclusiveMinimumAndMaximum) {
  EXPECT_EQ(refusedMessage({{"size", 1}, {"ratio", 1}}),
            "Gizmo.example.com \"g\" is invalid: spec.ratio: Invalid value: 1: spec.ratio in body "
            "should be less than 1");
  EXPECT_EQ(refusedMessage({{"size", 1}, {"ratio", 1.5}}),
            "Gizmo.example.com \"g\" is invalid: spec.ratio: Invalid value: 1.5: spec.ratio in "
            "body should be less than 1");
  EXPECT_EQ(refusedMessage({{"size", 1}, {"ratio", 0}}),
            "Gizmo.example.com \"g\" is invalid: spec.ratio: Invalid value: 0: spec.ratio in body "
            "should be greater than 0");
}

TEST_F(SchemaTest, Enum) {
  Status s = refusedCreate({{"size", 1}, {"mode", "Medium"}});
  EXPECT_EQ(s.message,
            "Gizmo.example.com \"g\" is invalid: spec.mode: Unsupported value: \"Medium\": "
            "supported values: \"Fast\", \"Slow\"");
  EXPECT_EQ(s.details.causes.at(0).reason, "FieldValueNotSupported");
}

TEST_F(SchemaTest, Required) {
  Status s = refusedCreate({{"replicas", 2}});
  EXPECT_EQ(s.message, "Gizmo.example.com \"g\" is invalid: spec.size: Required value");
  EXPECT_EQ(s.details.causes.at(0), cause("FieldValueRequired", "Required value", "spec.size"));
}

TEST_F(SchemaTest, PatternMaxLengthAndMinLength) {
  EXPECT_EQ(refusedMessage({{"size", 1}, {"name", "ab1"}}),
            "Gizmo.example.com \"g\" is invalid: spec.name: Invalid value: \"ab1\": spec.name in "
            "body should match '^[a-z]+$'");
  EXPECT_EQ(
      refusedMessage({{"size", 1}, {"name", "abcdef"}}),
      "Gizmo.example.com \"g\" is invalid: spec.name: Too long: may not be more than 5 bytes");
  EXPECT_EQ(refusedMessage({{"size", 1}, {"name", "a"}}),
            "Gizmo.example.com \"g\" is invalid: spec.name: Invalid value: \"a\": spec.name in "
            "body should be at least 2 chars long");
}

TEST_F(SchemaTest, MaxItemsAndMinItems) {
  EXPECT_EQ(
      refusedMessage({{"size", 1}, {"tags", {"a", "b", "c"}}}),
      "Gizmo.example.com \"g\" is invalid: spec.tags: Too many: 3: must have at most 2 items");
  EXPECT_EQ(refusedMessage({{"size", 1}, {"tags", Json::array()}}),
            "Gizmo.example.com \"g\" is invalid: spec.tags: Invalid value: 0: spec.tags in body "
            "should have at least 1 items");
}

TEST_F(SchemaTest, NullableAndNullItems) {
  EXPECT_EQ(refusedMessage({{"size", 1}, {"tags", {nullptr}}}),
            "Gizmo.example.com \"g\" is invalid: spec.tags[0]: Invalid value: \"null\": "
            "spec.tags[0] in body must be of type string: \"null\"");
}

TEST_F(SchemaTest, IntOrStringAndFormat) {
  EXPECT_EQ(refusedMessage({{"size", 1}, {"port", true}}),
            "Gizmo.example.com \"g\" is invalid: spec.port: Invalid value: \"boolean\": spec.port "
            "in body must be of type integer,string: \"boolean\"");
  EXPECT_EQ(refusedMessage({{"size", 1}, {"started", "yesterday"}}),
            "Gizmo.example.com \"g\" is invalid: spec.started: Invalid value: \"yesterday\": "
            "spec.started in body must be of type date-time: \"yesterday\"");
  create(kGizmos, gizmo("g", {{"size", 1}, {"started", "2024-01-01T00:00:00Z"}}));
}

TEST_F(SchemaTest, ErrorsAreAggregatedInPathOrder) {
  EXPECT_EQ(refusedMessage({{"size", 9}, {"mode", "Medium"}, {"workers", {{{"name", 3}}}}}),
            "Gizmo.example.com \"g\" is invalid: [spec.mode: Unsupported value: \"Medium\": "
            "supported values: \"Fast\", \"Slow\", spec.size: Invalid value: 9: spec.size in body "
            "should be less than or equal to 5, spec.workers[0].name: Invalid value: \"integer\": "
            "spec.workers[0].name in body must be of type string: \"integer\"]");
}

TEST_F(SchemaTest, RefusedUpdatePatchAndStatusWriteLeaveTheObjectAsItWas) {
  Json g = create(kGizmos, gizmo("g"));
  const std::int64_t before = server->revision();

  Json bad = g;
  bad["spec"]["size"] = "big";
  auto updated = server->update(kGizmos, "", bad);
  ASSERT_FALSE(updated);
  EXPECT_EQ(updated.error().code, 422);

  auto patched =
      server->patch(kGizmos, "default", "g", PatchType::Merge, R"({"spec":{"size":null}})");
  EXPECT_TRUE(failsWith(patched, 422, "Invalid",
                        "Gizmo.example.com \"g\" is invalid: spec.size: Required value"));

  Json badStatus = g;
  badStatus["status"] = {{"succeeded", "many"}};
  EXPECT_TRUE(
      failsWith(server->updateStatus(kGizmos, "", badStatus), 422, "Invalid",
                "Gizmo.example.com \"g\" is invalid: status.succeeded: Invalid value: "
                "\"string\": status.succeeded in body must be of type integer: \"string\""));

  EXPECT_EQ(server->revision(), before);
  EXPECT_EQ(get(kGizmos, "default", "g"), g);
}

// CRDValidationRatcheting: after the schema tightens, an update that leaves the now invalid
// value as it was passes (status writes and other spec edits alike); one that changes it is
// checked, and so is the status a status write brings.
TEST_F(SchemaTest, UpdatesRatchetUnchangedValuesThatALaterSchemaRefuses) {
  Json g = create(kGizmos, gizmo("g", {{"size", 4}, {"tags", {"a"}}}));
  Json crd = get(kCustomResourceDefinitions, "", "gizmos.example.com");
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
     ["size"]["maximum"] = 3;
  update(kCustomResourceDefinitions, crd);
  EXPECT_EQ(refusedCreate({{"size", 4}}).code, 422) << "a create is checked in full";

  Json withStatus = get(kGizmos, "default", "g");
  withStatus["status"] = {{"state", "Ready"}};
  Json afterStatus = updateStatus(kGizmos, withStatus);
  EXPECT_EQ(afterStatus["status"]["state"], "Ready");

  Json otherEdit = afterStatus;
  otherEdit["spec"]["tags"] = {"b"};
  Json afterEdit = update(kGizmos, otherEdit);
  EXPECT_EQ(afterEdit["spec"]["tags"], Json({"b"}));
  EXPECT_EQ(afterEdit["spec"]["size"], 4);

  const std::int64_t before = server->revision();
  Json changed = afterEdit;
  changed["spec"]["size"] = 5;
  EXPECT_TRUE(failsWith(server->update(kGizmos, "", changed), 422, "Invalid",
                        "Gizmo.example.com \"g\" is invalid: spec.size: Invalid value: 5: "
                        "spec.size in body should be less than or equal to 3"));
  Json badStatus = afterEdit;
  badStatus["status"] = {{"succeeded", "many"}};
  EXPECT_EQ(server->updateStatus(kGizmos, "", badStatus).error().code, 422)
      << "the status a write brings is checked";
  EXPECT_EQ(server->revision(), before);
}

// A status write validates `.status` alone, against the schema's status property
// (kube-apiserver's status strategy): a rule outside it that the stored object breaks, here a
// root `required` the schema gained after the object was created, refuses a spec update but not
// a status write.
TEST_F(SchemaTest, AStatusWriteValidatesTheStatusAlone) {
  Json bare = gizmo("g");
  bare.erase("spec");
  Json g = create(kGizmos, bare);
  Json crd = get(kCustomResourceDefinitions, "", "gizmos.example.com");
  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["required"] = {"spec"};
  update(kCustomResourceDefinitions, crd);

  Json withStatus = get(kGizmos, "default", "g");
  withStatus["status"] = {{"state", "Ready"}};
  EXPECT_EQ(updateStatus(kGizmos, withStatus)["status"]["state"], "Ready");

  Json relabelled = get(kGizmos, "default", "g");
  relabelled["metadata"]["labels"] = {{"team", "a"}};
  EXPECT_TRUE(failsWith(server->update(kGizmos, "", relabelled), 422, "Invalid",
                        "Gizmo.example.com \"g\" is invalid: spec: Required value"));
  Json badStatus = get(kGizmos, "default", "g");
  badStatus["status"] = {{"state", 3}};
  EXPECT_TRUE(failsWith(server->updateStatus(kGizmos, "", badStatus), 422, "Invalid",
                        "Gizmo.example.com \"g\" is invalid: status.state: Invalid value: "
                        "\"integer\": status.state in body must be of type string: \"integer\""));
}

TEST_F(SchemaTest, DryRunIsValidatedAndDefaultedWithoutAWrite) {
  const std::int64_t before = server->revision();
  CreateOptions dryRun;
  dryRun.dryRun = true;
  Json g = must(server->create(kGizmos, "", gizmo("g"), dryRun));
  EXPECT_EQ(g["spec"]["replicas"], 1);
  EXPECT_FALSE(server->create(kGizmos, "", gizmo("g", {{"size", 0}}), dryRun));
  EXPECT_EQ(server->revision(), before);
}

// --- the definition ---

TEST_F(SchemaTest, TheSchemaIsCompiledOncePerDefinitionChange) {
  auto schemaNow = [&] {
    auto info = server->registry().find("example.com", "gizmos");
    return info->schemaFor("v1");
  };
  const StructuralSchema* compiled = schemaNow();
  ASSERT_NE(compiled, nullptr);
  create(kGizmos, gizmo("g"));
  get(kGizmos, "default", "g");
  EXPECT_EQ(schemaNow(), compiled);

  // A metadata-only change of the definition keeps the compiled schema.
  Json crd = get(kCustomResourceDefinitions, "", "gizmos.example.com");
  meta::setLabel(crd, "team", "a");
  crd = update(kCustomResourceDefinitions, crd);
  EXPECT_EQ(schemaNow(), compiled);

  crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
     ["extra"] = {{"type", "string"}};
  update(kCustomResourceDefinitions, crd);
  EXPECT_NE(schemaNow(), compiled);
}

TEST_F(SchemaTest, AnInvalidSchemaRefusesTheDefinition) {
  Json schema = yaml(kGizmoSchema);
  schema["properties"]["spec"]["properties"]["size"]["type"] = "int";
  Json crd = gizmoCrd(schema);
  crd["metadata"]["name"] = "gadgets.example.com";
  crd["spec"]["names"] = {{"plural", "gadgets"}, {"kind", "Gadget"}};
  auto r = server->create(kCustomResourceDefinitions, "", crd);
  EXPECT_TRUE(failsWith(
      r, 422, "Invalid",
      "CustomResourceDefinition.apiextensions.k8s.io \"gadgets.example.com\" is invalid: "
      "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type: "
      "Unsupported value: \"int\": supported values: \"array\", \"boolean\", \"integer\", "
      "\"number\", \"object\", \"string\""));
}

TEST_F(SchemaTest, DeepSchemasAreRefusedAndDeepDocumentsDoNotRecurse) {
  Json deep = {{"type", "object"}};
  for (std::size_t i = 0; i < StructuralSchema::kMaxDepth + 5; ++i) {
    deep = {{"type", "object"}, {"properties", {{"a", deep}}}};
  }
  FieldErrors errors;
  EXPECT_EQ(StructuralSchema::compile(deep, "s", errors), nullptr);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].detail, "must not be nested deeper than 256 levels");

  // A document far deeper than its schema: pruned without following it down.
  Json value = Json::object();
  for (int i = 0; i < 5000; ++i) {
    Json outer = Json::array();
    outer.push_back(std::move(value));
    value = std::move(outer);
  }
  Json g = gizmo("g", {{"size", 1}, {"free", {{"deep", value}}}, {"tags", {"a"}}});
  g["spec"]["workers"] = Json::array({Json::array({value})});
  auto r = server->create(kGizmos, "", g);
  ASSERT_FALSE(r);  // workers[0] is no object
  EXPECT_EQ(r.error().message,
            "Gizmo.example.com \"g\" is invalid: spec.workers[0]: Invalid value: \"array\": "
            "spec.workers[0] in body must be of type object: \"array\"");
}

}  // namespace
}  // namespace fakekube::apitest
