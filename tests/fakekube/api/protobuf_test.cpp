#include "fakekube/api/internal/protobuf.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>

#include "fakekube/api/internal/protobuf_schema.h"

namespace fakekube {
namespace {

// A protobuf message written the way gogo-protobuf's generated Marshal writes it: tags in the order
// the caller adds them, varints, length-delimited strings and sub-messages.
class Message {
 public:
  Message& varint(int field, std::uint64_t value) {
    tag(field, 0);
    putVarint(value);
    return *this;
  }
  Message& string(int field, std::string_view value) {
    tag(field, 2);
    putVarint(value.size());
    bytes_ += value;
    return *this;
  }
  Message& message(int field, const Message& nested) { return string(field, nested.bytes()); }
  // A map<string, string> entry {key=1, value=2}.
  Message& entry(int field, std::string_view key, std::string_view value) {
    return message(field, Message().string(1, key).string(2, value));
  }
  Message& entry(int field, std::string_view key, const Message& value) {
    return message(field, Message().string(1, key).message(2, value));
  }
  // Raw bytes, for malformed input.
  Message& raw(std::string_view bytes) {
    bytes_ += bytes;
    return *this;
  }
  Message& tag(int field, int wireType) {
    putVarint((static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(wireType));
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  void putVarint(std::uint64_t value) {
    while (value >= 0x80) {
      bytes_ += static_cast<char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    bytes_ += static_cast<char>(value);
  }
  std::string bytes_;
};

// The "k8s\0" magic and the runtime.Unknown envelope around `object`, as client-go writes them.
std::string body(std::string_view apiVersion, std::string_view kind, const Message& object) {
  return std::string("k8s\0", 4) + Message()
                                       .message(1, Message().string(1, apiVersion).string(2, kind))
                                       .string(2, object.bytes())
                                       .string(3, "")
                                       .string(4, "")
                                       .bytes();
}

// ObjectMeta as gogo writes it for a fresh object: every non-pointer field, the empty Time.
Message objectMeta(std::string_view name, std::string_view ns = "") {
  return Message()
      .string(1, name)
      .string(2, "")
      .string(3, ns)
      .string(4, "")
      .string(5, "")
      .string(6, "")
      .varint(7, 0)
      .message(8, Message());
}

Message quantity(std::string_view text) { return Message().string(1, text); }
Message intOrString(int value) { return Message().varint(1, 0).varint(2, value); }
Message intOrString(std::string_view value) {
  return Message().varint(1, 1).varint(2, 0).string(3, value);
}

Json protobufDecoded(const std::string& bytes) {
  auto result = decodeKubernetesProtobuf(bytes);
  EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().str());
  return result ? *result : Json();
}

Status failure(const std::string& bytes) {
  auto result = decodeKubernetesProtobuf(bytes);
  EXPECT_FALSE(result.has_value()) << (result ? result->dump() : "");
  return result ? Status() : result.error();
}

#define EXPECT_JSON(actual, expectedText)                                            \
  do {                                                                               \
    Json expectedJson = Json::parse(expectedText);                                   \
    EXPECT_EQ((actual), expectedJson)                                                \
        << "actual:   " << (actual).dump() << "\nexpected: " << expectedJson.dump(); \
  } while (0)

TEST(ProtobufTest, ConfigMapWithDataLabelsAndAnnotations) {
  Message meta = objectMeta("web-config", "prod")
                     .entry(11, "app", "web")
                     .entry(11, "tier", "frontend")
                     .entry(12, "note", "x");
  Message configMap =
      Message().message(1, meta).entry(2, "a", "1").entry(2, "empty", "").varint(4, 0);
  EXPECT_JSON(protobufDecoded(body("v1", "ConfigMap", configMap)), R"({
    "apiVersion": "v1", "kind": "ConfigMap",
    "metadata": {"name": "web-config", "namespace": "prod", "creationTimestamp": null,
                 "labels": {"app": "web", "tier": "frontend"}, "annotations": {"note": "x"}},
    "data": {"a": "1", "empty": ""},
    "immutable": false})");
}

TEST(ProtobufTest, SecretBytesBecomeBase64) {
  Message secret = Message()
                       .message(1, objectMeta("creds"))
                       .entry(2, "token", std::string("\x00\x01\xff", 3))
                       .entry(2, "empty", "")
                       .entry(4, "plain", "text")
                       .string(3, "Opaque");
  EXPECT_JSON(protobufDecoded(body("v1", "Secret", secret)), R"({
    "apiVersion": "v1", "kind": "Secret",
    "metadata": {"name": "creds", "creationTimestamp": null},
    "data": {"token": "AAH/", "empty": ""},
    "stringData": {"plain": "text"},
    "type": "Opaque"})");
}

// What `kubectl create deployment web --image=nginx --replicas=2` builds, written as gogo writes
// it: every non-pointer scalar and struct present, zero or not.
Message kubectlDeployment(std::uint64_t replicas) {
  Message labels = Message().entry(11, "app", "web");
  Message container = Message()
                          .string(1, "nginx")
                          .string(2, "nginx")
                          .string(5, "")
                          .message(8, Message())
                          .string(13, "")
                          .string(14, "")
                          .varint(16, 0)
                          .varint(17, 0)
                          .varint(18, 0)
                          .string(20, "");
  Message podSpec = Message().message(2, container);
  for (int field : {3, 6, 8, 9, 10}) podSpec.string(field, "");
  for (int field : {11, 12, 13}) podSpec.varint(field, 0);
  for (int field : {16, 17, 19, 24}) podSpec.string(field, "");
  Message templateMeta = objectMeta("").entry(11, "app", "web");
  Message spec = Message()
                     .varint(1, replicas)
                     .message(2, Message().entry(1, "app", "web"))
                     .message(3, Message().message(1, templateMeta).message(2, podSpec))
                     .message(4, Message().string(1, ""))
                     .varint(5, 0)
                     .varint(7, 0);
  Message status = Message();
  for (int field : {1, 2, 3, 4, 5, 7}) status.varint(field, 0);
  return Message()
      .message(1, objectMeta("web").raw(labels.bytes()))
      .message(2, spec)
      .message(3, status);
}

TEST(ProtobufTest, DeploymentAsKubectlCreateDeploymentSendsIt) {
  EXPECT_JSON(protobufDecoded(body("apps/v1", "Deployment", kubectlDeployment(2))), R"({
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "creationTimestamp": null, "labels": {"app": "web"}},
    "spec": {
      "replicas": 2,
      "selector": {"matchLabels": {"app": "web"}},
      "template": {
        "metadata": {"creationTimestamp": null, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx", "resources": {}}]}},
      "strategy": {}},
    "status": {}})");
}

// replicas is a pointer: a zero on the wire was chosen by the client and must not become "unset"
// (which the server would default to 1). minReadySeconds is omitempty and stays dropped.
TEST(ProtobufTest, PointerFieldsKeepTheirZero) {
  Json deployment = protobufDecoded(body("apps/v1", "Deployment", kubectlDeployment(0)));
  EXPECT_EQ(deployment["spec"]["replicas"], 0);
  EXPECT_FALSE(deployment["spec"].contains("minReadySeconds"));
  EXPECT_FALSE(deployment["spec"].contains("paused"));
}

TEST(ProtobufTest, NamespaceWithSpecFinalizers) {
  Message ns = Message()
                   .message(1, objectMeta("team"))
                   .message(2, Message().string(1, "kubernetes"))
                   .message(3, Message().string(1, ""));
  EXPECT_JSON(protobufDecoded(body("v1", "Namespace", ns)), R"({
    "apiVersion": "v1", "kind": "Namespace",
    "metadata": {"name": "team", "creationTimestamp": null},
    "spec": {"finalizers": ["kubernetes"]},
    "status": {}})");
}

TEST(ProtobufTest, JobKeepsBackoffLimitZeroAndDropsZeroStatusCounters) {
  Message container =
      Message().string(1, "j").string(2, "busybox").string(3, "echo").string(3, "hi");
  Message podSpec = Message().message(2, container).string(3, "Never");
  Message spec = Message()
                     .varint(2, 3)
                     .varint(7, 0)
                     .message(6, Message().message(1, objectMeta("")).message(2, podSpec))
                     .varint(8, 100)
                     .varint(10, 0);
  Message status = Message().varint(4, 0).varint(5, 0).varint(6, 0).string(7, "");
  Message job = Message().message(1, objectMeta("j")).message(2, spec).message(3, status);
  EXPECT_JSON(protobufDecoded(body("batch/v1", "Job", job)), R"({
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "j", "creationTimestamp": null},
    "spec": {
      "completions": 3, "backoffLimit": 0, "ttlSecondsAfterFinished": 100, "suspend": false,
      "template": {
        "metadata": {"creationTimestamp": null},
        "spec": {"containers": [{"name": "j", "image": "busybox", "command": ["echo", "hi"]}],
                 "restartPolicy": "Never"}}},
    "status": {}})");
}

