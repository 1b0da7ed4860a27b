#include "fakekube/http/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "fakekube/http/partial_object_metadata.h"

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

Json podCells(const Json& pod, TimePoint now) {
  const Json& spec = field(pod, "spec");
  const Json& status = field(pod, "status");
  const std::string phase = text(field(status, "phase"));
  std::string reason = phase;
  if (!text(field(status, "reason")).empty()) reason = text(field(status, "reason"));
  for (const auto& c : array(field(status, "conditions"))) {
    if (text(field(c, "type")) == "PodScheduled" && text(field(c, "reason")) == "SchedulingGated") {
      reason = "SchedulingGated";
    }
  }

  int total = static_cast<int>(array(field(spec, "containers")).size());
  int ready = 0;
  std::int64_t restarts = 0;
  std::int64_t restartableInitRestarts = 0;
  std::string lastRestart;  // RFC 3339; compared as text, which orders the same way
  std::string lastRestartableInitRestart;
  std::map<std::string, const Json*> initContainers;
  for (const auto& c : array(field(spec, "initContainers"))) {
    initContainers[text(field(c, "name"))] = &c;
    if (restartableInit(c)) ++total;
  }
  auto isRestartableInit = [&](const std::string& n) {
    auto it = initContainers.find(n);
    return it != initContainers.end() && restartableInit(*it->second);
  };

  bool initializing = false;
  const Json& initStatuses = array(field(status, "initContainerStatuses"));
  const std::size_t initCount = array(field(spec, "initContainers")).size();
  for (std::size_t i = 0; i < initStatuses.size(); ++i) {
    const Json& c = initStatuses[i];
    const std::string cname = text(field(c, "name"));
    restarts += integer(field(c, "restartCount"));
    const std::string finished = text(at(c, {"lastState", "terminated", "finishedAt"}));
    if (!finished.empty()) lastRestart = std::max(lastRestart, finished);
    if (isRestartableInit(cname)) {
      restartableInitRestarts += integer(field(c, "restartCount"));
      if (!finished.empty())
        lastRestartableInitRestart = std::max(lastRestartableInitRestart, finished);
    }
    const Json& state = field(c, "state");
    const Json& terminated = field(state, "terminated");
    const Json& waiting = field(state, "waiting");
    if (terminated.is_object() && integer(field(terminated, "exitCode")) == 0) continue;
    if (isRestartableInit(cname) && field(c, "started").is_boolean() &&
        field(c, "started").get<bool>()) {
      if (field(c, "ready").is_boolean() && field(c, "ready").get<bool>()) ++ready;
      continue;
    }
    if (terminated.is_object()) {
      const std::string r = text(field(terminated, "reason"));
      if (!r.empty()) {
        reason = "Init:" + r;
      } else if (integer(field(terminated, "signal")) != 0) {
        reason = fmt::format("Init:Signal:{}", integer(field(terminated, "signal")));
      } else {
        reason = fmt::format("Init:ExitCode:{}", integer(field(terminated, "exitCode")));
      }
    } else if (waiting.is_object() && !text(field(waiting, "reason")).empty() &&
               text(field(waiting, "reason")) != "PodInitializing") {
      reason = "Init:" + text(field(waiting, "reason"));
    } else {
      reason = fmt::format("Init:{}/{}", i, initCount);
    }
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(status, "Initialized")) {
    restarts = restartableInitRestarts;
    lastRestart = lastRestartableInitRestart;
    bool hasRunning = false;
    const Json& statuses = array(field(status, "containerStatuses"));
    for (auto it = statuses.rbegin(); it != statuses.rend(); ++it) {
      const Json& c = *it;
      restarts += integer(field(c, "restartCount"));
      const std::string finished = text(at(c, {"lastState", "terminated", "finishedAt"}));
      if (!finished.empty()) lastRestart = std::max(lastRestart, finished);
      const Json& state = field(c, "state");
      const Json& terminated = field(state, "terminated");
      const Json& waiting = field(state, "waiting");
      if (waiting.is_object() && !text(field(waiting, "reason")).empty()) {
        reason = text(field(waiting, "reason"));
      } else if (terminated.is_object() && !text(field(terminated, "reason")).empty()) {
        reason = text(field(terminated, "reason"));
      } else if (terminated.is_object()) {
        if (integer(field(terminated, "signal")) != 0) {
          reason = fmt::format("Signal:{}", integer(field(terminated, "signal")));
        } else {
          reason = fmt::format("ExitCode:{}", integer(field(terminated, "exitCode")));
        }
      } else if (field(c, "ready").is_boolean() && field(c, "ready").get<bool>() &&
                 field(state, "running").is_object()) {
        hasRunning = true;
        ++ready;
      }
    }
    if (reason == "Completed" && hasRunning) {
      reason = conditionTrue(status, "Ready") ? "Running" : "NotReady";
    }
  }

  const bool deleting = !text(at(pod, {"metadata", "deletionTimestamp"})).empty();
  if (deleting && text(field(status, "reason")) == "NodeLost") {
    reason = "Unknown";
  } else if (deleting && phase != "Succeeded" && phase != "Failed") {
    reason = "Terminating";
  }

  std::string restartsText = std::to_string(restarts);
  if (restarts != 0 && !lastRestart.empty()) {
    restartsText = fmt::format("{} ({} ago)", restarts, humanAge(lastRestart, now));
  }

  std::string podIp;
  const Json& podIps = array(field(status, "podIPs"));
  if (!podIps.empty()) podIp = text(field(podIps[0], "ip"));
  if (podIp.empty()) podIp = text(field(status, "podIP"));
  std::string gates = "<none>";
  const Json& readinessGates = array(field(spec, "readinessGates"));
  if (!readinessGates.empty()) {
    int trueGates = 0;
    for (const auto& g : readinessGates) {
      if (conditionTrue(status, text(field(g, "conditionType")))) ++trueGates;
    }
    gates = fmt::format("{}/{}", trueGates, readinessGates.size());
  }
  return Json::array({name(pod), fmt::format("{}/{}", ready, total), reason, restartsText,
                      age(pod, now), orNone(podIp), orNone(text(field(spec, "nodeName"))),
                      orNone(text(field(status, "nominatedNodeName"))), gates});
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

// cellForJSONValue of the apiextensions table convertor.
Json customCell(const std::string& type, const std::optional<Json>& value, TimePoint now) {
  if (!value || value->is_null()) return nullptr;
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

Printer printerFor(const ResourceInfo& info) {
  if (info.custom) return customPrinter(info);
  const std::string id = info.group + "/" + info.resource;
  if (id == "/pods") {
    return {
        {nameColumn(),
         column("Ready", "The aggregate readiness state of this pod for accepting traffic."),
         column("Status", "The aggregate status of the containers in this pod."),
         column("Restarts",
                "The number of times the containers in this pod have been restarted and when "
                "the last container in this pod has restarted."),
         ageColumn(),
         column("IP", "podIP address allocated to the pod. Routable at least within the cluster.",
                1),
         column("Node", "NodeName is a request to schedule this pod onto a specific node.", 1),
         column("Nominated Node",
                "nominatedNodeName is set only when this pod preempts other pods on the node.", 1),
         column("Readiness Gates",
                "If specified, all readiness gates will be evaluated for pod readiness.", 1)},
        podCells};
  }
  if (id == "apps/deployments") {
    std::vector<Column> columns = {nameColumn(),
                                   column("Ready", "Number of the pod with ready state"),
                                   column("Up-to-date",
                                          "Total number of non-terminated pods targeted by this "
                                          "deployment that have the desired template spec."),
                                   column("Available",
                                          "Total number of available pods (ready for at least "
                                          "minReadySeconds) targeted by this deployment."),
                                   ageColumn()};
    for (auto& c : workloadWideColumns()) columns.push_back(std::move(c));
    return {columns, deploymentCells};
  }
  if (id == "apps/replicasets") {
    std::vector<Column> columns = {
        nameColumn(), column("Desired", "Number of desired pods.", 0, "integer"),
        column("Current", "Number of actual replicas.", 0, "integer"),
        column("Ready", "Number of ready replicas.", 0, "integer"), ageColumn()};
    for (auto& c : workloadWideColumns()) columns.push_back(std::move(c));
    return {columns, replicaSetCells};
  }
  if (id == "/namespaces") {
    return {{nameColumn(), column("Status", "The status of the namespace"), ageColumn()},
            namespaceCells};
  }
  if (id == "/configmaps") {
    return {{nameColumn(), column("Data", "Data contains the configuration data.", 0, "integer"),
             ageColumn()},
            configMapCells};
  }
  if (id == "/secrets") {
    return {{nameColumn(), column("Type", "The type of the secret"),
             column("Data", "Data contains the secret data.", 0, "integer"), ageColumn()},
            secretCells};
  }
  if (id == "/nodes") {
    return {{nameColumn(), column("Status", "The status of the node"),
             column("Roles", "The roles of the node"), ageColumn(),
             column("Version", "Kubelet Version reported by the node.")},
            nodeCells};
  }
  if (id == "/services") {
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
  if (id == "apiextensions.k8s.io/customresourcedefinitions") {
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
