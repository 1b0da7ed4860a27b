#include "fakekube/cluster/service_endpoints.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cache/informer.h"
#include "fakekube/cluster/controller_utils.h"

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
      for (const auto& container : pod["spec"].value("containers", Json::array())) {
        if (!container.is_object()) continue;
        for (const auto& port : container.value("ports", Json::array())) {
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

Json endpointPorts(const Json& service, const Json& pod) {
  Json out = Json::array();
  for (const auto& servicePort : serviceSpec(service).value("ports", Json::array())) {
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

EventHandler servicesOfPodHandler(Cache& cache) {
  auto servicesOf = [&cache](const Json& pod, const Json* oldPod) {
    std::vector<ReconcileRequest> out;
    for (const auto& service : listInNamespace(cache, kServices, meta::namespace_(pod))) {
      if (serviceSelects(*service, meta::labels(pod)) ||
          (oldPod && serviceSelects(*service, meta::labels(*oldPod)))) {
        out.push_back({meta::namespace_(*service), meta::name(*service)});
      }
    }
    return out;
  };
  EventHandler h;
  h.create = [servicesOf](const ObjectPtr& pod) {
    return pod ? servicesOf(*pod, nullptr) : std::vector<ReconcileRequest>{};
  };
  h.update = [servicesOf](const ObjectPtr& oldPod, const ObjectPtr& newPod) {
    if (!oldPod || !newPod || meta::resourceVersion(*oldPod) == meta::resourceVersion(*newPod)) {
      return std::vector<ReconcileRequest>{};
    }
    return servicesOf(*newPod, oldPod.get());
  };
  h.delete_ = [servicesOf](const ObjectPtr& pod) {
    return pod ? servicesOf(*pod, nullptr) : std::vector<ReconcileRequest>{};
  };
  return h;
}

}  // namespace fakekube::workload