TEST(ProtobufTest, ServicePortsWithIntAndStringTargetPorts) {
  Message spec = Message()
                     .message(1, Message()
                                     .string(1, "http")
                                     .string(2, "TCP")
                                     .varint(3, 80)
                                     .message(4, intOrString(8080))
                                     .varint(5, 0))
                     .message(1, Message()
                                     .string(1, "https")
                                     .string(2, "TCP")
                                     .varint(3, 443)
                                     .message(4, intOrString("https"))
                                     .varint(5, 30443))
                     .entry(2, "app", "web")
                     .string(3, "")
                     .string(4, "NodePort")
                     .varint(12, 0)
                     .varint(13, 0);
  Message service = Message()
                        .message(1, objectMeta("web"))
                        .message(2, spec)
                        .message(3, Message().message(1, Message()));
  EXPECT_JSON(protobufDecoded(body("v1", "Service", service)), R"({
    "apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "web", "creationTimestamp": null},
    "spec": {
      "ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 8080},
                {"name": "https", "protocol": "TCP", "port": 443, "targetPort": "https",
                 "nodePort": 30443}],
      "selector": {"app": "web"},
      "type": "NodePort"},
    "status": {"loadBalancer": {}}})");
}

TEST(ProtobufTest, TimesAreRfc3339AndEmptyTimesAreNull) {
  // metav1.Time keeps seconds only; MicroTime keeps microseconds.
  Message meta = Message()
                     .string(1, "lease")
                     .message(8, Message().varint(1, 1704067200).varint(2, 999999999))
                     .message(9, Message().varint(1, 0));
  Message spec = Message()
                     .string(1, "me")
                     .varint(2, 15)
                     .message(3, Message())
                     .message(4, Message().varint(1, 1704067230).varint(2, 123456789))
                     .varint(5, 0);
  Message lease = Message().message(1, meta).message(2, spec);
  EXPECT_JSON(protobufDecoded(body("coordination.k8s.io/v1", "Lease", lease)), R"({
    "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
    "metadata": {"name": "lease", "creationTimestamp": "2024-01-01T00:00:00Z",
                 "deletionTimestamp": "1970-01-01T00:00:00Z"},
    "spec": {"holderIdentity": "me", "leaseDurationSeconds": 15, "acquireTime": null,
             "renewTime": "2024-01-01T00:00:30.123456Z", "leaseTransitions": 0}})");
}

