#include "fakekube/runtime/handler.h"

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "fakekube/api/group_version.h"
#include "fakekube/api/object_meta.h"

namespace fakekube {

namespace {

ReconcileRequest requestFor(const Json& object) {
  return ReconcileRequest{meta::namespace_(object), meta::name(object)};
}

// The requests for the old and the new object, without duplicates, in that order.
std::vector<ReconcileRequest> both(std::vector<ReconcileRequest> a,
                                   const std::vector<ReconcileRequest>& b) {
  for (const auto& r : b) {
    if (std::find(a.begin(), a.end(), r) == a.end()) a.push_back(r);
  }
  return a;
}

}  // namespace

EventHandler enqueueRequestForObject() {
  EventHandler h;
  auto one = [](const ObjectPtr& object) -> std::vector<ReconcileRequest> {
    if (!object) return {};
    return {requestFor(*object)};
  };
  h.create = one;
  h.delete_ = one;
  h.generic = one;
  h.update = [](const ObjectPtr& oldObject,
                const ObjectPtr& newObject) -> std::vector<ReconcileRequest> {
    if (newObject) return {requestFor(*newObject)};
    if (oldObject) return {requestFor(*oldObject)};
    return {};
  };
  return h;
}

std::vector<ReconcileRequest> ownerRequests(const Json& object, const std::string& ownerGroup,
                                            const std::string& ownerKind, bool onlyController,
                                            bool ownerNamespaced) {
  std::vector<ReconcileRequest> out;
  for (const auto& ref : meta::ownerReferenceViews(object)) {
    if (onlyController && !ref.controller) continue;
    if (ref.kind != ownerKind) continue;
    if (meta::groupOf(ref.apiVersion) != ownerGroup) continue;
    ReconcileRequest r{ownerNamespaced ? meta::namespace_(object) : std::string(),
                       std::string(ref.name)};
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(std::move(r));
  }
  return out;
}

EventHandler enqueueRequestsFromMapFunc(MapFunc fn) {
  auto f = std::make_shared<const MapFunc>(std::move(fn));
  EventHandler h;
  auto one = [f](const ObjectPtr& object) -> std::vector<ReconcileRequest> {
    if (!object) return {};
    return (*f)(*object);
  };
  h.create = one;
  h.delete_ = one;
  h.generic = one;
  h.update = [f](const ObjectPtr& oldObject, const ObjectPtr& newObject) {
    std::vector<ReconcileRequest> out;
    if (oldObject) out = (*f)(*oldObject);
    if (newObject) out = both(std::move(out), (*f)(*newObject));
    return out;
  };
  return h;
}

EventHandler enqueueRequestForOwner(std::string ownerGroup, std::string ownerKind,
                                    bool onlyController, bool ownerNamespaced) {
  return enqueueRequestsFromMapFunc([group = std::move(ownerGroup), kind = std::move(ownerKind),
                                     onlyController, ownerNamespaced](const Json& object) {
    return ownerRequests(object, group, kind, onlyController, ownerNamespaced);
  });
}

}  // namespace fakekube
