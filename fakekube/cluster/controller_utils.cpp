#include "fakekube/cluster/internal/controller_utils.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "fakekube/api/conditions.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/cache/informer.h"

namespace fakekube::workload {

namespace {

const Json& field(const Json& object, std::string_view key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string stringField(const Json& object, std::string_view key) {
  const Json& value = field(object, key);
  return value.is_string() ? value.get<std::string>() : std::string();
}

int phaseOrdinal(const std::string& phase) {
  if (phase == "Pending") return 0;
  if (phase == "Unknown") return 1;
  if (phase == "Running") return 2;
  return 3;
}

// The pod-deletion-cost annotation as an int32 (0 when absent or invalid).
std::int64_t deletionCost(const Json& pod) {
  std::string value = meta::annotation(pod, kPodDeletionCostAnnotation);
  if (value.empty()) return 0;
  try {
    std::size_t used = 0;
    long long cost = std::stoll(value, &used);
    return used == value.size() ? cost : 0;
  } catch (...) {
    return 0;
  }
}

// afterOrZero: an unset time counts as the latest.
bool afterOrZero(const std::optional<TimePoint>& a, const std::optional<TimePoint>& b) {
  if (!a || !b) return !a;
  return *a > *b;
}

}  // namespace

std::int64_t integerMember(const Json& object, std::string_view key, std::int64_t fallback) {
  const Json& value = field(object, key);
  return value.is_number_integer() ? value.get<std::int64_t>() : fallback;
}

bool isPodActive(const Json& pod) {
  std::string phase = podPhase(pod);
  return phase != "Succeeded" && phase != "Failed" && !meta::isDeleting(pod);
}

bool isPodTerminating(const Json& pod) {
  std::string phase = podPhase(pod);
  return phase != "Succeeded" && phase != "Failed" && meta::isDeleting(pod);
}

void addPodNodeNameIndex(Informer& pods) {
  pods.addIndexer(std::string(kPodNodeNameIndex),
                  [](const Json& pod) {
                    std::string node = podNodeName(pod);
                    return node.empty() ? std::vector<std::string>{}
                                        : std::vector<std::string>{std::move(node)};
                  },
                  {"spec", "nodeName"});
}

std::optional<TimePoint> parseTime(const Json& value) {
  if (!value.is_string()) return std::nullopt;
  TimePoint t;
  if (!parseRfc3339(value.get<std::string>(), &t)) return std::nullopt;
  return t;
}

std::optional<TimePoint> podReadySince(const Json& pod) {
  const Json* ready = findCondition(pod, "Ready");
  if (ready == nullptr || stringField(*ready, "status") != "True") return std::nullopt;
  return parseTime(field(*ready, "lastTransitionTime"));
}

bool isPodAvailable(const Json& pod, int minReadySeconds, TimePoint now) {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds == 0) return true;
  auto since = podReadySince(pod);
  return since && *since + std::chrono::seconds(minReadySeconds) < now;
}

namespace {
template <class Fold>
int foldRestarts(const Json& pod, int start, Fold fold) {
  int result = start;
  const Json& status = field(pod, "status");
  for (const char* list : {"containerStatuses", "initContainerStatuses"}) {
    const Json& statuses = field(status, list);
    if (!statuses.is_array()) continue;
    for (const auto& s : statuses) {
      const Json& count = field(s, "restartCount");
      if (count.is_number_integer()) result = fold(result, count.get<int>());
    }
  }
  return result;
}
}  // namespace

int maxContainerRestarts(const Json& pod) {
  return foldRestarts(pod, 0, [](int a, int b) { return std::max(a, b); });
}

int totalContainerRestarts(const Json& pod) {
  return foldRestarts(pod, 0, [](int a, int b) { return a + b; });
}

Result<LabelSelector> specSelector(const Json& owner) {
  const Json& selector = field(field(owner, "spec"), "selector");
  if (selector.is_null()) return LabelSelector::nothing();
  return LabelSelector::fromJson(selector);
}

bool selectsEverything(const Json& owner) {
  const Json& selector = field(field(owner, "spec"), "selector");
  if (!selector.is_object()) return false;
  const Json& labels = field(selector, "matchLabels");
  const Json& expressions = field(selector, "matchExpressions");
  return (labels.is_null() || labels.empty()) && (expressions.is_null() || expressions.empty());
}

std::vector<ObjectPtr> listInNamespace(Cache& cache, const GroupVersionResource& gvr,
                                       std::string_view ns) {
  return cache.informerFor(gvr).byIndex(kNamespaceIndex, ns);
}

std::vector<ReconcileRequest> ownersSelecting(Cache& cache, const GroupVersionResource& owners,
                                              const Json& object) {
  std::vector<ReconcileRequest> out;
  for (const auto& owner : listInNamespace(cache, owners, meta::namespace_(object))) {
    auto selector = specSelector(*owner);
    if (!selector || selector->empty()) continue;
    if (selector->matches(meta::labels(object))) {
      out.push_back({meta::namespace_(*owner), meta::name(*owner)});
    }
  }
  return out;
}

Result<std::vector<ObjectPtr>> claimFromCache(Manager& manager,
                                              const GroupVersionResource& ownerResource,
                                              const Json& owner, const LabelSelector& selector,
                                              const GroupVersionResource& resource,
                                              std::string trackingFinalizer) {
  ClaimContext claim{manager.client(), manager.apiReader(),         ownerResource, owner,
                     selector,         std::move(trackingFinalizer)};
  return claimObjects(claim, resource,
                      listInNamespace(manager.cache(), resource, meta::namespace_(owner)));
}

bool isControlledBy(const Json& object, std::string_view ownerUid) {
  auto ref = meta::controllerRefOf(object);
  return ref && ref->uid == ownerUid;
}

namespace {

// The patch that sets `object`'s ownerReferences to `refs` and adds or drops a finalizer,
// conditional on its uid and resourceVersion.
std::string ownerPatch(const Json& object, Json refs, const std::string& finalizer, bool add) {
  Json metadata = {{"uid", meta::uid(object)},
                   {"resourceVersion", meta::resourceVersion(object)},
                   {"ownerReferences", refs.empty() ? Json(nullptr) : std::move(refs)}};
  if (!finalizer.empty() && meta::hasFinalizer(object, finalizer) != add) {
    Json finalizers = Json::array();
    for (const auto& f : meta::finalizers(object)) {
      if (f != finalizer) finalizers.push_back(f);
    }
    if (add) finalizers.push_back(finalizer);
    metadata["finalizers"] = finalizers.empty() ? Json(nullptr) : std::move(finalizers);
  }
  return Json{{"metadata", std::move(metadata)}}.dump();
}

Result<ObjectPtr> adopt(const ClaimContext& context, const GroupVersionResource& resource,
                        const Json& object) {
  Json refs = Json::array();
  for (const auto& ref : field(field(object, "metadata"), "ownerReferences")) {
    refs.push_back(ref);
  }
  refs.push_back(meta::toJson(meta::controllerRefTo(context.owner)));
  auto patched =
      context.client.patch(resource, meta::namespace_(object), meta::name(object), PatchType::Merge,
                           ownerPatch(object, std::move(refs), context.trackingFinalizer, true));
  if (!patched) return tl::unexpected(patched.error());
  return std::make_shared<const Json>(std::move(*patched));
}

Result<void> release(const ClaimContext& context, const GroupVersionResource& resource,
                     const Json& object) {
  const std::string ownerUid = meta::uid(context.owner);
  Json refs = Json::array();
  for (const auto& ref : field(field(object, "metadata"), "ownerReferences")) {
    if (stringField(ref, "uid") != ownerUid) refs.push_back(ref);
  }
  auto patched =
      context.client.patch(resource, meta::namespace_(object), meta::name(object), PatchType::Merge,
                           ownerPatch(object, std::move(refs), context.trackingFinalizer, false));
  if (!patched) return tl::unexpected(patched.error());
  return {};
}

// RecheckDeletionTimestamp: the owner as the server has it now must be the same object, alive.
Result<void> recheckOwner(const ClaimContext& context) {
  auto fresh = context.uncached.get(context.ownerResource, meta::namespace_(context.owner),
                                    meta::name(context.owner));
  if (!fresh) return tl::unexpected(fresh.error());
  const std::string wanted = meta::uid(context.owner);
  if (meta::uid(*fresh) != wanted) {
    return tl::unexpected(
        Status::conflict(context.ownerResource.groupResource(), meta::name(context.owner),
                         fmt::format("original {}/{} is gone: got uid {}, wanted {}",
                                     meta::namespace_(context.owner), meta::name(context.owner),
                                     meta::uid(*fresh), wanted)));
  }
  if (meta::isDeleting(*fresh)) {
    return tl::unexpected(Status::conflict(
        context.ownerResource.groupResource(), meta::name(context.owner),
        fmt::format("{}/{} has just been deleted at {}", meta::namespace_(context.owner),
                    meta::name(context.owner), meta::deletionTimestamp(*fresh))));
  }
  return {};
}

}  // namespace

Result<std::vector<ObjectPtr>> claimObjects(const ClaimContext& context,
                                            const GroupVersionResource& resource,
                                            const std::vector<ObjectPtr>& candidates) {
  std::vector<ObjectPtr> claimed;
  std::optional<Status> firstError;
  std::optional<Result<void>> canAdopt;  // checked once, before the first adoption
  const std::string ownerUid = meta::uid(context.owner);
  const bool ownerDeleting = meta::isDeleting(context.owner);
  const std::string ns = meta::namespace_(context.owner);
  for (const auto& object : candidates) {
    const Json& labels = meta::labels(*object);
    auto ref = meta::controllerRefOf(*object);
    if (ref) {
      if (ref->uid != ownerUid) continue;  // someone else's
      if (context.selector.matches(labels)) {
        claimed.push_back(object);
        continue;
      }
      if (ownerDeleting) continue;
      auto released = release(context, resource, *object);
      if (!released && !isNotFound(released.error()) && !firstError) {
        firstError = released.error();
      }
      continue;
    }
    // An orphan.
    if (ownerDeleting || !context.selector.matches(labels)) continue;
    if (meta::isDeleting(*object)) continue;
    if (!ns.empty() && meta::namespace_(*object) != ns) continue;
    if (!canAdopt) canAdopt = recheckOwner(context);
    if (!*canAdopt) {
      if (!firstError) firstError = canAdopt->error();
      continue;
    }
    auto adopted = adopt(context, resource, *object);
    if (!adopted) {
      if (!isNotFound(adopted.error()) && !firstError) firstError = adopted.error();
      continue;
    }
    claimed.push_back(*adopted);
  }
  if (firstError) return tl::unexpected(*firstError);
  return claimed;
}

Json podFromTemplate(const Json& owner, const Json& podTemplate, std::string_view extraFinalizer) {
  const Json& templateMeta = field(podTemplate, "metadata");
  Json metadata = Json::object();
  // getPodsPrefix: "<name>-", cut so that generated names stay valid (63 characters in all with
  // the 5-character random suffix the server appends).
  std::string prefix = meta::name(owner) + "-";
  if (prefix.size() > 58) prefix = prefix.substr(0, 58);
  metadata["generateName"] = prefix;
  metadata["namespace"] = meta::namespace_(owner);
  if (const Json& labels = field(templateMeta, "labels"); labels.is_object()) {
    metadata["labels"] = labels;
  }
  if (const Json& annotations = field(templateMeta, "annotations"); annotations.is_object()) {
    metadata["annotations"] = annotations;
  }
  Json finalizers = Json::array();
  if (const Json& f = field(templateMeta, "finalizers"); f.is_array()) finalizers = f;
  if (!extraFinalizer.empty() &&
      std::find(finalizers.begin(), finalizers.end(), Json(extraFinalizer)) == finalizers.end()) {
    finalizers.push_back(extraFinalizer);
  }
  if (!finalizers.empty()) metadata["finalizers"] = std::move(finalizers);
  metadata["ownerReferences"] = Json::array({meta::toJson(meta::controllerRefTo(owner))});
  Json spec = field(podTemplate, "spec");
  if (!spec.is_object()) spec = Json::object();
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", std::move(metadata)},
          {"spec", std::move(spec)}};
}