TEST(ProtobufTest, PodWithProbesEnvVolumesAndSecurityContext) {
  Message probe = Message()
                      .message(1, Message().message(2, Message()
                                                           .string(1, "/healthz")
                                                           .message(2, intOrString("http"))
                                                           .string(4, "HTTP")))
                      .varint(2, 5)
                      .varint(3, 0)
                      .varint(4, 10);
  Message tcpProbe =
      Message().message(1, Message().message(3, Message().message(1, intOrString(5432))));
  Message execProbe =
      Message().message(1, Message().message(1, Message().string(1, "cat").string(1, "/ok")));
  Message env =
      Message()
          .string(1, "PASSWORD")
          .string(2, "")
          .message(3,
                   Message().message(
                       4, Message().message(1, Message().string(1, "db")).string(2, "password")));
  Message envFrom = Message().string(1, "CFG_").message(
      2, Message().message(1, Message().string(1, "settings")).varint(2, 1));
  Message securityContext =
      Message().message(1, Message().string(2, "ALL")).varint(4, 0).varint(6, 1).varint(7, 0);
  Message container =
      Message()
          .string(1, "app")
          .string(2, "app:1")
          .message(6, Message().string(1, "http").varint(3, 8080))
          .message(7, Message().string(1, "MODE").string(2, "prod"))
          .message(7, env)
          .message(19, envFrom)
          .message(
              8, Message().entry(1, "cpu", quantity("500m")).entry(2, "memory", quantity("128Mi")))
          .message(9, Message().string(1, "data").varint(2, 1).string(3, "/data"))
          .message(10, probe)
          .message(11, tcpProbe)
          .message(22, execProbe)
          .message(12, Message().message(2, Message().message(4, Message().varint(1, 5))))
          .message(15, securityContext);
  Message volumes[] = {
      Message().string(1, "data").message(
          2, Message().message(10, Message().string(1, "data-pvc").varint(2, 0))),
      Message()
          .string(1, "cache")
          .message(2,
                   Message().message(2, Message().string(1, "Memory").message(2, quantity("1Gi")))),
      Message().string(1, "cfg").message(
          2, Message().message(19, Message()
                                       .message(1, Message().string(1, "settings"))
                                       .message(2, Message().string(1, "a").string(2, "a.conf"))
                                       .varint(3, 420))),
      Message().string(1, "tls").message(
          2, Message().message(6, Message().string(1, "tls-secret").varint(4, 0))),
      Message().string(1, "host").message(
          2, Message().message(1, Message().string(1, "/var/log").string(2, "Directory"))),
  };
  Message podSpec = Message();
  for (const Message& volume : volumes) podSpec.message(1, volume);
  podSpec.message(2, container)
      .message(20, Message().string(1, "init").string(2, "busybox"))
      .string(3, "Always")
      .varint(4, 0)
      .entry(7, "disk", "ssd")
      .varint(21, 0)
      .message(14, Message().varint(2, 1000).varint(3, 1).varint(4, 2000).varint(4, 3000))
      .message(22, Message()
                       .string(1, "dedicated")
                       .string(2, "Equal")
                       .string(3, "gpu")
                       .string(4, "NoSchedule")
                       .varint(5, 60))
      .message(15, Message().string(1, "registry"));
  Message pod = Message().message(1, objectMeta("app-0", "prod")).message(2, podSpec);
  EXPECT_JSON(protobufDecoded(body("v1", "Pod", pod)), R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "app-0", "namespace": "prod", "creationTimestamp": null},
    "spec": {
      "volumes": [
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-pvc"}},
        {"name": "cache", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}},
        {"name": "cfg", "configMap": {"name": "settings", "items": [{"key": "a", "path": "a.conf"}],
                                      "defaultMode": 420}},
        {"name": "tls", "secret": {"secretName": "tls-secret", "optional": false}},
        {"name": "host", "hostPath": {"path": "/var/log", "type": "Directory"}}],
      "containers": [{
        "name": "app", "image": "app:1",
        "ports": [{"name": "http", "containerPort": 8080}],
        "env": [{"name": "MODE", "value": "prod"},
                {"name": "PASSWORD",
                 "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}],
        "envFrom": [{"prefix": "CFG_", "configMapRef": {"name": "settings", "optional": true}}],
        "resources": {"limits": {"cpu": "500m"}, "requests": {"memory": "128Mi"}},
        "volumeMounts": [{"name": "data", "readOnly": true, "mountPath": "/data"}],
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
                          "initialDelaySeconds": 5, "periodSeconds": 10},
        "readinessProbe": {"tcpSocket": {"port": 5432}},
        "startupProbe": {"exec": {"command": ["cat", "/ok"]}},
        "lifecycle": {"preStop": {"sleep": {"seconds": 5}}},
        "securityContext": {"capabilities": {"drop": ["ALL"]}, "runAsUser": 0,
                            "readOnlyRootFilesystem": true, "allowPrivilegeEscalation": false}}],
      "initContainers": [{"name": "init", "image": "busybox"}],
      "restartPolicy": "Always",
      "terminationGracePeriodSeconds": 0,
      "nodeSelector": {"disk": "ssd"},
      "automountServiceAccountToken": false,
      "securityContext": {"runAsUser": 1000, "runAsNonRoot": true,
                          "supplementalGroups": [2000, 3000]},
      "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "gpu",
                       "effect": "NoSchedule", "tolerationSeconds": 60}],
      "imagePullSecrets": [{"name": "registry"}]}})");
}

