#include "fakekube/http/internal/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "fakekube/http/internal/partial_object_metadata.h"

namespace fakekube {

namespace {

// --- reading documents without throwing ---

const Json& field(const Json& j, std::string_view key) {
  static const Json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

const Json& at(const Json& j, std::initializer_list<std::string_view> path) {
  const Json* current = &j;
  for (auto key : path) current = &field(*current, key);
  return *current;
}

std::string text(const Json& j) { return j.is_string() ? j.get<std::string>() : ""; }

std::int64_t integer(const Json& j) {
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number_float()) return static_cast<std::int64_t>(j.get<double>());
  return 0;
}

const Json& array(const Json& j) {
  static const Json kEmpty = Json::array();
  return j.is_array() ? j : kEmpty;
}

std::string orNone(std::string s) { return s.empty() ? "<none>" : s; }

// --- columns ---

struct Column {
  std::string name;
  std::string type = "string";
  std::string format;
  std::string description;
  int priority = 0;
};

Column nameColumn() {
  return {"Name", "string", "name",
          "Name must be unique within a namespace. Is required when creating resources, although "
          "some resources may allow a client to request the generation of an appropriate name "
          "automatically. Name is primarily intended for creation idempotence and configuration "
          "definition. Cannot be updated. More info: "
          "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
          0};
}

Column ageColumn() {
  return {"Age", "string", "",
          "CreationTimestamp is a timestamp representing the server time when this object was "
          "created. It is not guaranteed to be set in happens-before order across separate "
          "operations. Clients may not set this value. It is represented in RFC3339 form and is "
          "in UTC.",
          0};
}

Column column(std::string name, std::string description, int priority = 0,
              std::string type = "string") {
  return {std::move(name), std::move(type), "", std::move(description), priority};
}

Json columnJson(const Column& c) {
  return {{"name", c.name},
          {"type", c.type},
          {"format", c.format},
          {"description", c.description},
          {"priority", c.priority}};
}

// A printer: the columns of a kind and the cells of one object.
struct Printer {
  std::vector<Column> columns;
  std::function<Json(const Json& object, TimePoint now)> cells;
};

std::string age(const Json& object, TimePoint now) {
  return humanAge(text(at(object, {"metadata", "creationTimestamp"})), now);
}

std::string name(const Json& object) { return text(at(object, {"metadata", "name"})); }

// --- pods (printPod) ---

bool restartableInit(const Json& container) {
  return text(field(container, "restartPolicy")) == "Always";
}

bool conditionTrue(const Json& status, std::string_view type) {
  for (const auto& c : array(field(status, "conditions"))) {
    if (text(field(c, "type")) == type) return text(field(c, "status")) == "True";
  }
  return false;
}

// What printPod counts and reasons while it walks a pod's containers.
struct PodReadout {
  std::string reason;
  int ready = 0;
  std::int64_t restarts = 0;
  std::int64_t restartableInitRestarts = 0;
  std::string lastRestart;  // RFC 3339; compared as text, which orders the same way
  std::string lastRestartableInitRestart;
};

// The names of the restartable (sidecar) init containers.
std::set<std::string> restartableInitNames(const Json& spec) {
  std::set<std::string> names;
  for (const auto& c : array(field(spec, "initContainers"))) {
    if (restartableInit(c)) names.insert(text(field(c, "name")));
  }
  return names;
}

// printPod's walk of the init container statuses: restarts, ready sidecars, and the Init:
// reason of the first one not done; true when the pod is still initializing.
bool readInitContainers(const Json& spec, const Json& status, PodReadout& out) {
  const std::set<std::string> restartable = restartableInitNames(spec);
  const Json& initStatuses = array(field(status, "initContainerStatuses"));
  const std::size_t initCount = array(field(spec, "initContainers")).size();
  for (std::size_t i = 0; i < initStatuses.size(); ++i) {
    const Json& c = initStatuses[i];
    const bool isRestartable = restartable.count(text(field(c, "name"))) > 0;
    out.restarts += integer(field(c, "restartCount"));
    const std::string finished = text(at(c, {"lastState", "terminated", "finishedAt"}));
    if (!finished.empty()) out.lastRestart = std::max(out.lastRestart, finished);
    if (isRestartable) {
      out.restartableInitRestarts += integer(field(c, "restartCount"));
      if (!finished.empty())
        out.lastRestartableInitRestart = std::max(out.lastRestartableInitRestart, finished);
    }
    const Json& state = field(c, "state");
    const Json& terminated = field(state, "terminated");
    const Json& waiting = field(state, "waiting");
    if (terminated.is_object() && integer(field(terminated, "exitCode")) == 0) continue;
    if (isRestartable && field(c, "started").is_boolean() && field(c, "started").get<bool>()) {
      if (field(c, "ready").is_boolean() && field(c, "ready").get<bool>()) ++out.ready;
      continue;
    }
    if (terminated.is_object()) {
      const std::string r = text(field(terminated, "reason"));
      if (!r.empty()) {
        out.reason = "Init:" + r;
      } else if (integer(field(terminated, "signal")) != 0) {
        out.reason = fmt::format("Init:Signal:{}", integer(field(terminated, "signal")));
      } else {
        out.reason = fmt::format("Init:ExitCode:{}", integer(field(terminated, "exitCode")));
      }
    } else if (waiting.is_object() && !text(field(waiting, "reason")).empty() &&
               text(field(waiting, "reason")) != "PodInitializing") {
      out.reason = "Init:" + text(field(waiting, "reason"));
    } else {
      out.reason = fmt::format("Init:{}/{}", i, initCount);
    }
    return true;
  }
  return false;
}

// printPod's walk of the container statuses, last first: restarts (the sidecars' counted
// before), the ready ones, and the reason of a waiting or terminated one.
void readContainers(const Json& status, PodReadout& out) {
  out.restarts = out.restartableInitRestarts;
  out.lastRestart = out.lastRestartableInitRestart;
  bool hasRunning = false;
  const Json& statuses = array(field(status, "containerStatuses"));
  for (auto it = statuses.rbegin(); it != statuses.rend(); ++it) {
    const Json& c = *it;
    out.restarts += integer(field(c, "restartCount"));
    const std::string finished = text(at(c, {"lastState", "terminated", "finishedAt"}));
    if (!finished.empty()) out.lastRestart = std::max(out.lastRestart, finished);
    const Json& state = field(c, "state");
    const Json& terminated = field(state, "terminated");
    const Json& waiting = field(state, "waiting");
    if (waiting.is_object() && !text(field(waiting, "reason")).empty()) {
      out.reason = text(field(waiting, "reason"));
    } else if (terminated.is_object() && !text(field(terminated, "reason")).empty()) {
      out.reason = text(field(terminated, "reason"));
    } else if (terminated.is_object()) {
      if (integer(field(terminated, "signal")) != 0) {
        out.reason = fmt::format("Signal:{}", integer(field(terminated, "signal")));
      } else {
        out.reason = fmt::format("ExitCode:{}", integer(field(terminated, "exitCode")));
      }
    } else if (field(c, "ready").is_boolean() && field(c, "ready").get<bool>() &&
               field(state, "running").is_object()) {
      hasRunning = true;
      ++out.ready;
    }
  }
  if (out.reason == "Completed" && hasRunning) {
    out.reason = conditionTrue(status, "Ready") ? "Running" : "NotReady";
  }
}

// The READINESS GATES column: true gates / gates, or <none>.
std::string readinessGatesText(const Json& spec, const Json& status) {
  const Json& readinessGates = array(field(spec, "readinessGates"));
  if (readinessGates.empty()) return "<none>";
  int trueGates = 0;
  for (const auto& g : readinessGates) {
    if (conditionTrue(status, text(field(g, "conditionType")))) ++trueGates;
  }
  return fmt::format("{}/{}", trueGates, readinessGates.size());
}

Json podCells(const Json& pod, TimePoint now) {
  const Json& spec = field(pod, "spec");
  const Json& status = field(pod, "status");
  const std::string phase = text(field(status, "phase"));
  PodReadout out;
  out.reason = phase;
  if (!text(field(status, "reason")).empty()) out.reason = text(field(status, "reason"));
  for (const auto& c : array(field(status, "conditions"))) {
    if (text(field(c, "type")) == "PodScheduled" && text(field(c, "reason")) == "SchedulingGated") {
      out.reason = "SchedulingGated";
    }
  }
  const int total =
      static_cast<int>(array(field(spec, "containers")).size() + restartableInitNames(spec).size());
  const bool initializing = readInitContainers(spec, status, out);
  if (!initializing || conditionTrue(status, "Initialized")) readContainers(status, out);

  const bool deleting = !text(at(pod, {"metadata", "deletionTimestamp"})).empty();
  if (deleting && text(field(status, "reason")) == "NodeLost") {
    out.reason = "Unknown";
  } else if (deleting && phase != "Succeeded" && phase != "Failed") {
    out.reason = "Terminating";
  }
  std::string restartsText = std::to_string(out.restarts);
  if (out.restarts != 0 && !out.lastRestart.empty()) {
    restartsText = fmt::format("{} ({} ago)", out.restarts, humanAge(out.lastRestart, now));
  }
  std::string podIp;
  const Json& podIps = array(field(status, "podIPs"));
  if (!podIps.empty()) podIp = text(field(podIps[0], "ip"));
  if (podIp.empty()) podIp = text(field(status, "podIP"));
  return Json::array({name(pod), fmt::format("{}/{}", out.ready, total), out.reason, restartsText,
                      age(pod, now), orNone(podIp), orNone(text(field(spec, "nodeName"))),
                      orNone(text(field(status, "nominatedNodeName"))),
                      readinessGatesText(spec, status)});
}

// --- workloads ---

std::string containerNames(const Json& podSpec, const char* key) {
  std::vector<std::string> out;
  for (const auto& c : array(field(podSpec, "containers"))) out.push_back(text(field(c, key)));
  return fmt::format("{}", fmt::join(out, ","));
}

// metav1.LabelSelectorAsSelector(...).String(): "app=web,tier in (a,b)".
std::string selectorText(const Json& selector) {
  std::vector<std::string> terms;
  const Json& labels = field(selector, "matchLabels");
  if (labels.is_object()) {
    for (const auto& [k, v] : labels.items()) terms.push_back(k + "=" + text(v));
  }
  for (const auto& e : array(field(selector, "matchExpressions"))) {
    const std::string key = text(field(e, "key"));
    const std::string op = text(field(e, "operator"));
    std::vector<std::string> values;
    for (const auto& v : array(field(e, "values"))) values.push_back(text(v));
    std::sort(values.begin(), values.end());
    if (op == "In") terms.push_back(fmt::format("{} in ({})", key, fmt::join(values, ",")));
    if (op == "NotIn") terms.push_back(fmt::format("{} notin ({})", key, fmt::join(values, ",")));
    if (op == "Exists") terms.push_back(key);
    if (op == "DoesNotExist") terms.push_back("!" + key);
  }
  std::sort(terms.begin(), terms.end());
  if (terms.empty()) return "<none>";
  return fmt::format("{}", fmt::join(terms, ","));
}

std::vector<Column> workloadWideColumns() {
  return {column("Containers", "Names of each container in the template.", 1),
          column("Images", "Images referenced by each container in the template.", 1),
          column("Selector", "Label selector for pods.", 1)};
}

// `columns`, then the workloads' wide columns.
std::vector<Column> withWorkloadWideColumns(std::vector<Column> columns) {
  for (auto& c : workloadWideColumns()) columns.push_back(std::move(c));
  return columns;
}

Json deploymentCells(const Json& d, TimePoint now) {
  const Json& spec = field(d, "spec");
  const Json& status = field(d, "status");
  const Json& podSpec = at(spec, {"template", "spec"});
  const std::int64_t desired =
      field(spec, "replicas").is_null() ? 1 : integer(field(spec, "replicas"));
  return Json::array(
      {name(d), fmt::format("{}/{}", integer(field(status, "readyReplicas")), desired),
       integer(field(status, "updatedReplicas")), integer(field(status, "availableReplicas")),
       age(d, now), containerNames(podSpec, "name"), containerNames(podSpec, "image"),
       selectorText(field(spec, "selector"))});
}

Json replicaSetCells(const Json& rs, TimePoint now) {
  const Json& spec = field(rs, "spec");
  const Json& status = field(rs, "status");
  const Json& podSpec = at(spec, {"template", "spec"});
  const std::int64_t desired =
      field(spec, "replicas").is_null() ? 1 : integer(field(spec, "replicas"));
  return Json::array({name(rs), desired, integer(field(status, "replicas")),
                      integer(field(status, "readyReplicas")), age(rs, now),
                      containerNames(podSpec, "name"), containerNames(podSpec, "image"),
                      selectorText(field(spec, "selector"))});
}

// --- other built-ins ---

Json namespaceCells(const Json& ns, TimePoint now) {
  return Json::array({name(ns), text(at(ns, {"status", "phase"})), age(ns, now)});
}

Json configMapCells(const Json& cm, TimePoint now) {
  std::int64_t count = 0;
  for (const char* key : {"data", "binaryData"}) {
    if (field(cm, key).is_object()) count += static_cast<std::int64_t>(field(cm, key).size());
  }
  return Json::array({name(cm), count, age(cm, now)});
}

Json secretCells(const Json& s, TimePoint now) {
  std::int64_t count = field(s, "data").is_object() ? field(s, "data").size() : 0;
  return Json::array({name(s), text(field(s, "type")), count, age(s, now)});
}

Json nodeCells(const Json& node, TimePoint now) {
  std::string ready = "Unknown";
  for (const auto& c : array(at(node, {"status", "conditions"}))) {
    if (text(field(c, "type")) != "Ready") continue;
    ready = text(field(c, "status")) == "True" ? "Ready" : "NotReady";
  }
  if (field(field(node, "spec"), "unschedulable").is_boolean() &&
      field(field(node, "spec"), "unschedulable").get<bool>()) {
    ready += ",SchedulingDisabled";
  }
  std::vector<std::string> roles;
  const Json& labels = at(node, {"metadata", "labels"});
  if (labels.is_object()) {
    for (const auto& [k, v] : labels.items()) {
      constexpr std::string_view kPrefix = "node-role.kubernetes.io/";
      if (k.rfind(kPrefix, 0) == 0 && k.size() > kPrefix.size())
        roles.push_back(k.substr(kPrefix.size()));
      if (k == "kubernetes.io/role" && !text(v).empty()) roles.push_back(text(v));
    }
  }
  std::sort(roles.begin(), roles.end());
  return Json::array({name(node), ready,
                      roles.empty() ? "<none>" : fmt::format("{}", fmt::join(roles, ",")),
                      age(node, now), text(at(node, {"status", "nodeInfo", "kubeletVersion"}))});
}

Json serviceCells(const Json& svc, TimePoint now) {
  const Json& spec = field(svc, "spec");
  std::string type = text(field(spec, "type"));
  if (type.empty()) type = "ClusterIP";
  std::string external = "<none>";
  if (type == "ExternalName") external = text(field(spec, "externalName"));
  if (type == "LoadBalancer") {
    std::vector<std::string> ips;
    for (const auto& i : array(at(svc, {"status", "loadBalancer", "ingress"}))) {
      ips.push_back(!text(field(i, "ip")).empty() ? text(field(i, "ip"))
                                                  : text(field(i, "hostname")));
    }
    external = ips.empty() ? "<pending>" : fmt::format("{}", fmt::join(ips, ","));
  }
  std::vector<std::string> ports;
  for (const auto& p : array(field(spec, "ports"))) {
    std::string protocol = text(field(p, "protocol"));
    if (protocol.empty()) protocol = "TCP";
    if (integer(field(p, "nodePort")) != 0) {
      ports.push_back(fmt::format("{}:{}/{}", integer(field(p, "port")),
                                  integer(field(p, "nodePort")), protocol));
    } else {
      ports.push_back(fmt::format("{}/{}", integer(field(p, "port")), protocol));
    }
  }
  std::vector<std::string> selector;
  if (field(spec, "selector").is_object()) {
    for (const auto& [k, v] : field(spec, "selector").items())
      selector.push_back(k + "=" + text(v));
  }
  return Json::array({name(svc), type, orNone(text(field(spec, "clusterIP"))), external,
                      ports.empty() ? "<none>" : fmt::format("{}", fmt::join(ports, ",")),
                      age(svc, now),
                      selector.empty() ? "<none>" : fmt::format("{}", fmt::join(selector, ","))});
}

// --- the other built-in kinds (printers.go's column sets) ---

std::string joined(const std::vector<std::string>& items, const char* separator = ",") {
  return fmt::format("{}", fmt::join(items, separator));
}

// A count or "<none>"-style text for an optional integer.
std::string optionalInt(const Json& j, const char* unset) {
  return j.is_number() ? std::to_string(integer(j)) : unset;
}

std::string intOrString(const Json& j, const char* unset) {
  if (j.is_number()) return std::to_string(integer(j));
  if (j.is_string()) return j.get<std::string>();
  return unset;
}

Json statefulSetCells(const Json& sts, TimePoint now) {
  const Json& spec = field(sts, "spec");
  const Json& podSpec = at(spec, {"template", "spec"});
  const std::int64_t desired =
      field(spec, "replicas").is_null() ? 1 : integer(field(spec, "replicas"));
  return Json::array(
      {name(sts), fmt::format("{}/{}", integer(at(sts, {"status", "readyReplicas"})), desired),
       age(sts, now), containerNames(podSpec, "name"), containerNames(podSpec, "image")});
}

std::string nodeSelectorText(const Json& podSpec) {
  const Json& selector = field(podSpec, "nodeSelector");
  if (!selector.is_object() || selector.empty()) return "<none>";
  std::vector<std::string> terms;
  for (const auto& [k, v] : selector.items()) terms.push_back(k + "=" + text(v));
  return joined(terms);
}

Json daemonSetCells(const Json& ds, TimePoint now) {
  const Json& spec = field(ds, "spec");
  const Json& status = field(ds, "status");
  const Json& podSpec = at(spec, {"template", "spec"});
  return Json::array(
      {name(ds), integer(field(status, "desiredNumberScheduled")),
       integer(field(status, "currentNumberScheduled")), integer(field(status, "numberReady")),
       integer(field(status, "updatedNumberScheduled")), integer(field(status, "numberAvailable")),
       nodeSelectorText(podSpec), age(ds, now), containerNames(podSpec, "name"),
       containerNames(podSpec, "image"), selectorText(field(spec, "selector"))});
}

// Go's duration.HumanDuration of a span (the Job's DURATION column).
std::string humanSpan(const std::string& from, const std::string& to) {
  TimePoint end;
  if (!parseRfc3339(to, &end)) return "";
  return humanAge(from, end);
}

Json jobCells(const Json& job, TimePoint now) {
  const Json& spec = field(job, "spec");
  const Json& status = field(job, "status");
  const Json& podSpec = at(spec, {"template", "spec"});
  std::string completions;
  if (field(spec, "completions").is_number()) {
    completions = fmt::format("{}/{}", integer(field(status, "succeeded")),
                              integer(field(spec, "completions")));
  } else if (integer(field(spec, "parallelism")) > 1) {
    completions = fmt::format("{}/1 of {}", integer(field(status, "succeeded")),
                              integer(field(spec, "parallelism")));
  } else {
    completions = fmt::format("{}/1", integer(field(status, "succeeded")));
  }
  std::string duration;
  const std::string start = text(field(status, "startTime"));
  if (!start.empty()) {
    const std::string end = text(field(status, "completionTime"));
    duration = end.empty() ? humanAge(start, now) : humanSpan(start, end);
  }
  std::string state = "Running";
  if (conditionTrue(status, "Complete")) {
    state = "Complete";
  } else if (conditionTrue(status, "Failed")) {
    state = "Failed";
  } else if (!text(at(job, {"metadata", "deletionTimestamp"})).empty()) {
    state = "Terminating";
  } else if (conditionTrue(status, "SuccessCriteriaMet")) {
    state = "SuccessCriteriaMet";
  } else if (conditionTrue(status, "FailureTarget")) {
    state = "FailureTarget";
  } else if (conditionTrue(status, "Suspended")) {
    state = "Suspended";
  }
  return Json::array({name(job), state, completions, duration, age(job, now),
                      containerNames(podSpec, "name"), containerNames(podSpec, "image"),
                      selectorText(field(spec, "selector"))});
}

Json cronJobCells(const Json& cj, TimePoint now) {
  const Json& spec = field(cj, "spec");
  const Json& podSpec = at(spec, {"jobTemplate", "spec", "template", "spec"});
  const std::string last = text(at(cj, {"status", "lastScheduleTime"}));
  const bool suspended = field(spec, "suspend").is_boolean() && field(spec, "suspend").get<bool>();
  return Json::array({name(cj), text(field(spec, "schedule")),
                      orNone(text(field(spec, "timeZone"))), suspended ? "True" : "False",
                      static_cast<std::int64_t>(array(at(cj, {"status", "active"})).size()),
                      last.empty() ? "<none>" : humanAge(last, now), age(cj, now),
                      containerNames(podSpec, "name"), containerNames(podSpec, "image"),
                      selectorText(at(spec, {"jobTemplate", "spec", "selector"}))});
}

Json replicationControllerCells(const Json& rc, TimePoint now) {
  const Json& spec = field(rc, "spec");
  const Json& status = field(rc, "status");
  const Json& podSpec = at(spec, {"template", "spec"});
  std::vector<std::string> selector;
  if (field(spec, "selector").is_object()) {
    for (const auto& [k, v] : field(spec, "selector").items())
      selector.push_back(k + "=" + text(v));
  }
  const std::int64_t desired =
      field(spec, "replicas").is_null() ? 1 : integer(field(spec, "replicas"));
  return Json::array({name(rc), desired, integer(field(status, "replicas")),
                      integer(field(status, "readyReplicas")), age(rc, now),
                      containerNames(podSpec, "name"), containerNames(podSpec, "image"),
                      selector.empty() ? "<none>" : joined(selector)});
}

std::string loadBalancerAddresses(const Json& ingresses) {
  std::vector<std::string> out;
  for (const auto& i : array(ingresses)) {
    if (!text(field(i, "ip")).empty()) out.push_back(text(field(i, "ip")));
    if (!text(field(i, "hostname")).empty()) out.push_back(text(field(i, "hostname")));
  }
  return joined(out);
}

Json ingressCells(const Json& ing, TimePoint now) {
  const Json& spec = field(ing, "spec");
  std::vector<std::string> hosts;
  for (const auto& rule : array(field(spec, "rules"))) {
    const std::string host = text(field(rule, "host"));
    hosts.push_back(host.empty() ? "*" : host);
  }
  std::string hostText = hosts.empty() ? "*" : "";
  if (!hosts.empty()) {
    const std::size_t shown = std::min<std::size_t>(hosts.size(), 3);
    hostText = joined(std::vector<std::string>(hosts.begin(), hosts.begin() + shown));
    if (hosts.size() > 3) hostText += fmt::format(" + {} more...", hosts.size() - 3);
  }
  const std::string ports = array(field(spec, "tls")).empty() ? "80" : "80, 443";
  return Json::array({name(ing), orNone(text(field(spec, "ingressClassName"))), hostText,
                      loadBalancerAddresses(at(ing, {"status", "loadBalancer", "ingress"})), ports,
                      age(ing, now)});
}

Json ingressClassCells(const Json& ic, TimePoint now) {
  const Json& parameters = at(ic, {"spec", "parameters"});
  std::string params = "<none>";
  if (parameters.is_object()) {
    const std::string group = text(field(parameters, "apiGroup"));
    params = fmt::format("{}/{}",
                         group.empty() ? text(field(parameters, "kind"))
                                       : text(field(parameters, "kind")) + "." + group,
                         text(field(parameters, "name")));
  }
  return Json::array({name(ic), text(at(ic, {"spec", "controller"})), params, age(ic, now)});
}

Json networkPolicyCells(const Json& np, TimePoint now) {
  std::string selector = selectorText(at(np, {"spec", "podSelector"}));
  if (selector == "<none>") selector = "<none>";
  return Json::array({name(np), selector, age(np, now)});
}

Json podDisruptionBudgetCells(const Json& pdb, TimePoint now) {
  const Json& spec = field(pdb, "spec");
  return Json::array({name(pdb), intOrString(field(spec, "minAvailable"), "N/A"),
                      intOrString(field(spec, "maxUnavailable"), "N/A"),
                      integer(at(pdb, {"status", "disruptionsAllowed"})), age(pdb, now)});
}

// The TARGETS column of an autoscaling/v2 HPA (formatHPAMetrics): "cpu: <unknown>/80%".
std::string hpaTargets(const Json& hpa) {
  const Json& metrics = array(at(hpa, {"spec", "metrics"}));
  const Json& current = array(at(hpa, {"status", "currentMetrics"}));
  if (metrics.empty()) {
    // autoscaling/v1 stored form.
    const Json& target = at(hpa, {"spec", "targetCPUUtilizationPercentage"});
    const Json& now = at(hpa, {"status", "currentCPUUtilizationPercentage"});
    if (!target.is_number()) return "<none>";
    return fmt::format(
        "cpu: {}/{}%",
        now.is_number() ? std::to_string(integer(now)) + "%" : std::string("<unknown>"),
        integer(target));
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const Json& m = metrics[i];
    const std::string type = text(field(m, "type"));
    const Json& cur = i < current.size() ? current[i] : Json();
    if (type == "Resource" || type == "ContainerResource") {
      const char* key = type == "Resource" ? "resource" : "containerResource";
      const Json& target = at(m, {key, "target"});
      const std::string resourceName = text(at(m, {key, "name"}));
      const Json& utilization = field(target, "averageUtilization");
      if (utilization.is_number()) {
        const Json& now = at(cur, {key, "current", "averageUtilization"});
        out.push_back(fmt::format(
            "{}: {}/{}%", resourceName,
            now.is_number() ? std::to_string(integer(now)) + "%" : std::string("<unknown>"),
            integer(utilization)));
      } else {
        const Json& now = at(cur, {key, "current", "averageValue"});
        out.push_back(fmt::format("{}: {}/{}", resourceName,
                                  now.is_string() ? now.get<std::string>() : "<unknown>",
                                  text(field(target, "averageValue"))));
      }
    } else {
      out.push_back("<unknown>");
    }
  }
  return joined(out, ", ");
}

Json horizontalPodAutoscalerCells(const Json& hpa, TimePoint now) {
  const Json& spec = field(hpa, "spec");
  const Json& ref = field(spec, "scaleTargetRef");
  return Json::array({name(hpa),
                      fmt::format("{}/{}", text(field(ref, "kind")), text(field(ref, "name"))),
                      hpaTargets(hpa), optionalInt(field(spec, "minReplicas"), "<unset>"),
                      integer(field(spec, "maxReplicas")),
                      integer(at(hpa, {"status", "currentReplicas"})), age(hpa, now)});
}

Json priorityClassCells(const Json& pc, TimePoint now) {
  const bool global =
      field(pc, "globalDefault").is_boolean() && field(pc, "globalDefault").get<bool>();
  return Json::array({name(pc), integer(field(pc, "value")), global ? "true" : "false",
                      age(pc, now), orNone(text(field(pc, "preemptionPolicy")))});
}

Json storageClassCells(const Json& sc, TimePoint now) {
  std::string n = name(sc);
  const Json& annotations = at(sc, {"metadata", "annotations"});
  if (text(field(annotations, "storageclass.kubernetes.io/is-default-class")) == "true" ||
      text(field(annotations, "storageclass.beta.kubernetes.io/is-default-class")) == "true") {
    n += " (default)";
  }
  std::string reclaim = text(field(sc, "reclaimPolicy"));
  std::string binding = text(field(sc, "volumeBindingMode"));
  const bool expansion = field(sc, "allowVolumeExpansion").is_boolean() &&
                         field(sc, "allowVolumeExpansion").get<bool>();
  return Json::array({n, text(field(sc, "provisioner")), reclaim.empty() ? "Delete" : reclaim,
                      binding.empty() ? "Immediate" : binding, expansion ? "true" : "false",
                      age(sc, now)});
}

// The ACCESS MODES column: RWO, ROX, RWX, RWOP.
std::string accessModes(const Json& modes) {
  std::vector<std::string> out;
  for (const auto& m : array(modes)) {
    const std::string mode = text(m);
    if (mode == "ReadWriteOnce") out.push_back("RWO");
    if (mode == "ReadOnlyMany") out.push_back("ROX");
    if (mode == "ReadWriteMany") out.push_back("RWX");
    if (mode == "ReadWriteOncePod") out.push_back("RWOP");
  }
  return joined(out);
}

Json persistentVolumeCells(const Json& pv, TimePoint now) {
  const Json& spec = field(pv, "spec");
  const Json& claim = field(spec, "claimRef");
  std::string claimText;
  if (claim.is_object()) {
    claimText = text(field(claim, "namespace")) + "/" + text(field(claim, "name"));
  }
  std::string mode = text(field(spec, "volumeMode"));
  return Json::array(
      {name(pv), text(at(spec, {"capacity", "storage"})), accessModes(field(spec, "accessModes")),
       text(field(spec, "persistentVolumeReclaimPolicy")), text(at(pv, {"status", "phase"})),
       claimText, text(field(spec, "storageClassName")),
       orNone(text(field(spec, "volumeAttributesClassName"))), text(at(pv, {"status", "reason"})),
       age(pv, now), mode.empty() ? "Filesystem" : mode});
}

Json persistentVolumeClaimCells(const Json& pvc, TimePoint now) {
  const Json& spec = field(pvc, "spec");
  const Json& status = field(pvc, "status");
  const std::string phase = !text(at(pvc, {"metadata", "deletionTimestamp"})).empty()
                                ? "Terminating"
                                : text(field(status, "phase"));
  const bool bound = !text(field(spec, "volumeName")).empty();
  std::string mode = text(field(spec, "volumeMode"));
  return Json::array({name(pvc), phase, text(field(spec, "volumeName")),
                      bound ? text(at(status, {"capacity", "storage"})) : "",
                      bound ? accessModes(field(status, "accessModes")) : "",
                      text(field(spec, "storageClassName")),
                      orNone(text(field(spec, "volumeAttributesClassName"))), age(pvc, now),
                      mode.empty() ? "Filesystem" : mode});
}

Json serviceAccountCells(const Json& sa, TimePoint now) {
  return Json::array(
      {name(sa), static_cast<std::int64_t>(array(field(sa, "secrets")).size()), age(sa, now)});
}

Json endpointsCells(const Json& ep, TimePoint now) {
  std::vector<std::string> out;
  std::size_t total = 0;
  for (const auto& subset : array(field(ep, "subsets"))) {
    for (const auto& address : array(field(subset, "addresses"))) {
      const Json& ports = array(field(subset, "ports"));
      if (ports.empty()) {
        ++total;
        if (out.size() < 3) out.push_back(text(field(address, "ip")));
      }
      for (const auto& port : ports) {
        ++total;
        if (out.size() < 3) {
          out.push_back(
              fmt::format("{}:{}", text(field(address, "ip")), integer(field(port, "port"))));
        }
      }
    }
  }
  std::string cell = out.empty() ? "<none>" : joined(out);
  if (total > out.size()) cell += fmt::format(" + {} more...", total - out.size());
  return Json::array({name(ep), cell, age(ep, now)});
}

Json endpointSliceCells(const Json& slice, TimePoint now) {
  std::vector<std::string> ports;
  for (const auto& p : array(field(slice, "ports"))) {
    ports.push_back(field(p, "port").is_number() ? std::to_string(integer(field(p, "port")))
                                                 : "<unset>");
  }
  std::vector<std::string> addresses;
  std::size_t total = 0;
  for (const auto& e : array(field(slice, "endpoints"))) {
    for (const auto& a : array(field(e, "addresses"))) {
      ++total;
      if (addresses.size() < 3) addresses.push_back(text(a));
    }
  }
  std::string endpoints = addresses.empty() ? "<unset>" : joined(addresses);
  if (total > addresses.size()) endpoints += fmt::format(" + {} more...", total - addresses.size());
  return Json::array({name(slice), text(field(slice, "addressType")),
                      ports.empty() ? "<unset>" : joined(ports), endpoints, age(slice, now)});
}

Json roleBindingCells(const Json& binding, TimePoint now) {
  const Json& ref = field(binding, "roleRef");
  std::vector<std::string> users, groups, serviceAccounts;
  for (const auto& s : array(field(binding, "subjects"))) {
    const std::string kind = text(field(s, "kind"));
    if (kind == "User") users.push_back(text(field(s, "name")));
    if (kind == "Group") groups.push_back(text(field(s, "name")));
    if (kind == "ServiceAccount") {
      serviceAccounts.push_back(text(field(s, "namespace")) + "/" + text(field(s, "name")));
    }
  }
  return Json::array({name(binding), text(field(ref, "kind")) + "/" + text(field(ref, "name")),
                      age(binding, now), joined(users, ", "), joined(groups, ", "),
                      joined(serviceAccounts, ", ")});
}

Json createdAtCells(const Json& object, TimePoint) {
  return Json::array({name(object), text(at(object, {"metadata", "creationTimestamp"}))});
}

Json leaseCells(const Json& lease, TimePoint now) {
  return Json::array(
      {name(lease), orNone(text(at(lease, {"spec", "holderIdentity"}))), age(lease, now)});
}

Json controllerRevisionCells(const Json& revision, TimePoint now) {
  std::string controller = "<none>";
  for (const auto& ref : array(at(revision, {"metadata", "ownerReferences"}))) {
    if (field(ref, "controller").is_boolean() && field(ref, "controller").get<bool>()) {
      std::string group = text(field(ref, "apiVersion"));
      group = group.find('/') == std::string::npos ? "" : group.substr(0, group.find('/'));
      std::string kind = text(field(ref, "kind"));
      std::transform(kind.begin(), kind.end(), kind.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      controller = kind + (group.empty() ? "" : "." + group) + "/" + text(field(ref, "name"));
    }
  }
  return Json::array(
      {name(revision), controller, integer(field(revision, "revision")), age(revision, now)});
}

Json certificateSigningRequestCells(const Json& csr, TimePoint now) {
  const Json& spec = field(csr, "spec");
  std::vector<std::string> conditions;
  bool approvedOrDenied = false;
  for (const auto& c : array(at(csr, {"status", "conditions"}))) {
    const std::string type = text(field(c, "type"));
    if (type == "Approved" || type == "Denied") approvedOrDenied = true;
    conditions.push_back(type);
  }
  if (!approvedOrDenied) conditions.insert(conditions.begin(), "Pending");
  if (!text(at(csr, {"status", "certificate"})).empty()) conditions.push_back("Issued");
  std::string duration = "<none>";
  if (field(spec, "expirationSeconds").is_number()) {
    const std::int64_t seconds = integer(field(spec, "expirationSeconds"));
    duration = humanAge(formatRfc3339(TimePoint{}), TimePoint{} + std::chrono::seconds(seconds));
  }
  return Json::array({name(csr), age(csr, now), text(field(spec, "signerName")),
                      text(field(spec, "username")), duration, joined(conditions)});
}

Json apiServiceCells(const Json& service, TimePoint now) {
  const Json& ref = at(service, {"spec", "service"});
  std::string target = "Local";
  if (ref.is_object()) target = text(field(ref, "namespace")) + "/" + text(field(ref, "name"));
  std::string available = "Unknown";
  for (const auto& c : array(at(service, {"status", "conditions"}))) {
    if (text(field(c, "type")) != "Available") continue;
    available = text(field(c, "status"));
    if (available != "True" && !text(field(c, "reason")).empty()) {
      available += " (" + text(field(c, "reason")) + ")";
    }
  }
  return Json::array({name(service), target, available, age(service, now)});
}

Json resourceQuotaCells(const Json& quota, TimePoint now) {
  std::vector<std::string> requests, limits;
  const Json& hard = at(quota, {"status", "hard"});
  const Json& used = at(quota, {"status", "used"});
  if (hard.is_object()) {
    for (const auto& [k, v] : hard.items()) {
      const std::string entry = fmt::format(
          "{}: {}/{}", k, text(field(used, k)).empty() ? "0" : text(field(used, k)), text(v));
      (k.rfind("limits.", 0) == 0 ? limits : requests).push_back(entry);
    }
  }
  return Json::array({name(quota), age(quota, now), joined(requests, ", "), joined(limits, ", ")});
}

// --- custom resources: additionalPrinterColumns ---

// Evaluates the simple JSONPath forms CRDs use: .a.b, [N], ['key'], [?(@.k=="v")]. nullopt when
// the path finds nothing.
std::optional<Json> evaluateJsonPath(const Json& root, std::string_view path) {
  if (!path.empty() && path.front() == '{' && path.back() == '}')
    path = path.substr(1, path.size() - 2);
  const Json* current = &root;
  std::size_t i = 0;
  if (i < path.size() && path[i] == '$') ++i;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      std::size_t end = path.find_first_of(".[", i);
      if (end == std::string_view::npos) end = path.size();
      std::string key(path.substr(i, end - i));
      i = end;
      if (key.empty()) continue;
      if (!current->is_object() || !current->contains(key)) return std::nullopt;
      current = &(*current)[key];
    } else if (path[i] == '[') {
      std::size_t end = path.find(']', i);
      if (end == std::string_view::npos) return std::nullopt;
      std::string_view inner = path.substr(i + 1, end - i - 1);
      i = end + 1;
      if (!inner.empty() && (inner.front() == '\'' || inner.front() == '"')) {
        std::string key(inner.substr(1, inner.size() - 2));
        if (!current->is_object() || !current->contains(key)) return std::nullopt;
        current = &(*current)[key];
      } else if (inner.rfind("?(@.", 0) == 0) {
        // [?(@.type=="Ready")]: the first element whose field equals the literal.
        std::string_view condition = inner.substr(4, inner.size() - 5);
        auto eq = condition.find("==");
        if (eq == std::string_view::npos || !current->is_array()) return std::nullopt;
        std::string key(condition.substr(0, eq));
        std::string_view literal = condition.substr(eq + 2);
        if (literal.size() >= 2 && (literal.front() == '"' || literal.front() == '\'')) {
          literal = literal.substr(1, literal.size() - 2);
        }
        const Json* match = nullptr;
        for (const auto& item : *current) {
          const Json& value = field(item, key);
          if ((value.is_string() && value.get<std::string>() == literal) ||
              (!value.is_string() && !value.is_null() && value.dump() == literal)) {
            match = &item;
            break;
          }
        }
        if (match == nullptr) return std::nullopt;
        current = match;
      } else {
        int index = 0;
        try {
          index = std::stoi(std::string(inner));
        } catch (...) {
          return std::nullopt;
        }
        if (!current->is_array()) return std::nullopt;
        const int size = static_cast<int>(current->size());
        if (index < 0) index += size;
        if (index < 0 || index >= size) return std::nullopt;
        current = &(*current)[index];
      }
    } else {
      return std::nullopt;
    }
  }
  return *current;
}

// How client-go's JSONPath prints a value (evalToText: fmt.Fprint of the Go value): strings as
// they are, numbers and booleans as %v, maps as map[k:v ...] (keys sorted), slices as [v v].
std::string jsonPathText(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "<nil>";
  if (value.is_object()) {
    std::string out = "map[";
    bool first = true;
    for (const auto& [k, v] : value.items()) {
      out += (first ? "" : " ") + k + ":" + jsonPathText(v);
      first = false;
    }
    return out + "]";
  }
  if (value.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < value.size(); ++i) out += (i ? " " : "") + jsonPathText(value[i]);
    return out + "]";
  }
  return value.dump();
}

