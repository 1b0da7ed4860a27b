#include "controllers/ray/sim/ray_autoscaler.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "controllers/ray/constants.h"
#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/internal/autoscaler_rbac.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"

namespace fakekube::ray {

void RayAutoscalerDemand::set(const std::string& ns, const std::string& cluster,
                              const std::string& group, int workers) {
  std::lock_guard lock(mutex_);
  workers_[{ns, cluster, group}] = workers;
}

int RayAutoscalerDemand::get(const std::string& ns, const std::string& cluster,
                             const std::string& group) const {
  std::lock_guard lock(mutex_);
  auto it = workers_.find({ns, cluster, group});
  return it == workers_.end() ? 0 : it->second;
}

namespace {

constexpr std::chrono::seconds kDefaultIdleTimeout{60};

// Whether `rule` (a PolicyRule) grants `verb` on `resource` of `apiGroup` ("*" matches all).
bool ruleAllows(const Json& rule, std::string_view apiGroup, std::string_view resource,
                std::string_view verb) {
  auto has = [&rule](const char* field, std::string_view value) {
    for (const Json& item : jsonArrayAt(rule, field)) {
      if (item.is_string() && (item == "*" || item.get<std::string>() == value)) return true;
    }
    return false;
  };
  return has("apiGroups", apiGroup) && has("resources", resource) && has("verbs", verb);
}

// The autoscaler's loop over the updates of one RayCluster; what it keeps between updates is
// when each worker became idle.
class AutoscalerLoop : public std::enable_shared_from_this<AutoscalerLoop> {
 public:
  explicit AutoscalerLoop(RayAutoscalerOptions options) : options_(std::move(options)) {}

  void start(const std::shared_ptr<ProcessContext>& context) {
    context_ = context;
    ns_ = meta::namespace_(context->pod());
    cluster_ = meta::label(context->pod(), kRayClusterLabelKey);
    const Json& account = jsonAt(context->pod(), {"spec", "serviceAccountName"});
    serviceAccount_ = account.is_string() ? account.get<std::string>() : "default";
    context->print(fmt::format("Starting the Ray autoscaler for RayCluster {} in namespace {}.",
                               cluster_, ns_));
    scheduleUpdate();
  }

 private:
  void scheduleUpdate() {
    auto context = context_.lock();
    if (!context) return;
    // The process holds the loop; an update due after the container ended finds it gone.
    std::weak_ptr<AutoscalerLoop> weak = weak_from_this();
    context->after(options_.updateInterval, [weak] {
      if (auto loop = weak.lock()) {
        loop->update();
        loop->scheduleUpdate();
      }
    });
  }

  void print(const std::string& line) {
    if (auto context = context_.lock()) context->print(line);
  }

  // kube-apiserver's Forbidden for this ServiceAccount, or nothing when RBAC allows the call.
  std::optional<std::string> forbidden(std::string_view apiGroup, std::string_view resource,
                                       std::string_view verb, std::string_view name);
  void update();
  // safe_to_scale: false while a pod of workersToDelete still runs; clears the lists otherwise.
  bool safeToScale(const Json& rayCluster, const std::set<std::string>& nodes);
  // The scale request of one worker group as patch operations.
  void scaleGroup(const Json& group, int index, const std::vector<const Json*>& workers,
                  Duration idleTimeout, Json& patch);
  void submitPatch(const Json& patch);