TEST(ProtobufTest, DeleteOptionsFromAnyGroupVersion) {
  Message options = Message()
                        .varint(1, 0)
                        .message(2, Message().string(1, "uid-1").string(2, "42"))
                        .string(4, "Foreground")
                        .string(5, "All");
  EXPECT_JSON(protobufDecoded(body("apps/v1", "DeleteOptions", options)), R"({
    "apiVersion": "apps/v1", "kind": "DeleteOptions",
    "gracePeriodSeconds": 0,
    "preconditions": {"uid": "uid-1", "resourceVersion": "42"},
    "propagationPolicy": "Foreground",
    "dryRun": ["All"]})");
  // `kubectl drain` deletes pods with an empty DeleteOptions.
  EXPECT_JSON(protobufDecoded(body("v1", "DeleteOptions", Message())),
              R"({"apiVersion": "v1", "kind": "DeleteOptions"})");
}

TEST(ProtobufTest, ScaleKeepsReplicasZero) {
  Message scale = Message()
                      .message(1, objectMeta("web", "default"))
                      .message(2, Message().varint(1, 0))
                      .message(3, Message().varint(1, 2).string(2, "app=web"));
  EXPECT_JSON(protobufDecoded(body("autoscaling/v1", "Scale", scale)), R"({
    "apiVersion": "autoscaling/v1", "kind": "Scale",
    "metadata": {"name": "web", "namespace": "default", "creationTimestamp": null},
    "spec": {"replicas": 0},
    "status": {"replicas": 2, "selector": "app=web"}})");
}

