#include "fakekube/cluster/internal/scheduler_default_selector.h"

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"

namespace fakekube::scheduling {

namespace {

bool selects(const Json& selector, const Json& labels) {
  if (!labels.is_object()) return false;
  for (const auto& [key, value] : selector.items()) {
    auto it = labels.find(key);
    if (it == labels.end() || *it != value) return false;
  }
  return true;
}

std::string serviceKey(const Json& service) {
  return meta::namespace_(service) + "/" + meta::name(service);
}

// A metav1.LabelSelector's requirements as matchExpressions (matchLabels as In).
void appendRequirements(const Json& selector, Json& expressions) {
  for (const auto& [key, value] : jsonObjectAt(selector, "matchLabels").items()) {
    expressions.push_back({{"key", key}, {"operator", "In"}, {"values", Json::array({value})}});
  }
  for (const Json& expression : jsonArrayAt(selector, "matchExpressions")) {
    expressions.push_back(expression);
  }
}

}  // namespace

std::string ServiceSelectorIndex::pairKey(std::string_view ns, std::string_view key,
                                          std::string_view value) {
  std::string joined(ns);
  joined.push_back('\0');
  joined.append(key).push_back('\0');
  joined.append(value);
  return joined;
}

void ServiceSelectorIndex::upsert(const Json& service) {
  remove(service);
  const Json& selector = jsonAt(service, {"spec", "selector"});
  if (!selector.is_object() || selector.empty()) return;  // selects nothing
  const std::string ns = meta::namespace_(service);
  std::string best;
  std::size_t bestSize = 0;
  for (const auto& [key, value] : selector.items()) {
    if (!value.is_string()) return;
    std::string pair = pairKey(ns, key, value.get_ref<const std::string&>());
    auto it = byPair_.find(pair);
    const std::size_t size = it == byPair_.end() ? 0 : it->second.size();
    if (best.empty() || size < bestSize) {
      best = std::move(pair);
      bestSize = size;
    }
  }
  const std::string key = serviceKey(service);
  byPair_[best].insert(key);
  services_[key] = Entry{selector, std::move(best)};
}

void ServiceSelectorIndex::remove(const Json& service) {
  auto it = services_.find(serviceKey(service));
  if (it == services_.end()) return;
  auto filed = byPair_.find(it->second.filedUnder);
  if (filed != byPair_.end()) {
    filed->second.erase(it->first);
    if (filed->second.empty()) byPair_.erase(filed);
  }
  services_.erase(it);
}

Json ServiceSelectorIndex::mergedSelectorFor(std::string_view ns, const Json& labels) const {
  Json merged = Json::object();
  if (!labels.is_object()) return merged;
  for (const auto& [key, value] : labels.items()) {
    if (!value.is_string()) continue;
    auto filed = byPair_.find(pairKey(ns, key, value.get_ref<const std::string&>()));
    if (filed == byPair_.end()) continue;
    for (const std::string& service : filed->second) {
      const Json& selector = services_.at(service).selector;
      if (!selects(selector, labels)) continue;
      for (const auto& [k, v] : selector.items()) merged[k] = v;
    }
  }
  return merged;
}

std::optional<LabelSelector> defaultSpreadSelector(const Json& pod, Json serviceSelector,
                                                   Reader& reader) {
  const std::string ns = meta::namespace_(pod);
  Json selector = {{"matchLabels", std::move(serviceSelector)},
                   {"matchExpressions", Json::array()}};
  if (auto owner = meta::controllerOf(pod)) {
    const GroupVersionResource* resource = nullptr;
    if (owner->apiVersion == "v1" && owner->kind == "ReplicationController") {
      resource = &kReplicationControllers;
    } else if (owner->apiVersion == "apps/v1" && owner->kind == "ReplicaSet") {
      resource = &kReplicaSets;
    } else if (owner->apiVersion == "apps/v1" && owner->kind == "StatefulSet") {
      resource = &kStatefulSets;
    }
    if (resource != nullptr) {
      if (auto controller = reader.getShared(*resource, ns, owner->name)) {
        const Json& ownerSelector = jsonAt(**controller, {"spec", "selector"});
        if (resource == &kReplicationControllers) {
          // A ReplicationController's selector is a plain map, merged like a Service's.
          if (ownerSelector.is_object()) {
            for (const auto& [k, v] : ownerSelector.items()) selector["matchLabels"][k] = v;
          }
        } else if (ownerSelector.is_object()) {
          appendRequirements(ownerSelector, selector["matchExpressions"]);
        }
      }
    }
  }
  auto parsed = LabelSelector::fromJson(selector);
  if (!parsed || parsed->empty()) return std::nullopt;
  return std::move(*parsed);
}

}  // namespace fakekube::scheduling