// The apiextensions table convertor: a "string" column prints whatever the path finds as
// JSONPath prints it (column.PrintResults: 3 -> "3"); the other types go through
// cellForJSONValue, which keeps only values of their type.
Json customCell(const std::string& type, const std::optional<Json>& value, TimePoint now) {
  if (!value || value->is_null()) return nullptr;
  if (type == "string") return jsonPathText(*value);
  if (type == "integer" && value->is_number()) return integer(*value);
  if (type == "number" && value->is_number()) return value->get<double>();
  if (type == "boolean" && value->is_boolean()) return *value;
  if (type == "string" && value->is_string()) return *value;
  if (type == "date" && value->is_string()) {
    TimePoint t;
    if (!parseRfc3339(value->get<std::string>(), &t)) return "<invalid>";
    return humanAge(value->get<std::string>(), now);
  }
  return nullptr;
}

Printer customPrinter(const ResourceInfo& info) {
  std::vector<PrinterColumn> columns = info.printerColumns;
  if (columns.empty()) {
    // The default a CRD gets when it declares no columns.
    columns.push_back({"Age", "date", ".metadata.creationTimestamp", "", 0});
  }
  Printer printer;
  printer.columns.push_back(nameColumn());
  for (const auto& c : columns) {
    Column col;
    col.name = c.name;
    col.type = c.type;
    col.description = c.description.empty()
                          ? "Custom resource definition column (in JSONPath format): " + c.jsonPath
                          : c.description;
    col.priority = c.priority;
    printer.columns.push_back(std::move(col));
  }
  printer.cells = [columns](const Json& object, TimePoint now) {
    Json cells = Json::array({name(object)});
    for (const auto& c : columns) {
      cells.push_back(customCell(c.type, evaluateJsonPath(object, c.jsonPath), now));
    }
    return cells;
  };
  return printer;
}