TEST(ProtobufTest, OwnerReferencesFinalizersAndManagedFields) {
  Message meta = objectMeta("rs-1")
                     .message(13, Message()
                                      .string(1, "Deployment")
                                      .string(3, "web")
                                      .string(4, "uid-9")
                                      .string(5, "apps/v1")
                                      .varint(6, 1)
                                      .varint(7, 1))
                     .string(14, "example.com/cleanup")
                     .message(17, Message()
                                      .string(1, "kubectl")
                                      .string(2, "Update")
                                      .string(3, "apps/v1")
                                      .message(4, Message().varint(1, 1704067200))
                                      .string(6, "FieldsV1")
                                      .message(7, Message().string(1, R"({"f:spec":{}})"))
                                      .string(8, ""));
  Json rs = protobufDecoded(body("apps/v1", "ReplicaSet", Message().message(1, meta)));
  EXPECT_JSON(rs["metadata"], R"({
    "name": "rs-1", "creationTimestamp": null,
    "ownerReferences": [{"kind": "Deployment", "name": "web", "uid": "uid-9",
                         "apiVersion": "apps/v1", "controller": true,
                         "blockOwnerDeletion": true}],
    "finalizers": ["example.com/cleanup"],
    "managedFields": [{"manager": "kubectl", "operation": "Update", "apiVersion": "apps/v1",
                       "time": "2024-01-01T00:00:00Z", "fieldsType": "FieldsV1",
                       "fieldsV1": {"f:spec": {}}}]})");
}

