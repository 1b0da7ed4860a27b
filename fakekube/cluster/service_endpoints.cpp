#include "fakekube/cluster/internal/service_endpoints.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cache/informer.h"
#include "fakekube/cluster/internal/controller_utils.h"

namespace fakekube::workload {

namespace {

const Json& serviceSpec(const Json& service) {
  static const Json kEmpty = Json::object();
  auto it = service.find("spec");
  return it != service.end() && it->is_object() ? *it : kEmpty;
}

}  // namespace

bool serviceHasSelector(const Json& service) {
  const Json& spec = serviceSpec(service);
  if (spec.value("type", "") == "ExternalName") return false;
  auto it = spec.find("selector");
  return it != spec.end() && it->is_object() && !it->empty();
}

bool serviceSelects(const Json& service, const Json& labels) {
  if (!serviceHasSelector(service)) return false;
  for (const auto& [key, value] : serviceSpec(service)["selector"].items()) {
    if (!labels.is_object()) return false;
    auto it = labels.find(key);
    if (it == labels.end() || *it != value) return false;
  }
  return true;
}

bool shouldPodBeInEndpoints(const Json& pod, bool includeTerminating) {
  const std::string phase = podPhase(pod);
  if (phase == "Succeeded" || phase == "Failed") return false;
  if (!pod.contains("status") || !pod["status"].is_object()) return false;
  if (pod["status"].value("podIP", "").empty()) return false;
  if (!includeTerminating && meta::isDeleting(pod)) return false;
  return true;
}

bool isHeadless(const Json& service) {
  return serviceSpec(service).value("clusterIP", "") == "None";
}

std::optional<Json> endpointPort(const Json& servicePort, const Json& pod) {
  if (!servicePort.is_object()) return std::nullopt;
  const std::string protocol = servicePort.value("protocol", "TCP");
  std::optional<std::int64_t> number;
  auto target = servicePort.find("targetPort");
  if (target == servicePort.end() || target->is_null()) {
    if (servicePort.contains("port") && servicePort["port"].is_number_integer()) {
      number = servicePort["port"].get<std::int64_t>();
    }
  } else if (target->is_number_integer()) {
    number = target->get<std::int64_t>();
  } else if (target->is_string()) {
    const std::string wanted = target->get<std::string>();
    // A numeric string is a number (intstr.Parse).
    if (!wanted.empty() && std::all_of(wanted.begin(), wanted.end(), ::isdigit)) {
      number = std::stoll(wanted);
    } else if (pod.contains("spec") && pod["spec"].is_object()) {
      for (const auto& container : jsonArrayAt(pod["spec"], "containers")) {
        if (!container.is_object()) continue;
        for (const auto& port : jsonArrayAt(container, "ports")) {
          if (port.is_object() && port.value("name", "") == wanted &&
              port.value("protocol", "TCP") == protocol && port.contains("containerPort") &&
              port["containerPort"].is_number_integer()) {
            number = port["containerPort"].get<std::int64_t>();
            break;
          }
        }
        if (number) break;
      }
    }
  }
  if (!number) return std::nullopt;
  Json out = Json::object();
  if (auto name = servicePort.value("name", ""); !name.empty()) out["name"] = name;
  out["port"] = *number;
  out["protocol"] = protocol;
  if (servicePort.contains("appProtocol")) out["appProtocol"] = servicePort["appProtocol"];
  return out;
}

namespace {

template <class Groups>
void sortGroupsByPortsText(Groups& groups) {
  if (groups.size() < 2) return;
  std::vector<std::pair<std::string, std::size_t>> order;
  order.reserve(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) order.emplace_back(groups[i].first.dump(), i);
  std::sort(order.begin(), order.end());
  Groups sorted;
  sorted.reserve(groups.size());
  for (const auto& entry : order) sorted.push_back(std::move(groups[entry.second]));
  groups = std::move(sorted);
}

}  // namespace

void sortByPortsText(std::vector<std::pair<Json, Json>>& groups) { sortGroupsByPortsText(groups); }
void sortByPortsText(std::vector<std::pair<Json, std::vector<Json>>>& groups) {
  sortGroupsByPortsText(groups);
}

Json endpointPorts(const Json& service, const Json& pod) {
  Json out = Json::array();
  for (const auto& servicePort : jsonArrayAt(serviceSpec(service), "ports")) {
    if (auto port = endpointPort(servicePort, pod)) out.push_back(std::move(*port));
  }
  return out;
}

std::vector<ObjectPtr> podsSelectedBy(Cache& cache, const Json& service) {
  std::vector<ObjectPtr> out;
  if (!serviceHasSelector(service)) return out;
  Informer& pods = cache.informerFor(kPods);
  std::string narrowest;
  std::size_t fewest = 0;
  bool first = true;
  for (const auto& [key, value] : serviceSpec(service)["selector"].items()) {
    std::string pair = key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
    const std::size_t count = pods.countByIndex(kLabelIndex, pair);
    if (first || count < fewest) {
      narrowest = std::move(pair);
      fewest = count;
      first = false;
    }
  }
  const std::string ns = meta::namespace_(service);
  for (auto& pod : pods.byIndex(kLabelIndex, narrowest)) {
    if (meta::namespace_(*pod) != ns || !serviceSelects(service, meta::labels(*pod))) continue;
    out.push_back(std::move(pod));
  }
  return out;
}

namespace {

// Two indexes of the Services informer find a pod's Services without reading every Service of
// its namespace (which made each pod event cost every Service: O(pods x services) in all).
//   kSelectorIndex      "<ns>\x1f<key>=<value>\x1f..." the whole selector, pairs in key order;
//   kSelectorKeysIndex  "<ns>\x1f<key>\x1f..."         the selector's keys alone.
// A pod's Services are, for each selector key set of its namespace whose keys its labels all
// have, the Services filed under the selector made of the pod's values for those keys: an exact
// match on the whole selector, so no Service is missed and none is picked that does not select
// the pod. Key sets are few (one per kind of Service a controller makes), Services many.
// Neither a label key nor a value may hold \x1f, so the values cannot collide.
constexpr std::string_view kSelectorIndex = "serviceSelector";
constexpr std::string_view kSelectorKeysIndex = "serviceSelectorKeys";
constexpr char kSeparator = '\x1f';

// Whether the Service's selector can select a pod at all: a label is a string, so a selector that
// asks for anything else selects none (and is filed under neither index).
bool hasIndexableSelector(const Json& service) {
  if (!serviceHasSelector(service)) return false;
  for (const auto& pairValue : serviceSpec(service)["selector"]) {
    if (!pairValue.is_string()) return false;
  }
  return true;
}

std::vector<std::string> selectorIndexFunc(const Json& service) {
  if (!hasIndexableSelector(service)) return {};
  std::string value = meta::namespace_(service);
  for (const auto& [key, pairValue] : serviceSpec(service)["selector"].items()) {
    value += kSeparator;
    value += key;
    value += '=';
    value += pairValue.get_ref<const std::string&>();
  }
  return {std::move(value)};
}

std::vector<std::string> selectorKeysIndexFunc(const Json& service) {
  if (!hasIndexableSelector(service)) return {};
  std::string value = meta::namespace_(service);
  for (const auto& [key, pairValue] : serviceSpec(service)["selector"].items()) {
    value += kSeparator;
    value += key;
  }
  return {std::move(value)};
}

// Adds to `out` the Services of the pod's namespace whose selector its labels match.
void addServicesSelecting(Informer& services, const Json& pod, std::vector<ReconcileRequest>& out) {
  const Json& labels = meta::labels(pod);
  if (!labels.is_object() || labels.empty()) return;
  const std::string ns = meta::namespace_(pod);
  const std::string prefix = ns + kSeparator;
  for (const std::string& keySet : services.indexValues(kSelectorKeysIndex, prefix)) {
    std::string selector = ns;
    bool matches = true;
    std::size_t begin = prefix.size();
    while (matches && begin <= keySet.size()) {
      std::size_t end = keySet.find(kSeparator, begin);
      if (end == std::string::npos) end = keySet.size();
      auto label = labels.find(keySet.substr(begin, end - begin));
      if (label == labels.end() || !label->is_string()) {
        matches = false;
        break;
      }
      selector += kSeparator;
      selector += label.key();
      selector += '=';
      selector += label->get_ref<const std::string&>();
      begin = end + 1;
    }
    if (!matches) continue;
    for (const auto& service : services.byIndex(kSelectorIndex, selector)) {
      ReconcileRequest request{meta::namespace_(*service), meta::name(*service)};
      if (std::find(out.begin(), out.end(), request) == out.end())
        out.push_back(std::move(request));
    }
  }
}

// Whether a pod's change may change the endpoints it is in (the first of the pair) or which
// Services select it (the second): kube-controller-manager's podEndpointsChanged. Labels,
// hostname and subdomain move a pod between Services; deletion, readiness and the pod's IPs
// change its entry. Most of a pod's writes (its binding, its container statuses before it turns
// Ready) change neither, and both controllers then leave its Services alone. A change of phase to
// or from Succeeded/Failed counts too, since inclusion here also reads the phase.
std::pair<bool, bool> podEndpointsChanged(const Json& oldPod, const Json& newPod) {
  const Json& oldSpec = jsonAt(oldPod, {"spec"});
  const Json& newSpec = jsonAt(newPod, {"spec"});
  const bool labelsChanged = meta::labels(oldPod) != meta::labels(newPod) ||
                             jsonAt(oldSpec, {"hostname"}) != jsonAt(newSpec, {"hostname"}) ||
                             jsonAt(oldSpec, {"subdomain"}) != jsonAt(newSpec, {"subdomain"});
  const Json& oldStatus = jsonAt(oldPod, {"status"});
  const Json& newStatus = jsonAt(newPod, {"status"});
  const bool podChanged = jsonAt(oldPod, {"metadata", "deletionTimestamp"}) !=
                              jsonAt(newPod, {"metadata", "deletionTimestamp"}) ||
                          isPodReady(oldPod) != isPodReady(newPod) ||
                          jsonAt(oldStatus, {"podIP"}) != jsonAt(newStatus, {"podIP"}) ||
                          jsonAt(oldStatus, {"podIPs"}) != jsonAt(newStatus, {"podIPs"}) ||
                          isPodTerminal(oldPod) != isPodTerminal(newPod);
  return {podChanged, labelsChanged};
}

// podEndpointsChanged of the update being reported now. The Endpoints and EndpointSlice
// controllers both register servicesOfPodHandler on the same Pod informer, which calls them one
// after the other for each update: the second finds the answer here. The entry holds the two
// documents, so their addresses cannot be reused by other documents while it is kept.
struct LastPodUpdate {
  ObjectPtr oldPod;
  ObjectPtr newPod;
  std::pair<bool, bool> changed;
};

std::pair<bool, bool> podEndpointsChangedOnce(const ObjectPtr& oldPod, const ObjectPtr& newPod) {
  thread_local LastPodUpdate last;
  if (last.oldPod != oldPod || last.newPod != newPod) {
    last = {oldPod, newPod, podEndpointsChanged(*oldPod, *newPod)};
  }
  return last.changed;
}

}  // namespace

EventHandler servicesOfPodHandler(Cache& cache) {
  Informer& services = cache.informerFor(kServices);
  services.addIndexer(std::string(kSelectorIndex), selectorIndexFunc);
  services.addIndexer(std::string(kSelectorKeysIndex), selectorKeysIndexFunc);
  auto servicesOf = [&services](const Json& pod, const Json* oldPod) {
    std::vector<ReconcileRequest> out;
    addServicesSelecting(services, pod, out);
    if (oldPod) addServicesSelecting(services, *oldPod, out);
    return out;
  };
  EventHandler h;
  h.create = [servicesOf](const ObjectPtr& pod) {
    return pod ? servicesOf(*pod, nullptr) : std::vector<ReconcileRequest>{};
  };
  h.update = [&services, servicesOf](const ObjectPtr& oldPod, const ObjectPtr& newPod) {
    std::vector<ReconcileRequest> out;
    if (!oldPod || !newPod || meta::resourceVersion(*oldPod) == meta::resourceVersion(*newPod)) {
      return out;
    }
    const auto [podChanged, labelsChanged] = podEndpointsChangedOnce(oldPod, newPod);
    if (!podChanged && !labelsChanged) return out;
    // determineNeededServiceUpdates: a changed pod concerns the Services on both sides; a pod
    // that only moved concerns those it left or joined.
    if (podChanged) return servicesOf(*newPod, labelsChanged ? oldPod.get() : nullptr);
    addServicesSelecting(services, *newPod, out);
    std::vector<ReconcileRequest> before;
    addServicesSelecting(services, *oldPod, before);
    std::vector<ReconcileRequest> moved;
    for (auto& request : out) {
      if (std::find(before.begin(), before.end(), request) == before.end())
        moved.push_back(request);
    }
    for (auto& request : before) {
      if (std::find(out.begin(), out.end(), request) == out.end()) moved.push_back(request);
    }
    return moved;
  };
  h.delete_ = [servicesOf](const ObjectPtr& pod) {
    return pod ? servicesOf(*pod, nullptr) : std::vector<ReconcileRequest>{};
  };
  return h;
}

}  // namespace fakekube::workload