// --- events (printEvent) ---

// The server prints the internal Event (core/v1's fields) whichever group-version was asked.
std::string eventSource(const Json& event) {
  std::string component = text(at(event, {"source", "component"}));
  if (component.empty()) component = text(field(event, "reportingComponent"));
  std::string instance = text(at(event, {"source", "host"}));
  if (instance.empty()) instance = text(field(event, "reportingInstance"));
  return instance.empty() ? component : component + ", " + instance;
}

std::string sinceOrUnknown(const Json& timestamp, TimePoint now) {
  const std::string t = text(timestamp);
  return t.empty() ? "<unknown>" : humanAge(t, now);
}

Json eventCells(const Json& event, TimePoint now) {
  std::string firstSeen = sinceOrUnknown(field(event, "firstTimestamp"), now);
  if (text(field(event, "firstTimestamp")).empty()) {
    firstSeen = sinceOrUnknown(field(event, "eventTime"), now);
  }
  std::string lastSeen = text(field(event, "lastTimestamp")).empty()
                             ? firstSeen
                             : sinceOrUnknown(field(event, "lastTimestamp"), now);
  const Json& countJson = field(event, "count");
  std::int64_t count = countJson.is_number_integer() ? countJson.get<std::int64_t>() : 0;
  if (const Json& series = field(event, "series"); series.is_object()) {
    lastSeen = sinceOrUnknown(field(series, "lastObservedTime"), now);
    const Json& seriesCount = field(series, "count");
    count = seriesCount.is_number_integer() ? seriesCount.get<std::int64_t>() : 0;
  } else if (count == 0) {
    count = 1;  // a singleton event of the new API has no count
  }
  const Json& involved = field(event, "involvedObject");
  std::string target = text(field(involved, "kind"));
  for (auto& c : target) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!text(field(involved, "name")).empty()) target += "/" + text(field(involved, "name"));
  std::string message = text(field(event, "message"));
  const auto first = message.find_first_not_of(" \t\n\r\v\f");
  message = first == std::string::npos
                ? ""
                : message.substr(first, message.find_last_not_of(" \t\n\r\v\f") - first + 1);
  return Json::array({lastSeen, text(field(event, "type")), text(field(event, "reason")), target,
                      text(field(involved, "fieldPath")), eventSource(event), message, firstSeen,
                      count, name(event)});
}

