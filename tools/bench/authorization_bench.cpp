// One RBAC authorization against one in-process GET, in the same run (docs/performance.md).
//
// BM_AuthorizeRequest: the KubeRay operator's ServiceAccount under KubeRay's shipped RBAC
// (controllers/ray/config/rbac: the ClusterRole `kuberay-operator` and the leader-election Role,
// bound as `kubectl apply -k config/default` binds them), beside 500 unrelated RoleBindings in
// the namespace of the requests and 500 unrelated ClusterRoleBindings, asks for requests the
// operator makes while reconciling: rules listed last in its role (RayCluster status, Events)
// as well as first (pods, services). `ApiServer::authorize` answers with RBAC's reason, the
// more expensive of the server's two paths (a request's own check builds no string when it is
// allowed). BM_AuthorizeRequest/refused asks what the roles do not allow (every binding of the
// user and its groups is visited). Both ask the same questions again and again, as an operator
// does, so they are answered from the thread's memo of answers (the steady state).
// BM_AuthorizeRequest/otherNames asks about objects not asked about before, which the memo answers
// with what it learnt for every name (no rule of the roles names objects).
// BM_AuthorizeRequest/firstAsked asks each question once (in a namespace not asked about before),
// so every answer walks the bindings and is remembered: the cost of a question never asked.
// The peer is BM_ApiGet (api_bench.cpp): the target is under a tenth of it.
//
// BM_ApiGetAs/{server,kuberayOperator}: what authorization adds to a request, in place: the same
// GET of a pod (1,000 of them in turn) by the server itself, which no authorizer looks at, and by
// the operator's ServiceAccount under the same roles.
#include <benchmark/benchmark.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "controllers/ray/internal/operator_rbac.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/auth/authorizer.h"
#include "fakekube/auth/user_info.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::bench {
namespace {

constexpr const char* kOperatorNamespace = "ray-system";
constexpr const char* kRequestNamespace = "default";
constexpr int kUnrelatedBindingsOfEachKind = 500;

const GroupVersionResource kBenchClusterRoleBindings{"rbac.authorization.k8s.io", "v1",
                                                     "clusterrolebindings"};
const GroupVersionResource kBenchRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};

