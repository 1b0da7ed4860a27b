#include "fakekube/auth/internal/bootstrap_policy.h"

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/auth/rbac_rules.h"

namespace fakekube {
namespace {

using Strings = std::vector<std::string>;

const Strings kReadVerbs = {"get", "list", "watch"};
const Strings kWriteVerbs = {"create", "update", "patch", "delete", "deletecollection"};
const Strings kReadWriteVerbs = {"get",    "list",  "watch",  "create",
                                 "update", "patch", "delete", "deletecollection"};

Strings sortedStrings(Strings values) {
  std::sort(values.begin(), values.end());
  return values;
}

// rbacv1helpers.NewRule(verbs...).Groups(...).Resources(...).RuleOrDie(): every list sorted.
Json bootstrapResourceRule(const Strings& verbs, const Strings& groups, const Strings& resources) {
  return PolicyRule{sortedStrings(verbs), sortedStrings(groups), sortedStrings(resources), {}, {}}
      .toJson();
}

Json bootstrapUrlRule(const Strings& verbs, const Strings& urls) {
  return PolicyRule{sortedStrings(verbs), {}, {}, {}, sortedStrings(urls)}.toJson();
}

Json bootstrapMetadata(const std::string& name, const Json& extraLabels = Json::object()) {
  Json labels = {{"kubernetes.io/bootstrapping", "rbac-defaults"}};
  for (auto it = extraLabels.begin(); it != extraLabels.end(); ++it) labels[it.key()] = it.value();
  return {{"name", name},
          {"labels", labels},
          {"annotations", {{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

Json bootstrapClusterRole(const std::string& name, Json rules,
                          const Json& labels = Json::object()) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRole"},
          {"metadata", bootstrapMetadata(name, labels)},
          {"rules", std::move(rules)}};
}

// A ClusterRole that aggregates those labelled rbac.authorization.k8s.io/aggregate-to-<to>.
Json aggregatedBootstrapClusterRole(const std::string& name, const std::string& to,
                                    const Json& labels = Json::object()) {
  Json role = bootstrapClusterRole(name, Json::array(), labels);
  role["aggregationRule"] = {
      {"clusterRoleSelectors",
       Json::array(
           {{{"matchLabels", {{"rbac.authorization.k8s.io/aggregate-to-" + to, "true"}}}}})}};
  return role;
}

Json aggregateToLabel(const std::string& to) {
  return {{"rbac.authorization.k8s.io/aggregate-to-" + to, "true"}};
}

Json aggregateToAdminRules() {
  return Json::array(
      {bootstrapResourceRule({"create"}, {"authorization.k8s.io"}, {"localsubjectaccessreviews"}),
       bootstrapResourceRule(kReadWriteVerbs, {"rbac.authorization.k8s.io"},
                             {"roles", "rolebindings"})});
}

Json aggregateToEditRules() {
  return Json::array({
      bootstrapResourceRule(kReadVerbs, {""},
                            {"pods/attach", "pods/proxy", "pods/exec", "pods/portforward",
                             "secrets", "services/proxy"}),
      bootstrapResourceRule({"impersonate"}, {""}, {"serviceaccounts"}),
      bootstrapResourceRule(kWriteVerbs, {""},
                            {"pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"}),
      bootstrapResourceRule({"create"}, {""}, {"pods/eviction"}),
      bootstrapResourceRule(
          kWriteVerbs, {""},
          {"replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services",
           "services/proxy", "persistentvolumeclaims", "configmaps", "secrets"}),
      bootstrapResourceRule({"create"}, {""}, {"serviceaccounts/token"}),
      bootstrapResourceRule(
          kWriteVerbs, {"apps"},
          {"statefulsets", "statefulsets/scale", "daemonsets", "deployments", "deployments/scale",
           "deployments/rollback", "replicasets", "replicasets/scale"}),
      bootstrapResourceRule(kWriteVerbs, {"autoscaling"}, {"horizontalpodautoscalers"}),
      bootstrapResourceRule(kWriteVerbs, {"batch"}, {"jobs", "cronjobs"}),
      bootstrapResourceRule(
          kWriteVerbs, {"extensions"},
          {"daemonsets", "deployments", "deployments/scale", "deployments/rollback", "ingresses",
           "replicasets", "replicasets/scale", "replicationcontrollers/scale", "networkpolicies"}),
      bootstrapResourceRule(kWriteVerbs, {"policy"}, {"poddisruptionbudgets"}),
      bootstrapResourceRule(kWriteVerbs, {"networking.k8s.io"}, {"networkpolicies", "ingresses"}),
  });
}

Json aggregateToViewRules() {
  return Json::array({
      bootstrapResourceRule(
          kReadVerbs, {""},
          {"pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
           "services", "services/status", "endpoints", "persistentvolumeclaims",
           "persistentvolumeclaims/status", "configmaps"}),
      bootstrapResourceRule(kReadVerbs, {""},
                            {"limitranges", "resourcequotas", "bindings", "events", "pods/status",
                             "resourcequotas/status", "namespaces/status",
                             "replicationcontrollers/status", "pods/log"}),
      // Reading namespaces in a namespace means reading that namespace: a hint of which
      // namespaces a user has access to.
      bootstrapResourceRule(kReadVerbs, {""}, {"namespaces"}),
      bootstrapResourceRule(kReadVerbs, {"discovery.k8s.io"}, {"endpointslices"}),
      bootstrapResourceRule(
          kReadVerbs, {"apps"},
          {"controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
           "daemonsets", "daemonsets/status", "deployments", "deployments/status",
           "deployments/scale", "replicasets", "replicasets/status", "replicasets/scale"}),
      bootstrapResourceRule(kReadVerbs, {"autoscaling"},
                            {"horizontalpodautoscalers", "horizontalpodautoscalers/status"}),
      bootstrapResourceRule(kReadVerbs, {"batch"},
                            {"jobs", "cronjobs", "cronjobs/status", "jobs/status"}),
      bootstrapResourceRule(kReadVerbs, {"extensions"},
                            {"daemonsets", "daemonsets/status", "deployments", "deployments/scale",
                             "deployments/status", "ingresses", "ingresses/status", "replicasets",
                             "replicasets/scale", "replicasets/status",
                             "replicationcontrollers/scale", "networkpolicies"}),
      bootstrapResourceRule(kReadVerbs, {"policy"},
                            {"poddisruptionbudgets", "poddisruptionbudgets/status"}),
      bootstrapResourceRule(kReadVerbs, {"networking.k8s.io"},
                            {"networkpolicies", "ingresses", "ingresses/status"}),
  });
}

Json bootstrapClusterRoleBinding(const std::string& role, const Strings& groups) {
  Json subjects = Json::array();
  for (const std::string& group : groups) {
    subjects.push_back(
        {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Group"}, {"name", group}});
  }
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "ClusterRoleBinding"},
          {"metadata", bootstrapMetadata(role)},
          {"roleRef",
           {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
          {"subjects", std::move(subjects)}};
}

}  // namespace

std::vector<Json> bootstrapClusterRoles() {
  return {
      // A "root" role which can do absolutely anything.
      bootstrapClusterRole("cluster-admin", Json::array({bootstrapResourceRule({"*"}, {"*"}, {"*"}),
                                                         bootstrapUrlRule({"*"}, {"*"})})),
      // Just enough to tell whether the server is ready and to discover API versions.
      bootstrapClusterRole(
          "system:discovery",
          Json::array({bootstrapUrlRule(
              {"get"}, {"/livez", "/readyz", "/healthz", "/version", "/version/", "/openapi",
                        "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"})})),
      // What a user needs to learn about themselves.
      bootstrapClusterRole("system:basic-user",
                           Json::array({bootstrapResourceRule({"create"}, {"authorization.k8s.io"},
                                                              {"selfsubjectaccessreviews",
                                                               "selfsubjectrulesreviews"}),
                                        bootstrapResourceRule({"create"}, {"authentication.k8s.io"},
                                                              {"selfsubjectreviews"})})),
      // The cluster information that is not sensitive.
      bootstrapClusterRole("system:public-info-viewer",
                           Json::array({bootstrapUrlRule({"get"}, {"/livez", "/readyz", "/healthz",
                                                                   "/version", "/version/"})})),
      // A namespace's admin: edit, and granting permissions to others in the namespace.
      aggregatedBootstrapClusterRole("admin", "admin"),
      // Every user-level action in a namespace, but not the "privileged" resources: status
      // subresources, quotas and limits, roles and bindings.
      aggregatedBootstrapClusterRole("edit", "edit", aggregateToLabel("admin")),
      // Read-only access to the resources of a namespace that do not escalate (no secrets).
      aggregatedBootstrapClusterRole("view", "view", aggregateToLabel("edit")),
      bootstrapClusterRole("system:aggregate-to-admin", aggregateToAdminRules(),
                           aggregateToLabel("admin")),
      bootstrapClusterRole("system:aggregate-to-edit", aggregateToEditRules(),
                           aggregateToLabel("edit")),
      bootstrapClusterRole("system:aggregate-to-view", aggregateToViewRules(),
                           aggregateToLabel("view")),
  };
}

std::vector<Json> bootstrapClusterRoleBindings() {
  return {
      bootstrapClusterRoleBinding("cluster-admin", {"system:masters"}),
      bootstrapClusterRoleBinding("system:discovery", {"system:authenticated"}),
      bootstrapClusterRoleBinding("system:basic-user", {"system:authenticated"}),
      bootstrapClusterRoleBinding("system:public-info-viewer",
                                  {"system:authenticated", "system:unauthenticated"}),
  };
}

}  // namespace fakekube