Printer eventPrinter(const ResourceInfo& info) {
  std::vector<Column> columns = {
      column("Last Seen",
             "The time at which the most recent occurrence of this event was recorded."),
      column("Type",
             "Type of this event (Normal, Warning), new types could be added in the future"),
      column("Reason",
             "This should be a short, machine understandable string that gives the reason for "
             "the transition into the object's current status."),
      column("Object", "The object that this event is about."),
      column("Subobject",
             "If referring to a piece of an object instead of an entire object, this string "
             "should contain a valid JSON/Go field access statement, such as "
             "desiredState.manifest.containers[2]. For example, if the object reference is to a "
             "container within a pod, this would take on a value like: \"spec.containers{name}\" "
             "(where \"name\" refers to the name of the container that triggered the event) or if "
             "no container name is specified \"spec.containers[2]\" (container with index 2 in "
             "this pod). This syntax is chosen only to have some well-defined way of referencing "
             "a part of an object.",
             1),
      column("Source", "The component reporting this event. Short, machine understandable string.",
             1),
      column("Message", "A human-readable description of the status of this operation."),
      column("First Seen",
             "The time at which the event was first recorded. (Time of server receipt is in "
             "TypeMeta.)",
             1),
      column("Count", "The number of times this event has occurred.", 1),
      nameColumn()};
  columns.back().priority = 1;
  const StorageConversion* conversion = info.conversion;
  return {std::move(columns), [conversion](const Json& event, TimePoint now) {
            if (conversion == nullptr) return eventCells(event, now);
            return eventCells(conversion->toStorage(event), now);
          }};
}

