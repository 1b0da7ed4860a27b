#include "fakekube/cluster/endpointslice_controller.h"

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/cluster/internal/service_endpoints.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

using namespace workload;  // NOLINT: the shared controller helpers

constexpr std::string_view kServiceNameLabel = "kubernetes.io/service-name";
constexpr std::string_view kManagedByLabel = "endpointslice.kubernetes.io/managed-by";
constexpr std::string_view kManagedBy = "endpointslice-controller.k8s.io";
constexpr std::string_view kHeadlessServiceLabel = "service.kubernetes.io/headless";

Json endpointOf(const Json& service, const Json& pod) {
  const bool publishNotReady =
      service.contains("spec") && service["spec"].value("publishNotReadyAddresses", false);
  const bool serving = publishNotReady || isPodReady(pod);
  const bool terminating = meta::isDeleting(pod);
  const bool ready = publishNotReady || (serving && !terminating);
  Json endpoint = {
      {"addresses", Json::array({pod["status"].value("podIP", "")})},
      {"conditions", {{"ready", ready}, {"serving", serving}, {"terminating", terminating}}},
      {"targetRef",
       {{"kind", "Pod"},
        {"namespace", meta::namespace_(pod)},
        {"name", meta::name(pod)},
        {"uid", meta::uid(pod)}}}};
  if (auto node = podNodeName(pod); !node.empty()) endpoint["nodeName"] = node;
  const Json& podSpec = pod["spec"];
  if (podSpec.is_object() && !podSpec.value("hostname", "").empty() &&
      podSpec.value("subdomain", "") == meta::name(service)) {
    endpoint["hostname"] = podSpec["hostname"];
  }
  return endpoint;
}

Json sliceLabels(const Json& service) {
  Json labels = meta::labels(service).is_object() ? meta::labels(service) : Json::object();
  labels[std::string(kServiceNameLabel)] = meta::name(service);
  labels[std::string(kManagedByLabel)] = kManagedBy;
  if (isHeadless(service)) {
    labels[std::string(kHeadlessServiceLabel)] = "";
  } else {
    labels.erase(std::string(kHeadlessServiceLabel));
  }
  return labels;
}

// The endpoints of the pods a Service selects, grouped by their resolved ports.
using EndpointsByPortMap = std::vector<std::pair<Json, std::vector<Json>>>;

// A slice the Service should have: its ports and at most maxEndpointsPerSlice endpoints.
struct DesiredSlice {
  Json ports;
  Json endpoints;
};

class EndpointSliceController {
 public:
  EndpointSliceController(Manager& manager, EndpointSliceControllerOptions options)
      : manager_(manager), options_(options) {}

  ReconcileOutcome reconcile(const ReconcileRequest& request);

 private:
  std::vector<ObjectPtr> managedSlices(const std::string& ns, const std::string& service);
  // The endpoints of the ready (or publishable) pods the Service selects, by name, grouped by
  // their ports in the order of the ports' JSON text (a stable order; a pod's ports are nearly
  // always its Service's, one group, and then no text is made).
  EndpointsByPortMap endpointsByPortMap(const Json& service);
  // The groups cut into slices of at most maxEndpointsPerSlice endpoints; one empty placeholder
  // slice when there is no endpoint.
  std::vector<DesiredSlice> desiredSlices(EndpointsByPortMap groups) const;
  // Updates or creates a slice for each desired one, reusing existing slices (same ports
  // first), and answers the existing slices left over (reconcileByPortMapping and finalize).
  Result<std::vector<ObjectPtr>> reconcileSlices(const Json& service,
                                                 const std::vector<ObjectPtr>& existing,
                                                 const std::vector<DesiredSlice>& desired);
  ReconcileOutcome deleteSlices(const std::string& ns, const std::vector<ObjectPtr>& slices);

  Manager& manager_;
  const EndpointSliceControllerOptions options_;
};

std::vector<ObjectPtr> EndpointSliceController::managedSlices(const std::string& ns,
                                                              const std::string& service) {
  // The slices filed under the Service's name label (the label index), not every slice of the
  // namespace: that cost every slice for every Service reconcile.
  std::vector<ObjectPtr> out;
  const std::string serviceLabel = std::string(kServiceNameLabel) + "=" + service;
  for (const auto& slice :
       manager_.cache().informerFor(kEndpointSlices).byIndex(kLabelIndex, serviceLabel)) {
    if (meta::namespace_(*slice) == ns && meta::label(*slice, kServiceNameLabel) == service &&
        meta::label(*slice, kManagedByLabel) == kManagedBy && !meta::isDeleting(*slice)) {
      out.push_back(slice);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const ObjectPtr& a, const ObjectPtr& b) { return meta::name(*a) < meta::name(*b); });
  return out;
}

ReconcileOutcome EndpointSliceController::reconcile(const ReconcileRequest& request) {
  auto read = manager_.cache().getShared(kServices, request.namespace_, request.name);
  std::vector<ObjectPtr> existing = managedSlices(request.namespace_, request.name);
  if (!read) {
    if (isNotFound(read.error())) return deleteSlices(request.namespace_, existing);
    return reconcileError(read.error());
  }
  const Json& service = **read;
  if (meta::isDeleting(service)) return ReconcileResult{};
  if (!serviceHasSelector(service)) return deleteSlices(request.namespace_, existing);
  auto leftOver = reconcileSlices(service, existing, desiredSlices(endpointsByPortMap(service)));
  if (!leftOver) return reconcileError(leftOver.error());
  return deleteSlices(request.namespace_, *leftOver);
}

