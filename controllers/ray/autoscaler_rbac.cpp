#include "controllers/ray/internal/autoscaler_rbac.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "controllers/ray/internal/event_action.h"
#include "controllers/ray/internal/naming.h"
#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/internal/json_build.h"
#include "fakekube/api/object_meta.h"

namespace fakekube::ray {

namespace {

Json rbacObjectMeta(const Json& rayCluster, const std::string& name) {
  return jsonObject(
      "name", name, "namespace", meta::namespace_(rayCluster), "labels",
      jsonObject(std::string(kRayClusterLabelKey), meta::name(rayCluster),
                 std::string(kKubernetesApplicationNameLabelKey), std::string(kApplicationName),
                 std::string(kKubernetesCreatedByLabelKey), std::string(kComponentName)));
}

Json policyRule(std::string_view apiGroup, std::string_view resource,
                std::initializer_list<std::string_view> verbs) {
  Json verbList = Json::array();
  for (std::string_view verb : verbs) verbList.push_back(std::string(verb));
  return jsonObject("apiGroups", Json::array({std::string(apiGroup)}), "resources",
                    Json::array({std::string(resource)}), "verbs", std::move(verbList));
}

// What one of the three steps creates, and how its Events name it.
struct AutoscalerObject {
  const GroupVersionResource& gvr;
  std::string noun;           // "service account", "role", "role binding"
  std::string createdReason;  // CreatedServiceAccount ...
  std::string failedReason;   // FailedToCreateServiceAccount ...
};

// The shared body of the steps: get it from the cache; absent -> create it (clipped name,
// controller owner reference), AlreadyExists counting as success.
Result<void> createIfAbsent(Client& client, EventRecorder& recorder, const Json& instance,
                            const AutoscalerObject& kind, Json object) {
  const std::string ns = meta::namespace_(instance);
  // Looked up by the unclipped name, created with the clipped one, as upstream: a cluster name
  // over 50 characters makes every round try the create (AlreadyExists).
  auto existing = client.get(kind.gvr, ns, meta::name(object));
  if (existing) return {};
  if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
  meta::setName(object, checkName(meta::name(object)));
  meta::addOwnerReference(object, meta::controllerRefTo(instance));
  const std::string name = meta::name(object);
  auto created = client.create(kind.gvr, std::move(object));
  if (!created) {
    if (isAlreadyExists(created.error())) return {};
    (void)recorder.event(
        instance, "Warning", kind.failedReason, eventActionOf(kind.failedReason),
        fmt::format("Failed creating {} {}/{}, {}", kind.noun, ns, name, created.error().message));
    return tl::unexpected(created.error());
  }
  (void)recorder.event(instance, "Normal", kind.createdReason, eventActionOf(kind.createdReason),
                       fmt::format("Created {} {}/{}", kind.noun, ns, name));
  return {};
}

}  // namespace

Json buildServiceAccount(const Json& rayCluster) {
  return jsonObject("apiVersion", "v1", "kind", "ServiceAccount", "metadata",
                    rbacObjectMeta(rayCluster, headGroupServiceAccountName(rayCluster)));
}

Json buildRole(const Json& rayCluster) {
  return jsonObject("apiVersion", "rbac.authorization.k8s.io/v1", "kind", "Role", "metadata",
                    rbacObjectMeta(rayCluster, meta::name(rayCluster)), "rules",
                    Json::array({policyRule("", "pods", {"get", "list", "watch", "patch"}),
                                 policyRule("", "pods/resize", {"patch"}),
                                 policyRule(kGroup, "rayclusters", {"get", "patch"})}));
}

Json buildRoleBinding(const Json& rayCluster) {
  // Clipped as reconcileAutoscalerServiceAccount and reconcileAutoscalerRole clip the names.
  Json subject = jsonObject("kind", "ServiceAccount", "name",
                            checkName(headGroupServiceAccountName(rayCluster)), "namespace",
                            meta::namespace_(rayCluster));
  return jsonObject("apiVersion", "rbac.authorization.k8s.io/v1", "kind", "RoleBinding", "metadata",
                    rbacObjectMeta(rayCluster, meta::name(rayCluster)), "subjects",
                    Json::array({std::move(subject)}), "roleRef",
                    jsonObject("apiGroup", "rbac.authorization.k8s.io", "kind", "Role", "name",
                               checkName(meta::name(rayCluster))));
}

Result<void> reconcileAutoscalerServiceAccount(Client& client, EventRecorder& recorder,
                                               const Json& instance) {
  if (!isAutoscalingEnabled(instance)) return {};
  const std::string ns = meta::namespace_(instance);
  const std::string name = headGroupServiceAccountName(instance);
  // A ServiceAccount the user named is the user's to create.
  if (stringField(podSpecOf(headGroupSpec(instance)), "serviceAccountName") == name) {
    auto existing = client.get(kServiceAccounts, ns, name);
    if (existing) return {};
    if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
    const std::string actionable = fmt::format(
        "If users specify ServiceAccountName for the head Pod, they need to create a "
        "ServiceAccount themselves. However, ServiceAccount {} is not found. Please create one. "
        "See the PR description of https://github.com/ray-project/kuberay/pull/1128 for more "
        "details.",
        name);
    (void)recorder.event(instance, "Warning", "AutoscalerServiceAccountNotFound", "Validate",
                         fmt::format("Failed to reconcile RayCluster {}/{}. {}", ns,
                                     meta::name(instance), actionable));
    return tl::unexpected(existing.error());
  }
  static const AutoscalerObject kServiceAccount{
      kServiceAccounts, "service account", "CreatedServiceAccount", "FailedToCreateServiceAccount"};
  return createIfAbsent(client, recorder, instance, kServiceAccount, buildServiceAccount(instance));
}

Result<void> reconcileAutoscalerRole(Client& client, EventRecorder& recorder,
                                     const Json& instance) {
  if (!isAutoscalingEnabled(instance)) return {};
  static const AutoscalerObject kRole{kRoles, "role", "CreatedRole", "FailedToCreateRole"};
  return createIfAbsent(client, recorder, instance, kRole, buildRole(instance));
}

Result<void> reconcileAutoscalerRoleBinding(Client& client, EventRecorder& recorder,
                                            const Json& instance) {
  if (!isAutoscalingEnabled(instance)) return {};
  static const AutoscalerObject kRoleBinding{kRoleBindings, "role binding", "CreatedRoleBinding",
                                             "FailedToCreateRoleBinding"};
  return createIfAbsent(client, recorder, instance, kRoleBinding, buildRoleBinding(instance));
}

}  // namespace fakekube::ray