// The printers of the built-in kinds (kubectl's printers.go, AddHandlers), one function a kind.
Printer podPrinter() {
  return {
      {nameColumn(),
       column("Ready", "The aggregate readiness state of this pod for accepting traffic."),
       column("Status", "The aggregate status of the containers in this pod."),
       column("Restarts",
              "The number of times the containers in this pod have been restarted and when "
              "the last container in this pod has restarted."),
       ageColumn(),
       column("IP", "podIP address allocated to the pod. Routable at least within the cluster.", 1),
       column("Node", "NodeName is a request to schedule this pod onto a specific node.", 1),
       column("Nominated Node",
              "nominatedNodeName is set only when this pod preempts other pods on the node.", 1),
       column("Readiness Gates",
              "If specified, all readiness gates will be evaluated for pod readiness.", 1)},
      podCells};
}

Printer deploymentPrinter() {
  return {
      withWorkloadWideColumns({nameColumn(), column("Ready", "Number of the pod with ready state"),
                               column("Up-to-date",
                                      "Total number of non-terminated pods targeted by this "
                                      "deployment that have the desired template spec."),
                               column("Available",
                                      "Total number of available pods (ready for at least "
                                      "minReadySeconds) targeted by this deployment."),
                               ageColumn()}),
      deploymentCells};
}