EndpointsByPortMap EndpointSliceController::endpointsByPortMap(const Json& service) {
  EndpointsByPortMap groups;
  std::vector<ObjectPtr> selected;
  for (const auto& pod : podsSelectedBy(manager_.cache(), service)) {
    if (shouldPodBeInEndpoints(*pod, true)) {
      selected.push_back(pod);
    }
  }
  std::sort(selected.begin(), selected.end(),
            [](const ObjectPtr& a, const ObjectPtr& b) { return meta::name(*a) < meta::name(*b); });
  for (const auto& pod : selected) {
    Json ports = endpointPorts(service, *pod);
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&ports](const auto& g) { return sameJson(g.first, ports); });
    if (group == groups.end()) {
      // emplace_back, not insert({...}): a braced pair of Json reads as a list of two pairs.
      groups.emplace_back(std::move(ports), std::vector<Json>{});
      group = groups.end() - 1;
    }
    group->second.push_back(endpointOf(service, *pod));
  }
  sortByPortsText(groups);
  return groups;
}

std::vector<DesiredSlice> EndpointSliceController::desiredSlices(EndpointsByPortMap groups) const {
  std::vector<DesiredSlice> desired;
  const std::size_t perSlice = static_cast<std::size_t>(std::max(1, options_.maxEndpointsPerSlice));
  for (auto& [ports, endpoints] : groups) {
    for (std::size_t i = 0; i < endpoints.size(); i += perSlice) {
      Json chunk = Json::array();
      for (std::size_t j = i; j < std::min(endpoints.size(), i + perSlice); ++j) {
        chunk.push_back(endpoints[j]);
      }
      desired.push_back({ports, std::move(chunk)});
    }
  }
  if (desired.empty()) desired.push_back({Json::array(), Json::array()});  // the placeholder
  return desired;
}

Result<std::vector<ObjectPtr>> EndpointSliceController::reconcileSlices(
    const Json& service, const std::vector<ObjectPtr>& existing,
    const std::vector<DesiredSlice>& desired) {
  Client& client = manager_.client();
  const Json labels = sliceLabels(service);
  const Json ownerRef = meta::toJson(meta::controllerRefTo(service));
  std::vector<bool> used(existing.size(), false);
  // Prefer a slice that already carries the same ports, then any unused one.
  auto pick = [&](const Json& ports) -> int {
    for (std::size_t i = 0; i < existing.size(); ++i) {
      if (!used[i] && jsonArrayAt(*existing[i], "ports") == ports) return static_cast<int>(i);
    }
    for (std::size_t i = 0; i < existing.size(); ++i) {
      if (!used[i]) return static_cast<int>(i);
    }
    return -1;
  };
  for (const auto& want : desired) {
    int index = pick(want.ports);
    if (index >= 0) {
      used[index] = true;
      const Json& slice = *existing[index];
      const bool same = jsonArrayAt(slice, "ports") == want.ports &&
                        jsonArrayAt(slice, "endpoints") == want.endpoints &&
                        meta::labels(slice) == labels && meta::isDeleting(slice) == false &&
                        isControlledBy(slice, meta::uid(service));
      if (same) continue;
      Json updated = slice;
      updated["ports"] = want.ports;
      updated["endpoints"] = want.endpoints;
      updated["metadata"]["labels"] = labels;
      if (!isControlledBy(slice, meta::uid(service))) {
        updated["metadata"]["ownerReferences"] = Json::array({ownerRef});
      }
      auto written = client.updateShared(kEndpointSlices, std::move(updated));
      if (!written) return tl::unexpected(written.error());
      continue;
    }
    Json slice = {{"apiVersion", "discovery.k8s.io/v1"},
                  {"kind", "EndpointSlice"},
                  {"metadata",
                   {{"generateName", meta::name(service) + "-"},
                    {"namespace", meta::namespace_(service)},
                    {"labels", labels},
                    {"ownerReferences", Json::array({ownerRef})}}},
                  {"addressType", "IPv4"},
                  {"endpoints", want.endpoints},
                  {"ports", want.ports}};
    auto created = client.createShared(kEndpointSlices, std::move(slice));
    if (!created) return tl::unexpected(created.error());
  }
  std::vector<ObjectPtr> leftOver;
  for (std::size_t i = 0; i < existing.size(); ++i) {
    if (!used[i]) leftOver.push_back(existing[i]);
  }
  return leftOver;
}

ReconcileOutcome EndpointSliceController::deleteSlices(const std::string& ns,
                                                       const std::vector<ObjectPtr>& slices) {
  for (const auto& slice : slices) {
    auto deleted = manager_.client().deleteObject(kEndpointSlices, ns, meta::name(*slice));
    if (!deleted && !isNotFound(deleted.error())) return reconcileError(deleted.error());
  }
  return ReconcileResult{};
}

}  // namespace

Result<Controller*> addEndpointSliceController(Manager& manager,
                                               EndpointSliceControllerOptions options) {
  auto controller = std::make_shared<EndpointSliceController>(manager, options);
  // A slice's events go to the Service named by its label (edits are put back).
  auto sliceHandler = enqueueRequestsFromMapFunc([](const Json& slice) {
    std::vector<ReconcileRequest> out;
    if (meta::label(slice, kManagedByLabel) != kManagedBy) return out;
    if (auto service = meta::label(slice, kServiceNameLabel); !service.empty()) {
      out.push_back({meta::namespace_(slice), service});
    }
    return out;
  });
  return ControllerBuilder(manager)
      .named("endpointslice")
      .forResource(kServices)
      .watches(kPods, servicesOfPodHandler(manager.cache()))
      .watches(kEndpointSlices, std::move(sliceHandler))
      .withOptions({.maxConcurrentReconciles = options.workers})
      .complete(workload::reconcileWith(controller));
}

}  // namespace fakekube