std::vector<ObjectPtr> podsToDeleteFirst(std::vector<ObjectPtr> pods,
                                         const std::vector<ObjectPtr>& related, std::size_t count) {
  // getPodsRankedByRelatedPodsOnSameNode: a pod's rank is the number of active related pods on
  // its node.
  std::map<std::string, int> onNode;
  for (const auto& p : related.empty() ? pods : related) {
    if (!isPodActive(*p)) continue;
    std::string node = podNodeName(*p);
    if (!node.empty()) ++onNode[node];
  }
  struct Ranked {
    ObjectPtr pod;
    int rank;
  };
  std::vector<Ranked> ranked;
  ranked.reserve(pods.size());
  for (auto& p : pods) {
    std::string node = podNodeName(*p);
    ranked.push_back({std::move(p), node.empty() ? 0 : onNode[node]});
  }
  auto less = [](const Ranked& x, const Ranked& y) {
    const Json& a = *x.pod;
    const Json& b = *y.pod;
    std::string nodeA = podNodeName(a), nodeB = podNodeName(b);
    if (nodeA != nodeB && (nodeA.empty() || nodeB.empty())) return nodeA.empty();
    int phaseA = phaseOrdinal(podPhase(a)), phaseB = phaseOrdinal(podPhase(b));
    if (phaseA != phaseB) return phaseA < phaseB;
    bool readyA = isPodReady(a), readyB = isPodReady(b);
    if (readyA != readyB) return !readyA;
    std::int64_t costA = deletionCost(a), costB = deletionCost(b);
    if (costA != costB) return costA < costB;
    if (x.rank != y.rank) return x.rank > y.rank;
    if (readyA && readyB) {
      auto sinceA = podReadySince(a), sinceB = podReadySince(b);
      if (sinceA != sinceB) return afterOrZero(sinceA, sinceB);
    }
    int restartsA = maxContainerRestarts(a), restartsB = maxContainerRestarts(b);
    if (restartsA != restartsB) return restartsA > restartsB;
    auto createdA = parseTime(field(field(a, "metadata"), "creationTimestamp"));
    auto createdB = parseTime(field(field(b, "metadata"), "creationTimestamp"));
    if (createdA != createdB) return afterOrZero(createdA, createdB);
    return meta::name(a) < meta::name(b);
  };
  std::stable_sort(ranked.begin(), ranked.end(), less);
  std::vector<ObjectPtr> out;
  for (std::size_t i = 0; i < ranked.size() && i < count; ++i) out.push_back(ranked[i].pod);
  return out;
}

SlowStartResult slowStartBatch(int count, int initialBatchSize,
                               const std::function<Result<void>()>& fn) {
  SlowStartResult result;
  int remaining = count;
  for (int batch = std::min(remaining, initialBatchSize); batch > 0;
       batch = std::min(2 * batch, remaining)) {
    bool failed = false;
    for (int i = 0; i < batch; ++i) {
      auto done = fn();
      if (done) {
        ++result.successes;
      } else {
        failed = true;
        if (!result.error) result.error = done.error();
      }
    }
    if (failed) break;
    remaining -= batch;
  }
  return result;
}

}  // namespace fakekube::workload