// The columns of a ReplicaSet and a ReplicationController: their replica counts.
std::vector<Column> replicaCountColumns() {
  return withWorkloadWideColumns(
      {nameColumn(), column("Desired", "Number of desired pods.", 0, "integer"),
       column("Current", "Number of actual replicas.", 0, "integer"),
       column("Ready", "Number of ready replicas.", 0, "integer"), ageColumn()});
}

Printer replicaSetPrinter() { return {replicaCountColumns(), replicaSetCells}; }

Printer namespacePrinter() {
  return {{nameColumn(), column("Status", "The status of the namespace"), ageColumn()},
          namespaceCells};
}

Printer configMapPrinter() {
  return {{nameColumn(), column("Data", "Data contains the configuration data.", 0, "integer"),
           ageColumn()},
          configMapCells};
}

Printer secretPrinter() {
  return {{nameColumn(), column("Type", "The type of the secret"),
           column("Data", "Data contains the secret data.", 0, "integer"), ageColumn()},
          secretCells};
}

Printer nodePrinter() {
  return {{nameColumn(), column("Status", "The status of the node"),
           column("Roles", "The roles of the node"), ageColumn(),
           column("Version", "Kubelet Version reported by the node.")},
          nodeCells};
}

Printer servicePrinter() {
  return {
      {nameColumn(), column("Type", "Type determines how the Service is exposed."),
       column("Cluster-IP", "clusterIP is the IP address of the service."),
       column("External-IP",
              "List of IP addresses for which nodes in the cluster will also accept traffic for "
              "this service."),
       column("Port(s)", "The list of ports that are exposed by this service."), ageColumn(),
       column("Selector",
              "Route service traffic to pods with label keys and values matching this selector.",
              1)},
      serviceCells};
}

