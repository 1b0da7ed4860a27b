#include "greeting_controller.h"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace greeting {

using fakekube::Json;

const char* const kGreetingCustomResourceDefinition = R"(
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: greetings.example.com
spec:
  group: example.com
  names: {plural: greetings, singular: greeting, kind: Greeting, listKind: GreetingList}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                name: {type: string}
            status:
              type: object
              properties:
                phase: {type: string}
                configMap: {type: string}
)";

namespace {

fakekube::ReconcileOutcome ok() { return fakekube::ReconcileResult{}; }

fakekube::ReconcileOutcome reconcile(fakekube::Client& client,
                                     const fakekube::ReconcileRequest& request) {
  auto greeting = client.get(kGreetings, request.namespace_, request.name);
  if (!greeting) {
    // Deleted: its ConfigMap goes with it (owner reference), nothing to do here.
    return fakekube::isNotFound(greeting.error()) ? ok()
                                                  : fakekube::reconcileError(greeting.error());
  }
  const std::string childName = request.name + "-greeting";
  const Json& name = fakekube::jsonAt(*greeting, {"spec", "name"});
  const std::string text = "Hello, " + (name.is_string() ? name.get<std::string>() : "world") + "!";

  auto child = client.get(kConfigMaps, request.namespace_, childName);
  if (!child) {
    if (!fakekube::isNotFound(child.error())) return fakekube::reconcileError(child.error());
    Json wanted = {{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata", {{"name", childName}, {"namespace", request.namespace_}}},
                   {"data", {{"greeting", text}}}};
    fakekube::meta::addOwnerReference(wanted, fakekube::meta::controllerRefTo(*greeting));
    auto created = client.create(kConfigMaps, std::move(wanted));
    // AlreadyExists: made by this controller before a crash, or seen late by its cache.
    if (!created && !fakekube::isAlreadyExists(created.error())) {
      return fakekube::reconcileError(created.error());
    }
  } else if (fakekube::jsonAt(*child, {"data", "greeting"}) != text) {
    Json updated = std::move(*child);
    updated["data"]["greeting"] = text;
    auto saved = client.update(kConfigMaps, std::move(updated));
    if (!saved) return fakekube::reconcileError(saved.error());  // a conflict retries
  }

  const Json& status = (*greeting)["status"];
  if (status.is_object() && status.value("phase", "") == "Ready" &&
      status.value("configMap", "") == childName) {
    return ok();
  }
  Json updated = std::move(*greeting);
  updated["status"] = {{"phase", "Ready"}, {"configMap", childName}};
  auto saved = client.updateStatus(kGreetings, std::move(updated));
  if (!saved) return fakekube::reconcileError(saved.error());
  return ok();
}

}  // namespace

fakekube::Result<void> addGreetingController(fakekube::Manager& manager) {
  auto controller = fakekube::ControllerBuilder(manager)
                        .named("greeting")
                        .forResource(kGreetings, fakekube::predicate::generationChanged())
                        .owns(kConfigMaps)
                        .complete([&manager](const fakekube::ReconcileRequest& request) {
                          return reconcile(manager.client(), request);
                        });
  if (!controller) return tl::unexpected(controller.error());
  return {};
}

}  // namespace greeting