TEST(ProtobufTest, PackedAndUnpackedRepeatedIntegersAndNegativeInt32) {
  // supplementalGroups packed in one length-delimited field; -1 as a 10-byte varint.
  Message packed = Message().tag(4, 2).raw(std::string("\x02\x05\x07", 3));
  Message podSpec = Message()
                        .message(14, packed)
                        .varint(25, static_cast<std::uint64_t>(static_cast<std::int64_t>(-1)));
  Json pod = protobufDecoded(body("v1", "Pod", Message().message(2, podSpec)));
  EXPECT_EQ(pod["spec"]["securityContext"]["supplementalGroups"], Json::parse("[5, 7]"));
  EXPECT_EQ(pod["spec"]["priority"], -1);
}

// encoding/json writes a nil slice without omitempty as null; a JSON client's body has it too.
TEST(ProtobufTest, UnsetSlicesWithoutOmitemptyAreNull) {
  Json role = protobufDecoded(body("rbac.authorization.k8s.io/v1", "Role",
                                   Message().message(1, objectMeta("r")).message(2, Message())));
  EXPECT_TRUE(role.contains("rules") && role["rules"].is_array()) << role.dump();
  EXPECT_TRUE(role["rules"][0]["verbs"].is_null()) << role.dump();
  EXPECT_FALSE(role["rules"][0].contains("apiGroups")) << role.dump();
  Json pod = protobufDecoded(body("v1", "Pod", Message().message(2, Message().string(3, "Never"))));
  EXPECT_TRUE(pod["spec"].contains("containers") && pod["spec"]["containers"].is_null());
}

TEST(ProtobufTest, InvalidUtf8BecomesReplacementCharacter) {
  Json cm = protobufDecoded(body("v1", "ConfigMap",
                                 Message().entry(2, "k",
                                                 "a\xff"
                                                 "b")));
  EXPECT_EQ(cm["data"]["k"],
            "a\xef\xbf\xbd"
            "b");
}

TEST(ProtobufTest, RepeatedMessageMergesAsProtobufDoes) {
  // A message field that appears twice merges: the later scalar wins, maps and lists accumulate.
  Message cm = Message()
                   .message(1, Message().string(1, "first").entry(11, "a", "1"))
                   .message(1, Message().string(1, "second").entry(11, "b", "2"));
  EXPECT_JSON(protobufDecoded(body("v1", "ConfigMap", cm))["metadata"],
              R"({"name": "second", "labels": {"a": "1", "b": "2"}})");
}

TEST(ProtobufTest, TimeCalendarEdges) {
  auto created = [](std::int64_t seconds) {
    Message meta =
        Message().message(8, Message().varint(1, static_cast<std::uint64_t>(seconds)).varint(2, 0));
    return protobufDecoded(
        body("v1", "ConfigMap", Message().message(1, meta)))["metadata"]["creationTimestamp"];
  };
  EXPECT_EQ(created(1709210096), "2024-02-29T12:34:56Z");
  EXPECT_EQ(created(-1), "1969-12-31T23:59:59Z");
  EXPECT_EQ(created(253402300799), "9999-12-31T23:59:59Z");
  EXPECT_EQ(created(-62135596800), nullptr);  // Go's zero time written as seconds
  EXPECT_EQ(created(-62135596799), "0001-01-01T00:00:01Z");
}

// --- malformed and unsupported input ---

TEST(ProtobufTest, BadMagicIsBadRequest) {
  Status s = failure("{\"kind\":\"ConfigMap\"}");
  EXPECT_EQ(s.code, 400);
  EXPECT_EQ(s.reason, "BadRequest");
  EXPECT_EQ(failure("").code, 400);
  EXPECT_EQ(failure(std::string("k8s", 3)).code, 400);
}