Printer statefulSetPrinter() {
  return {{nameColumn(), column("Ready", "Number of the pod with ready state"), ageColumn(),
           column("Containers", "Names of each container in the template.", 1),
           column("Images", "Images referenced by each container in the template.", 1)},
          statefulSetCells};
}

Printer daemonSetPrinter() {
  return {
      withWorkloadWideColumns(
          {nameColumn(),
           column("Desired", "The total number of nodes that should be running the daemon pod.", 0,
                  "integer"),
           column("Current",
                  "The number of nodes that are running at least 1 daemon pod and are supposed "
                  "to run the daemon pod.",
                  0, "integer"),
           column("Ready",
                  "numberReady is the number of nodes that should be running the daemon pod and "
                  "have one or more of the daemon pod running with a Ready Condition.",
                  0, "integer"),
           column("Up-to-date", "The total number of nodes that are running updated daemon pod", 0,
                  "integer"),
           column("Available",
                  "The number of nodes that should be running the daemon pod and have one or "
                  "more of the daemon pod running and available (ready for at least "
                  "spec.minReadySeconds)",
                  0, "integer"),
           column("Node Selector",
                  "NodeSelector is a selector which must be true for the pod to fit on a node. "
                  "Selector which must match a node's labels for the pod to be scheduled on "
                  "that node."),
           ageColumn()}),
      daemonSetCells};
}

Printer jobPrinter() {
  return {
      withWorkloadWideColumns(
          {nameColumn(), column("Status", "Status of the job."),
           column("Completions",
                  "The desired number of successfully finished pods the job should be run with."),
           column("Duration", "Time required to complete the job."), ageColumn()}),
      jobCells};
}

Printer cronJobPrinter() {
  return {withWorkloadWideColumns(
              {nameColumn(),
               column("Schedule",
                      "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
               column("Timezone",
                      "The time zone name for the given schedule, see "
                      "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones."),
               column("Suspend", "This flag tells the controller to suspend subsequent executions.",
                      0, "boolean"),
               column("Active", "A list of pointers to currently running jobs.", 0, "integer"),
               column("Last Schedule",
                      "Information when was the last time the job was successfully scheduled."),
               ageColumn()}),
          cronJobCells};
}

Printer replicationControllerPrinter() {
  return {replicaCountColumns(), replicationControllerCells};
}

Printer ingressPrinter() {
  return {
      {nameColumn(),
       column("Class",
              "The name of the IngressClass resource that should be used for this Ingress."),
       column("Hosts", "Hosts that incoming requests are matched against before the ingress rule"),
       column("Address", "Address is a list containing ingress points for the load-balancer"),
       column("Ports", "Ports of TLS configurations that open"), ageColumn()},
      ingressCells};
}

Printer ingressClassPrinter() {
  return {
      {nameColumn(), column("Controller", "Controller that is responsible for handling this class"),
       column("Parameters", "A reference to a resource with additional parameters"), ageColumn()},
      ingressClassCells};
}

Printer networkPolicyPrinter() {
  return {{nameColumn(),
           column("Pod-Selector", "Selects the pods to which this NetworkPolicy object applies."),
           ageColumn()},
          networkPolicyCells};
}

Printer podDisruptionBudgetPrinter() {
  return {{nameColumn(),
           column("Min Available",
                  "The minimum number of pods that must be available simultaneously.  This can "
                  "be either an integer or a string specifying a percentage, e.g. \"28%\"."),
           column("Max Unavailable",
                  "The maximum number of pods that may be unavailable simultaneously.  This can "
                  "be either an integer or a string specifying a percentage, e.g. \"28%\"."),
           column("Allowed Disruptions",
                  "Calculated number of pods that may be disrupted at this time.", 0, "integer"),
           ageColumn()},
          podDisruptionBudgetCells};
}

Printer horizontalPodAutoscalerPrinter() {
  return {
      {nameColumn(), column("Reference", "The reference to resource that will be scaled."),
       column("Targets", "The current and target resource utilization for the autoscaler"),
       column("MinPods",
              "Lower limit for the number of pods that can be set by the autoscaler, default 1.", 0,
              "string"),
       column("MaxPods",
              "Upper limit for the number of pods that can be set by the autoscaler; cannot be "
              "smaller than MinReplicas.",
              0, "integer"),
       column("Replicas", "Current number of replicas of pods managed by this autoscaler.", 0,
              "integer"),
       ageColumn()},
      horizontalPodAutoscalerCells};
}

Printer priorityClassPrinter() {
  return {{nameColumn(), column("Value", "The value of this priority class.", 0, "integer"),
           column("Global-Default",
                  "globalDefault specifies whether this PriorityClass should be considered as "
                  "the default priority for pods that do not have any priority class.",
                  0, "boolean"),
           ageColumn(),
           column("PreemptionPolicy",
                  "PreemptionPolicy is the Policy for preempting pods with lower priority.")},
          priorityClassCells};
}

Printer storageClassPrinter() {
  return {{nameColumn(), column("Provisioner", "Indicates the type of the provisioner."),
           column("ReclaimPolicy",
                  "Dynamically provisioned PersistentVolumes of this storage class are created "
                  "with this reclaimPolicy."),
           column("VolumeBindingMode",
                  "VolumeBindingMode indicates how PersistentVolumeClaims should be provisioned "
                  "and bound."),
           column("AllowVolumeExpansion",
                  "AllowVolumeExpansion shows whether the storage class allow volume expand."),
           ageColumn()},
          storageClassCells};
}

Printer persistentVolumePrinter() {
  return {
      {nameColumn(),
       column("Capacity",
              "capacity is the description of the persistent volume's resources and capacity."),
       column("Access Modes", "accessModes contains all ways the volume can be mounted."),
       column("Reclaim Policy",
              "persistentVolumeReclaimPolicy defines what happens to a persistent volume when "
              "released from its claim."),
       column(
           "Status",
           "phase indicates if a volume is available, bound to a claim, or released by a claim."),
       column("Claim",
              "claimRef is part of a bi-directional binding between PersistentVolume and "
              "PersistentVolumeClaim."),
       column("StorageClass",
              "storageClassName is the name of StorageClass to which this persistent volume "
              "belongs."),
       column("VolumeAttributesClass",
              "Name of VolumeAttributesClass to which this persistent volume belongs."),
       column("Reason",
              "reason is a brief CamelCase string that describes any failure and is meant for "
              "machine parsing and tidy display in the CLI."),
       ageColumn(),
       column("VolumeMode",
              "volumeMode defines if a volume is intended to be used with a formatted filesystem "
              "or to remain in raw block state.",
              1)},
      persistentVolumeCells};
}

Printer persistentVolumeClaimPrinter() {
  return {
      {nameColumn(),
       column("Status", "phase represents the current phase of PersistentVolumeClaim."),
       column("Volume",
              "volumeName is the binding reference to the PersistentVolume backing this claim."),
       column("Capacity", "capacity represents the actual resources of the underlying volume."),
       column("Access Modes",
              "accessModes contains the desired access modes the volume should have."),
       column("StorageClass",
              "storageClassName is the name of the StorageClass required by the claim."),
       column("VolumeAttributesClass",
              "volumeAttributesClassName may be used to set the VolumeAttributesClass used by "
              "this claim."),
       ageColumn(),
       column("VolumeMode", "volumeMode defines what type of volume is required by the claim.", 1)},
      persistentVolumeClaimCells};
}

Printer serviceAccountPrinter() {
  return {{nameColumn(),
           column("Secrets",
                  "Secrets is a list of the secrets in the same namespace that pods running "
                  "using this ServiceAccount are allowed to use.",
                  0, "integer"),
           ageColumn()},
          serviceAccountCells};
}

Printer endpointsPrinter() {
  return {{nameColumn(), column("Endpoints", "Endpoints is the list of endpoints of the service."),
           ageColumn()},
          endpointsCells};
}

Printer endpointSlicePrinter() {
  return {{nameColumn(), column("AddressType", "The IP protocol for this slice"),
           column("Ports", "The ports of the slice"),
           column("Endpoints", "The endpoints of the slice"), ageColumn()},
          endpointSliceCells};
}

Printer roleBindingPrinter() {
  return {{nameColumn(), column("Role", "Role is the role that this binding references."),
           ageColumn(), column("Users", "Users in the roleBinding", 1),
           column("Groups", "Groups in the roleBinding", 1),
           column("ServiceAccounts", "ServiceAccounts in the roleBinding", 1)},
          roleBindingCells};
}

Printer createdAtPrinter() {
  return {{nameColumn(),
           {"Created At", "date", "",
            "CreationTimestamp is a timestamp representing the server time when this object was "
            "created.",
            0}},
          createdAtCells};
}

Printer leasePrinter() {
  return {
      {nameColumn(),
       column("Holder", "HolderIdentity contains the identity of the holder of a current lease."),
       ageColumn()},
      leaseCells};
}

Printer controllerRevisionPrinter() {
  return {{nameColumn(), column("Controller", "Controller of the object"),
           column("Revision", "Revision indicates the revision of the state represented by Data.",
                  0, "integer"),
           ageColumn()},
          controllerRevisionCells};
}

Printer certificateSigningRequestPrinter() {
  return {{nameColumn(), ageColumn(), column("SignerName", "The name of the signer."),
           column("Requestor", "Name of the user that requested the CSR."),
           column("RequestedDuration", "The requested duration of the certificate."),
           column("Condition", "Current condition of the CSR.")},
          certificateSigningRequestCells};
}

Printer apiServicePrinter() {
  return {{nameColumn(),
           column("Service", "The reference to the service that hosts this API endpoint."),
           column("Available", "Whether this service is available."), ageColumn()},
          apiServiceCells};
}

Printer resourceQuotaPrinter() {
  return {
      {nameColumn(), ageColumn(),
       column("Request",
              "Request represents a minimum amount of cpu/memory that a container may consume."),
       column("Limit",
              "Limits control the maximum amount of cpu/memory that a container may use "
              "independent of contention on the node.")},
      resourceQuotaCells};
}

Printer customResourceDefinitionPrinter() {
  // The API server's default table convertor: NAME CREATED AT.
  return {{nameColumn(),
           {"Created At", "date", "",
            "CreationTimestamp is a timestamp representing the server time when this object was "
            "created.",
            0}},
          [](const Json& crd, TimePoint) {
            return Json::array({name(crd), text(at(crd, {"metadata", "creationTimestamp"}))});
          }};
}

Printer printerFor(const ResourceInfo& info) {
  if (info.custom) return customPrinter(info);
  // Both views of the Events print the internal Event.
  if (info.kind == "Event" && info.storedGroup().empty() && info.storedResource() == "events") {
    return eventPrinter(info);
  }
  // group/resource -> the kind's printer.
  struct BuiltinPrinter {
    std::string_view id;
    Printer (*make)();
  };
  static const BuiltinPrinter kBuiltinPrinters[] = {
      {"/pods", podPrinter},
      {"apps/deployments", deploymentPrinter},
      {"apps/replicasets", replicaSetPrinter},
      {"/namespaces", namespacePrinter},
      {"/configmaps", configMapPrinter},
      {"/secrets", secretPrinter},
      {"/nodes", nodePrinter},
      {"/services", servicePrinter},
      {"apps/statefulsets", statefulSetPrinter},
      {"apps/daemonsets", daemonSetPrinter},
      {"batch/jobs", jobPrinter},
      {"batch/cronjobs", cronJobPrinter},
      {"/replicationcontrollers", replicationControllerPrinter},
      {"networking.k8s.io/ingresses", ingressPrinter},
      {"networking.k8s.io/ingressclasses", ingressClassPrinter},
      {"networking.k8s.io/networkpolicies", networkPolicyPrinter},
      {"policy/poddisruptionbudgets", podDisruptionBudgetPrinter},
      {"autoscaling/horizontalpodautoscalers", horizontalPodAutoscalerPrinter},
      {"scheduling.k8s.io/priorityclasses", priorityClassPrinter},
      {"storage.k8s.io/storageclasses", storageClassPrinter},
      {"/persistentvolumes", persistentVolumePrinter},
      {"/persistentvolumeclaims", persistentVolumeClaimPrinter},
      {"/serviceaccounts", serviceAccountPrinter},
      {"/endpoints", endpointsPrinter},
      {"discovery.k8s.io/endpointslices", endpointSlicePrinter},
      {"rbac.authorization.k8s.io/rolebindings", roleBindingPrinter},
      {"rbac.authorization.k8s.io/clusterrolebindings", roleBindingPrinter},
      {"rbac.authorization.k8s.io/roles", createdAtPrinter},
      {"rbac.authorization.k8s.io/clusterroles", createdAtPrinter},
      {"/limitranges", createdAtPrinter},
      {"coordination.k8s.io/leases", leasePrinter},
      {"apps/controllerrevisions", controllerRevisionPrinter},
      {"certificates.k8s.io/certificatesigningrequests", certificateSigningRequestPrinter},
      {"apiregistration.k8s.io/apiservices", apiServicePrinter},
      {"/resourcequotas", resourceQuotaPrinter},
      {"apiextensions.k8s.io/customresourcedefinitions", customResourceDefinitionPrinter},
  };
  const std::string id = info.group + "/" + info.resource;
  for (const BuiltinPrinter& printer : kBuiltinPrinters) {
    if (id == printer.id) return printer.make();
  }
  return {{nameColumn(), ageColumn()}, [](const Json& object, TimePoint now) {
            return Json::array({name(object), age(object, now)});
          }};
}

}  // namespace