// A binding of the bootstrap ClusterRole `role` to one subject nobody in the benchmark is.
Json unrelatedBinding(const std::string& kind, const std::string& name, const std::string& ns,
                      const std::string& role, const std::string& subjectKind) {
  Json binding = {
      {"apiVersion", "rbac.authorization.k8s.io/v1"},
      {"kind", kind},
      {"metadata", {{"name", name}}},
      {"roleRef",
       {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
      {"subjects",
       Json::array({{{"apiGroup", "rbac.authorization.k8s.io"},
                     {"kind", subjectKind},
                     {"name", subjectKind == "User" ? "user-" + name : "group-" + name}}})}};
  if (!ns.empty()) binding["metadata"]["namespace"] = ns;
  return binding;
}

void mustCreate(Result<ObjectPtr> result) {
  if (!result) throw std::runtime_error(result.error().message);
}

struct AuthorizationServer {
  SimExecutor executor;
  std::unique_ptr<ApiServer> api;

  AuthorizationServer() {
    ApiServerOptions options;
    options.seed = 1;
    auto opened = ApiServer::open(executor.clock(), options);
    if (!opened) throw std::runtime_error(opened.error().message);
    api = std::move(*opened);
    InProcessClient admin(*api);
    if (auto installed = ray::installOperatorRbac(admin, kOperatorNamespace); !installed) {
      throw std::runtime_error(installed.error().message);
    }
    for (int i = 0; i < kUnrelatedBindingsOfEachKind; ++i) {
      std::string n = std::to_string(i);
      mustCreate(api->create(
          kBenchRoleBindings, kRequestNamespace,
          unrelatedBinding("RoleBinding", "edit-" + n, kRequestNamespace, "edit", "User")));
      mustCreate(
          api->create(kBenchClusterRoleBindings, "",
                      unrelatedBinding("ClusterRoleBinding", "view-" + n, "", "view", "Group")));
    }
  }
};

AuthorizationAttributes operatorRequest(const UserInfo& user, std::string verb, std::string group,
                                        std::string resource, std::string subresource,
                                        std::string name) {
  AuthorizationAttributes attributes;
  attributes.user = &user;
  attributes.verb = std::move(verb);
  attributes.apiGroup = std::move(group);
  attributes.apiVersion = "v1";
  attributes.resource = std::move(resource);
  attributes.subresource = std::move(subresource);
  attributes.ns = kRequestNamespace;
  attributes.name = std::move(name);
  return attributes;
}

enum class Questions { AllowedAgain, RefusedAgain, AllowedOtherNames, AllowedFirstAsked };

void BM_AuthorizeRequest(benchmark::State& state, Questions questions) {
  AuthorizationServer server;
  const UserInfo user = serviceAccountUser(kOperatorNamespace, ray::kOperatorServiceAccountName);
  const bool allowed = questions != Questions::RefusedAgain;
  std::vector<AuthorizationAttributes> requests;
  if (allowed) {
    requests = {
        operatorRequest(user, "update", "ray.io", "rayclusters", "status", "raycluster-kuberay"),
        operatorRequest(user, "get", "", "pods", "", "raycluster-kuberay-head"),
        operatorRequest(user, "create", "", "services", "", ""),
        operatorRequest(user, "create", "events.k8s.io", "events", "", ""),
    };
  } else {
    requests = {operatorRequest(user, "create", "apps", "deployments", "", ""),
                operatorRequest(user, "deletecollection", "", "secrets", "", "")};
  }
  for (const AuthorizationAttributes& request : requests) {
    if (server.api->authorize(request).allowed() != allowed) {
      state.SkipWithError("KubeRay's shipped roles did not answer as expected");
      return;
    }
  }
  if (questions == Questions::AllowedOtherNames || questions == Questions::AllowedFirstAsked) {
    // Questions no earlier iteration asked, made before the timing starts.
    constexpr std::size_t kQuestions = 1 << 16;
    std::vector<AuthorizationAttributes> newQuestions;
    newQuestions.reserve(kQuestions);
    for (std::size_t n = 0; n < kQuestions; ++n) {
      newQuestions.push_back(requests[n % requests.size()]);
      if (questions == Questions::AllowedOtherNames) {
        newQuestions.back().name = "raycluster-kuberay-" + std::to_string(n);
      } else {
        newQuestions.back().ns = "namespace-" + std::to_string(n);
      }
    }
    requests = std::move(newQuestions);
  }
  std::size_t i = 0;
  for (auto _ : state) {
    auto result = server.api->authorize(requests[i++ % requests.size()]);
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_AuthorizeRequest, allowed, Questions::AllowedAgain);
BENCHMARK_CAPTURE(BM_AuthorizeRequest, refused, Questions::RefusedAgain);
BENCHMARK_CAPTURE(BM_AuthorizeRequest, otherNames, Questions::AllowedOtherNames);
BENCHMARK_CAPTURE(BM_AuthorizeRequest, firstAsked, Questions::AllowedFirstAsked);

void BM_ApiGetAs(benchmark::State& state, bool asOperator) {
  AuthorizationServer server;
  const GroupVersionResource pods{"", "v1", "pods"};
  constexpr int kPods = 1000;
  for (int i = 0; i < kPods; ++i) {
    mustCreate(server.api->create(
        pods, kRequestNamespace,
        Json{{"apiVersion", "v1"},
             {"kind", "Pod"},
             {"metadata", {{"name", "pod-" + std::to_string(i)}}},
             {"spec", {{"containers", Json::array({{{"name", "c"}, {"image", "busybox"}}})}}}}));
  }
  const UserInfo user = serviceAccountUser(kOperatorNamespace, ray::kOperatorServiceAccountName);
  RequestUserScope scope(asOperator ? &user : nullptr);
  if (!server.api->get(pods, kRequestNamespace, "pod-0")) {
    state.SkipWithError("the GET was refused");
    return;
  }
  int i = 0;
  for (auto _ : state) {
    auto pod = server.api->get(pods, kRequestNamespace, "pod-" + std::to_string(i++ % kPods));
    benchmark::DoNotOptimize(pod);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_ApiGetAs, server, false);
BENCHMARK_CAPTURE(BM_ApiGetAs, kuberayOperator, true);

}  // namespace
}  // namespace fakekube::bench