TEST(ProtobufTest, TruncatedVarintIsBadRequest) {
  // generation (field 7) whose varint has its continuation bit set and then ends.
  Message meta = Message().string(1, "x").tag(7, 0).raw("\x80");
  Status s = failure(body("v1", "ConfigMap", Message().message(1, meta)));
  EXPECT_EQ(s.code, 400);
  EXPECT_NE(s.message.find("metadata"), std::string::npos) << s.message;
  // A varint longer than 10 bytes.
  Message tooLong = Message().tag(7, 0).raw(std::string(11, '\xff'));
  EXPECT_EQ(failure(body("v1", "ConfigMap", Message().message(1, tooLong))).code, 400);
}

TEST(ProtobufTest, LengthPastTheEndIsBadRequest) {
  Message cm = Message().tag(1, 2).raw("\x10\x0a\x01");  // says 16 bytes, has 2
  EXPECT_EQ(failure(body("v1", "ConfigMap", cm)).code, 400);
  // The envelope's raw field past the end of the body.
  std::string truncated = body("v1", "ConfigMap", Message().message(1, objectMeta("x")));
  truncated.resize(truncated.size() - 8);
  EXPECT_EQ(failure(truncated).code, 400);
}

TEST(ProtobufTest, WrongWireTypeForAKnownFieldIsBadRequest) {
  Status s = failure(body("v1", "ConfigMap", Message().varint(1, 5)));  // metadata as a varint
  EXPECT_EQ(s.code, 400);
  EXPECT_NE(s.message.find("metadata"), std::string::npos) << s.message;
  EXPECT_EQ(failure(body("apps/v1", "Deployment",
                         Message().message(2, Message().string(1, "two"))))  // replicas: bytes
                .code,
            400);
}