std::string humanAge(const std::string& rfc3339, TimePoint now) {
  TimePoint t;
  if (rfc3339.empty() || !parseRfc3339(rfc3339, &t)) return "<unknown>";
  using namespace std::chrono;
  const auto d = now - t;
  const std::int64_t seconds = duration_cast<std::chrono::seconds>(d).count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return fmt::format("{}s", seconds);
  const std::int64_t minutes = seconds / 60;
  if (minutes < 10) {
    const std::int64_t s = seconds % 60;
    return s == 0 ? fmt::format("{}m", minutes) : fmt::format("{}m{}s", minutes, s);
  }
  if (minutes < 60 * 3) return fmt::format("{}m", minutes);
  const std::int64_t hours = seconds / 3600;
  if (hours < 8) {
    const std::int64_t m = minutes % 60;
    return m == 0 ? fmt::format("{}h", hours) : fmt::format("{}h{}m", hours, m);
  }
  if (hours < 48) return fmt::format("{}h", hours);
  if (hours < 24 * 8) {
    const std::int64_t h = hours % 24;
    return h == 0 ? fmt::format("{}d", hours / 24) : fmt::format("{}d{}h", hours / 24, h);
  }
  if (hours < 24 * 365 * 2) return fmt::format("{}d", hours / 24);
  if (hours < 24 * 365 * 8) {
    const std::int64_t days = (hours / 24) % 365;
    return days == 0 ? fmt::format("{}y", hours / 24 / 365)
                     : fmt::format("{}y{}d", hours / 24 / 365, days);
  }
  return fmt::format("{}y", hours / 24 / 365);
}

Json tableOf(const ResourceInfo& info, const std::vector<ObjectPtr>& objects,
             const TableOptions& options, const std::string& resourceVersion,
             const std::string& continueToken) {
  const Printer printer = printerFor(info);
  Json metadata = {{"resourceVersion", resourceVersion}};
  if (!continueToken.empty()) metadata["continue"] = continueToken;
  Json table = {
      {"kind", "Table"}, {"apiVersion", options.apiVersion}, {"metadata", std::move(metadata)}};
  if (!options.noHeaders) {
    Json columns = Json::array();
    for (const auto& c : printer.columns) columns.push_back(columnJson(c));
    table["columnDefinitions"] = std::move(columns);
  } else {
    table["columnDefinitions"] = nullptr;
  }
  Json rows = Json::array();
  for (const auto& object : objects) {
    Json row = {{"cells", printer.cells(*object, options.now)}};
    if (options.includeObject == "Object") {
      row["object"] = *object;
    } else if (options.includeObject != "None") {
      row["object"] = partialObjectMetadata(*object, options.apiVersion);
    }
    rows.push_back(std::move(row));
  }
  table["rows"] = std::move(rows);
  return table;
}

}  // namespace fakekube