  RayAutoscalerOptions options_;
  std::weak_ptr<ProcessContext> context_;
  std::string ns_;
  std::string cluster_;
  std::string serviceAccount_;
  std::map<std::string, TimePoint> idleSince_;
};

std::optional<std::string> AutoscalerLoop::forbidden(std::string_view apiGroup,
                                                     std::string_view resource,
                                                     std::string_view verb, std::string_view name) {
  const std::string user = fmt::format("system:serviceaccount:{}:{}", ns_, serviceAccount_);
  const std::string denied = fmt::format(
      "{}{}{} is forbidden: User \"{}\" cannot {} resource \"{}\" in API group \"{}\" in the "
      "namespace \"{}\"",
      resource, apiGroup.empty() ? "" : "." + std::string(apiGroup),
      name.empty() ? "" : fmt::format(" \"{}\"", name), user, verb, resource, apiGroup, ns_);
  auto bindings = options_.client->list(kRoleBindings, ns_);
  if (!bindings) return denied;
  for (const Json& binding : jsonArrayAt(*bindings, "items")) {
    bool bound = false;
    for (const Json& subject : jsonArrayAt(binding, "subjects")) {
      bound = bound || (stringField(subject, "kind") == "ServiceAccount" &&
                        stringField(subject, "name") == serviceAccount_ &&
                        stringField(subject, "namespace") == ns_);
    }
    const Json& roleRef = jsonObjectAt(binding, "roleRef");
    if (!bound || stringField(roleRef, "kind") != "Role") continue;
    auto role = options_.client->get(kRoles, ns_, stringField(roleRef, "name"));
    if (!role) continue;
    for (const Json& rule : jsonArrayAt(*role, "rules")) {
      if (ruleAllows(rule, apiGroup, resource, verb)) return std::nullopt;
    }
  }
  return denied;
}

void AutoscalerLoop::update() {
  if (options_.client == nullptr) {
    print("Failed to reach the Kubernetes API server: dial tcp: connect: connection refused");
    return;
  }
  auto denied = forbidden("ray.io", "rayclusters", "get", cluster_);
  if (!denied) denied = forbidden("", "pods", "list", "");
  if (denied) {
    print(*denied);
    return;
  }
  auto rayCluster = options_.client->get(kRayClusters, ns_, cluster_);
  if (!rayCluster) {
    print(rayCluster.error().message);
    return;
  }
  ListOptions selector;
  selector.labelSelector = std::string(kRayClusterLabelKey) + "=" + cluster_;
  auto pods = options_.client->list(kPods, ns_, selector);
  if (!pods) {
    print(pods.error().message);
    return;
  }
  std::set<std::string> nodes;
  std::map<std::string, std::vector<const Json*>> workersByGroup;
  for (const Json& pod : jsonArrayAt(*pods, "items")) {
    if (meta::isDeleting(pod)) continue;  // Ignore pods marked for termination.
    nodes.insert(meta::name(pod));
    if (meta::label(pod, kRayNodeTypeLabelKey) == kWorkerNode) {
      workersByGroup[meta::label(pod, kRayNodeGroupLabelKey)].push_back(&pod);
    }
  }
  if (!safeToScale(*rayCluster, nodes)) return;

  const Json& timeout = jsonAt(*rayCluster, {"spec", "autoscalerOptions", "idleTimeoutSeconds"});
  const Duration idleTimeout = timeout.is_number_integer()
                                   ? Duration(std::chrono::seconds(timeout.get<int>()))
                                   : Duration(kDefaultIdleTimeout);
  Json patch = Json::array();
  const Json& groups = jsonAt(*rayCluster, {"spec", "workerGroupSpecs"});
  for (std::size_t i = 0; i < (groups.is_array() ? groups.size() : 0); ++i) {
    scaleGroup(groups[i], static_cast<int>(i), workersByGroup[stringField(groups[i], "groupName")],
               idleTimeout, patch);
  }
  if (!patch.empty()) submitPatch(patch);
}

bool AutoscalerLoop::safeToScale(const Json& rayCluster, const std::set<std::string>& nodes) {
  Json patch = Json::array();
  const Json& groups = jsonAt(rayCluster, {"spec", "workerGroupSpecs"});
  for (std::size_t i = 0; i < (groups.is_array() ? groups.size() : 0); ++i) {
    const Json& workersToDelete = jsonAt(groups[i], {"scaleStrategy", "workersToDelete"});
    if (!workersToDelete.is_array() || workersToDelete.empty()) continue;
    for (const Json& worker : workersToDelete) {
      if (worker.is_string() && nodes.count(worker.get<std::string>())) {
        print(fmt::format("Waiting for operator to remove worker {}.", worker.get<std::string>()));
        return false;
      }
    }
    patch.push_back({{"op", "replace"},
                     {"path", fmt::format("/spec/workerGroupSpecs/{}/scaleStrategy", i)},
                     {"value", {{"workersToDelete", Json::array()}}}});
  }
  if (!patch.empty()) {
    print("Cleaning up workers to delete.");
    submitPatch(patch);
  }
  return true;
}

void AutoscalerLoop::scaleGroup(const Json& group, int index,
                                const std::vector<const Json*>& workers, Duration idleTimeout,
                                Json& patch) {
  const std::string groupName = stringField(group, "groupName");
  auto integer = [&group](const char* field, int otherwise) {
    const Json* value = jsonFind(group, field);
    return value && value->is_number_integer() ? value->get<int>() : otherwise;
  };
  const int minReplicas = integer("minReplicas", 0);
  const int maxReplicas = integer("maxReplicas", std::numeric_limits<int>::max());
  // 1 is the default replicas value used by the KubeRay operator (Ray's _worker_group_replicas).
  const int replicas = integer("replicas", 1);
  int demand = options_.demand ? options_.demand->get(ns_, cluster_, groupName) : 0;
  demand = std::clamp(demand, minReplicas, std::max(minReplicas, maxReplicas));

  std::vector<const Json*> oldestFirst = workers;
  std::sort(oldestFirst.begin(), oldestFirst.end(), [](const Json* a, const Json* b) {
    return std::pair(meta::creationTimestamp(*a), meta::name(*a)) <
           std::pair(meta::creationTimestamp(*b), meta::name(*b));
  });
  const TimePoint now = context_.lock() ? context_.lock()->now() : TimePoint{};
  std::vector<std::string> idleLongEnough;
  for (std::size_t i = 0; i < oldestFirst.size(); ++i) {
    const std::string name = meta::name(*oldestFirst[i]);
    if (static_cast<int>(i) < demand) {
      idleSince_.erase(name);
      continue;
    }
    auto [since, inserted] = idleSince_.try_emplace(name, now);
    if (now - since->second >= idleTimeout) idleLongEnough.push_back(name);
  }

  const std::string path = fmt::format("/spec/workerGroupSpecs/{}", index);
  if (demand > replicas) {
    print(fmt::format("Adding {} node(s) of type {}.", demand - replicas, groupName));
    patch.push_back({{"op", "replace"}, {"path", path + "/replicas"}, {"value", demand}});
    return;
  }
  const int removable = std::max(0, static_cast<int>(workers.size()) - minReplicas);
  if (idleLongEnough.size() > static_cast<std::size_t>(removable)) idleLongEnough.resize(removable);
  if (idleLongEnough.empty()) return;
  for (const std::string& name : idleLongEnough) {
    print(fmt::format("Terminating worker {} of type {}: idle for over {} s.", name, groupName,
                      std::chrono::duration_cast<std::chrono::seconds>(idleTimeout).count()));
    idleSince_.erase(name);
  }
  const int target = static_cast<int>(workers.size() - idleLongEnough.size());
  if (target != replicas) {
    patch.push_back({{"op", "replace"}, {"path", path + "/replicas"}, {"value", target}});
  }
  // Ray replaces scaleStrategy; kube-apiserver's JSON patch lets a replace create an absent
  // member, fakekube's refuses it, so an absent scaleStrategy is added instead.
  patch.push_back({{"op", jsonFind(group, "scaleStrategy") ? "replace" : "add"},
                   {"path", path + "/scaleStrategy"},
                   {"value", {{"workersToDelete", idleLongEnough}}}});
}

void AutoscalerLoop::submitPatch(const Json& patch) {
  if (auto denied = forbidden("ray.io", "rayclusters", "patch", cluster_)) {
    print(*denied);
    return;
  }
  print(
      fmt::format("Autoscaler is submitting the following patch to RayCluster {} in namespace "
                  "{}.",
                  cluster_, ns_));
  print(patch.dump());
  auto patched = options_.client->patch(kRayClusters, ns_, cluster_, PatchType::Json, patch.dump());
  if (!patched) print(patched.error().message);
}

class RayAutoscalerProcess final : public Process {
 public:
  explicit RayAutoscalerProcess(RayAutoscalerOptions options)
      : loop_(std::make_shared<AutoscalerLoop>(std::move(options))) {}
  void start(std::shared_ptr<ProcessContext> context) override { loop_->start(context); }
  void stop() override { loop_.reset(); }

 private:
  std::shared_ptr<AutoscalerLoop> loop_;
};

}  // namespace

ProcessFactory rayAutoscaler(RayAutoscalerOptions options) {
  return [options = std::move(options)]() -> std::unique_ptr<Process> {
    return std::make_unique<RayAutoscalerProcess>(options);
  };
}

}  // namespace fakekube::ray