TEST(ProtobufTest, UnknownKindIsUnsupportedMediaTypeNamingTheKind) {
  Status s = failure(body("apps/v1", "StatefulSet", Message().message(1, objectMeta("db"))));
  EXPECT_EQ(s.code, 415);
  EXPECT_EQ(s.reason, "UnsupportedMediaType");
  EXPECT_NE(s.message.find("StatefulSet"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("apps/v1"), std::string::npos) << s.message;
  // A known kind in an unknown version is unknown too.
  EXPECT_EQ(failure(body("apps/v1beta1", "Deployment", Message())).code, 415);
}

TEST(ProtobufTest, UnknownFieldIsUnsupportedMediaTypeNamingMessageFieldAndPath) {
  Status top = failure(body("v1", "ConfigMap", Message().string(9, "?")));
  EXPECT_EQ(top.code, 415);
  EXPECT_NE(top.message.find("field 9 of k8s.io.api.core.v1.ConfigMap"), std::string::npos)
      << top.message;

  Message container = Message().string(1, "nginx").varint(99, 1);
  Message podSpec = Message().message(2, Message().string(1, "first")).message(2, container);
  Message deployment = Message().message(2, Message().message(3, Message().message(2, podSpec)));
  Status deep = failure(body("apps/v1", "Deployment", deployment));
  EXPECT_EQ(deep.code, 415);
  EXPECT_NE(deep.message.find("field 99 of k8s.io.api.core.v1.Container at "
                              "spec.template.spec.containers[1]"),
            std::string::npos)
      << deep.message;

  // Fields the table leaves out on purpose are reported the same way.
  Status ephemeral =
      failure(body("v1", "Pod", Message().message(2, Message().message(34, Message()))));
  EXPECT_EQ(ephemeral.code, 415);
  EXPECT_NE(ephemeral.message.find("field 34 of k8s.io.api.core.v1.PodSpec"), std::string::npos);
}

TEST(ProtobufTest, GroupWireTypeAndFieldZeroAreBadRequest) {
  EXPECT_EQ(failure(body("v1", "ConfigMap", Message().tag(1, 3))).code, 400);
  EXPECT_EQ(failure(body("v1", "ConfigMap", Message().tag(0, 0).raw("\x01"))).code, 400);
}

TEST(ProtobufTest, BadSpecialValuesAreBadRequest) {
  Message badIntOrString = Message().varint(1, 2).varint(2, 80);
  Message service = Message().message(
      2, Message().message(1, Message().varint(3, 80).message(4, badIntOrString)));
  EXPECT_EQ(failure(body("v1", "Service", service)).code, 400);

  Message farFuture = Message().message(1, Message().message(8, Message().varint(1, 1ULL << 60)));
  EXPECT_EQ(failure(body("v1", "ConfigMap", farFuture)).code, 400);

  Message badFields = Message().message(
      1, Message().message(17, Message().message(7, Message().string(1, "{not json"))));
  EXPECT_EQ(failure(body("v1", "ConfigMap", badFields)).code, 400);
}

TEST(ProtobufTest, EnvelopeRules) {
  // No kind.
  std::string noKind = std::string("k8s\0", 4) +
                       Message().message(1, Message().string(1, "v1")).string(2, "").bytes();
  EXPECT_EQ(failure(noKind).code, 400);
  // A content encoding the server does not undo.
  std::string gzip =
      std::string("k8s\0", 4) + Message()
                                    .message(1, Message().string(1, "v1").string(2, "ConfigMap"))
                                    .string(2, "")
                                    .string(3, "gzip")
                                    .bytes();
  EXPECT_EQ(failure(gzip).code, 415);
  // An empty raw object is an object with nothing set.
  EXPECT_JSON(protobufDecoded(body("v1", "ServiceAccount", Message())),
              R"({"apiVersion": "v1", "kind": "ServiceAccount"})");
}

// Every prefix and many single-byte corruptions of a real body decode or fail with 400/415.
TEST(ProtobufTest, NeverCrashesOnTruncatedOrCorruptedBodies) {
  const std::string good = body("apps/v1", "Deployment", kubectlDeployment(3));
  ASSERT_TRUE(decodeKubernetesProtobuf(good).has_value());
  for (std::size_t length = 0; length < good.size(); ++length) {
    auto result = decodeKubernetesProtobuf(std::string_view(good).substr(0, length));
    if (!result) {
      EXPECT_TRUE(result.error().code == 400 || result.error().code == 415)
          << length << ": " << result.error().str();
    }
  }
  std::mt19937 random(20240101);  // fixed seed: the same corruptions every run
  for (int round = 0; round < 4000; ++round) {
    std::string corrupted = good;
    const int edits = 1 + static_cast<int>(random() % 3);
    for (int e = 0; e < edits; ++e) {
      corrupted[4 + random() % (corrupted.size() - 4)] = static_cast<char>(random() % 256);
    }
    auto result = decodeKubernetesProtobuf(corrupted);
    if (!result) {
      EXPECT_TRUE(result.error().code == 400 || result.error().code == 415) << result.error().str();
    } else {
      EXPECT_TRUE(result->is_object());
    }
  }
}

// --- the schema table itself ---

TEST(ProtobufSchemaTest, EveryMessageReferenceResolvesAndNumbersAndNamesAreUnique) {
  for (const ProtobufMessage* message : allProtobufMessages()) {
    std::set<int> numbers;
    std::set<std::string> names;
    for (const ProtobufField& field : message->fields) {
      EXPECT_TRUE(numbers.insert(field.number).second) << message->name << " " << field.number;
      EXPECT_GT(field.number, 0) << message->name;
      if (field.inlined) {
        EXPECT_TRUE(field.jsonName.empty()) << message->name << " " << field.number;
      } else {
        EXPECT_TRUE(names.insert(field.jsonName).second) << message->name << " " << field.jsonName;
      }
      if (field.value == ProtobufValue::Message) {
        EXPECT_NE(protobufMessageNamed(field.message), nullptr)
            << message->name << "." << field.jsonName << " -> " << field.message;
      }
    }
  }
}

TEST(ProtobufSchemaTest, EveryKindHasAMessage) {
  const auto kinds = protobufKinds();
  EXPECT_GE(kinds.size(), 22u);
  for (const auto& [apiVersion, kind] : kinds) {
    EXPECT_NE(protobufMessageForKind(apiVersion, kind), nullptr) << apiVersion << " " << kind;
  }
}

}  // namespace
}  // namespace fakekube
