#include "fakekube/cluster/endpoints_controller.h"

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

constexpr std::string_view kHeadlessLabel = "service.kubernetes.io/headless";

Json addressOf(const Json& service, const Json& pod) {
  Json address = {{"ip", pod["status"].value("podIP", "")},
                  {"targetRef",
                   {{"kind", "Pod"},
                    {"namespace", meta::namespace_(pod)},
                    {"name", meta::name(pod)},
                    {"uid", meta::uid(pod)}}}};
  if (auto node = podNodeName(pod); !node.empty()) address["nodeName"] = node;
  const Json& podSpec = pod["spec"];
  if (podSpec.is_object() && !podSpec.value("hostname", "").empty() &&
      podSpec.value("subdomain", "") == meta::name(service)) {
    address["hostname"] = podSpec["hostname"];
  }
  return address;
}

void sortByIp(Json& addresses) {
  std::sort(addresses.begin(), addresses.end(), [](const Json& a, const Json& b) {
    return std::make_pair(a.value("ip", ""), a["targetRef"].value("name", "")) <
           std::make_pair(b.value("ip", ""), b["targetRef"].value("name", ""));
  });
}

ReconcileOutcome reconcileEndpoints(Manager& manager, const ReconcileRequest& request) {
  Client& client = manager.client();
  auto current = manager.cache().getShared(kEndpoints, request.namespace_, request.name);
  auto read = manager.cache().getShared(kServices, request.namespace_, request.name);
  if (!read) {
    if (!isNotFound(read.error())) return reconcileError(read.error());
    if (current) {
      auto deleted = client.deleteObject(kEndpoints, request.namespace_, request.name);
      if (!deleted && !isNotFound(deleted.error())) return reconcileError(deleted.error());
    }
    return ReconcileResult{};
  }
  const Json& service = **read;
  if (meta::isDeleting(service) || !serviceHasSelector(service)) return ReconcileResult{};
  const bool publishNotReady = service["spec"].value("publishNotReadyAddresses", false);

  // One subset per set of resolved ports, in the order of the ports' JSON text (see
  // sortByPortsText).
  std::vector<std::pair<Json, Json>> subsets;  // ports -> subset
  for (const auto& pod : podsSelectedBy(manager.cache(), service)) {
    if (!shouldPodBeInEndpoints(*pod, publishNotReady)) {
      continue;
    }
    Json ports = endpointPorts(service, *pod);
    auto found = std::find_if(subsets.begin(), subsets.end(),
                              [&ports](const auto& s) { return sameJson(s.first, ports); });
    if (found == subsets.end()) {
      Json subset = Json::object();
      if (!ports.empty()) subset["ports"] = ports;
      // emplace_back, not insert({...}): a braced pair of Json reads as a list of two pairs.
      subsets.emplace_back(std::move(ports), std::move(subset));
      found = subsets.end() - 1;
    }
    Json& subset = found->second;
    const char* list = publishNotReady || isPodReady(*pod) ? "addresses" : "notReadyAddresses";
    subset[list].push_back(addressOf(service, *pod));
  }
  sortByPortsText(subsets);
  Json subsetList = Json::array();
  for (auto& [ports, subset] : subsets) {
    if (subset.contains("addresses")) sortByIp(subset["addresses"]);
    if (subset.contains("notReadyAddresses")) sortByIp(subset["notReadyAddresses"]);
    subsetList.push_back(std::move(subset));
  }

  Json labels = meta::labels(service).is_object() ? meta::labels(service) : Json::object();
  if (isHeadless(service)) {
    labels[std::string(kHeadlessLabel)] = "";
  } else {
    labels.erase(std::string(kHeadlessLabel));
  }

  if (current) {
    const Json& existing = **current;
    if (jsonArrayAt(existing, "subsets") == subsetList && meta::labels(existing) == labels) {
      return ReconcileResult{};
    }
    Json updated = existing;
    updated["metadata"]["labels"] = labels;
    if (subsetList.empty()) {
      updated.erase("subsets");
    } else {
      updated["subsets"] = subsetList;
    }
    auto written = client.updateShared(kEndpoints, std::move(updated));
    if (!written) return reconcileError(written.error());
    return ReconcileResult{};
  }
  if (!isNotFound(current.error())) return reconcileError(current.error());
  Json endpoints = {
      {"apiVersion", "v1"},
      {"kind", "Endpoints"},
      {"metadata",
       {{"name", request.name}, {"namespace", request.namespace_}, {"labels", labels}}}};
  if (!subsetList.empty()) endpoints["subsets"] = subsetList;
  auto created = client.createShared(kEndpoints, std::move(endpoints));
  // AlreadyExists: the cache lags behind the server; the retry sees it.
  if (!created) return reconcileError(created.error());
  return ReconcileResult{};
}

}  // namespace

Result<Controller*> addEndpointsController(Manager& manager, EndpointsControllerOptions options) {
  return ControllerBuilder(manager)
      .named("endpoints")
      .forResource(kServices)
      .watches(kPods, servicesOfPodHandler(manager.cache()))
      .watches(kEndpoints, enqueueRequestForObject())
      .withOptions({.maxConcurrentReconciles = options.workers})
      .complete([&manager](const ReconcileRequest& request) {
        return reconcileEndpoints(manager, request);
      });
}

}  // namespace fakekube
