// DELETE and DELETE-collection: preconditions, propagation finalizers, deletionTimestamp while
// finalizers remain, graceful pod deletion, and the namespace Terminating phase.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/apiserver/internal/api_server_impl.h"

namespace fakekube {

namespace {

constexpr std::string_view kOrphan = "orphan";
constexpr std::string_view kForeground = "foregroundDeletion";

// The grace period a pod deletion waits for the kubelet; 0 = remove now. Pods that never ran on a
// node, and pods that finished, go at once (pod strategy CheckGracefulDelete).
std::int64_t podGracePeriod(const Json& pod, const DeleteOptions& options) {
  if (podNodeName(pod).empty()) return 0;
  std::string phase = podPhase(pod);
  if (phase == "Succeeded" || phase == "Failed") return 0;
  // A negative grace period counts as 1 s (rest.BeforeDelete).
  if (options.gracePeriodSeconds) {
    return *options.gracePeriodSeconds < 0 ? 1 : *options.gracePeriodSeconds;
  }
  auto spec = pod.find("spec");
  if (spec != pod.end() && spec->is_object()) {
    auto grace = spec->find("terminationGracePeriodSeconds");
    if (grace != spec->end() && grace->is_number_integer()) return grace->get<std::int64_t>();
  }
  return 30;
}

}  // namespace

Result<DeleteResult> ApiServer::Impl::deleteObject(const GroupVersionResource& gvr,
                                                   std::string_view ns, std::string_view name,
                                                   const DeleteOptions& options) {
  Request request{Verb::Delete, gvr, "", std::string(ns), std::string(name)};
  request.dryRun = options.dryRun;
  return intercepted<DeleteResult>(request, [&]() -> Result<DeleteResult> {
    auto t = target(gvr, ns);
    if (!t) return tl::unexpected(t.error());
    std::lock_guard lock(mu_);
    return deleteLocked(*t->info, t->ns, std::string(name), options);
  });
}

Json ApiServer::Impl::deleteResponse(const GroupVersionResource& gvr,
                                     const DeleteResult& result) const {
  auto info = registry_.find(gvr);
  if (!result.removed || info == nullptr || info->deleteReturnsObject) return *result.object;
  return Status::success(info->groupResource(), meta::name(*result.object),
                         meta::uid(*result.object))
      .toJson();
}

namespace {

std::optional<Status> validatePropagationPolicy(const DeleteOptions& options) {
  if (!options.propagationPolicy) return std::nullopt;
  const std::string& policy = *options.propagationPolicy;
  if (policy == "Foreground" || policy == "Background" || policy == "Orphan") return std::nullopt;
  return Status::invalid(
      "meta.k8s.io", "DeleteOptions", "",
      {FieldError::notSupported(
          "propagationPolicy", goQuote(policy),
          "supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"")});
}

// rest.BeforeDelete checks the preconditions first, naming the Kind (not the resource); then the
// namespace lifecycle admission refuses the namespaces the system needs.
std::optional<Status> checkDeletePreconditions(const ResourceInfo& info, const Json& old,
                                               const std::string& name,
                                               const DeleteOptions& options) {
  const GroupResource kindGr{info.group, info.kind};
  if (options.preconditions.uid && *options.preconditions.uid != meta::uid(old)) {
    return Status::conflict(
        kindGr, name,
        fmt::format("the UID in the precondition ({}) does not match the UID in record ({}). The "
                    "object might have been deleted and then recreated",
                    *options.preconditions.uid, meta::uid(old)));
  }
  if (options.preconditions.resourceVersion &&
      *options.preconditions.resourceVersion != meta::resourceVersion(old)) {
    return Status::conflict(
        kindGr, name,
        fmt::format("the ResourceVersion in the precondition ({}) does not match the "
                    "ResourceVersion in record ({}). The object might have been modified",
                    *options.preconditions.resourceVersion, meta::resourceVersion(old)));
  }
  if (info.is("", "namespaces") &&
      (name == "default" || name == "kube-system" || name == "kube-public")) {
    return Status::forbidden(info.groupResource(), name, "this namespace may not be deleted");
  }
  return std::nullopt;
}

// What a delete does to the stored object.
struct DeletionStep {
  enum class Kind { Unchanged, Remove, Write } kind = Kind::Unchanged;
  Json object;  // Remove: the final state; Write: the object being deleted
};

// A delete of an object already being deleted: a no-op, except that a pod's grace period may be
// shortened (the kubelet confirms a pod's shutdown by deleting it with grace 0).
DeletionStep deleteAgain(const ResourceInfo& info, const Json& old, const DeleteOptions& options,
                         TimePoint now) {
  if (!info.is("", "pods") || !options.gracePeriodSeconds) return {};
  std::int64_t grace = *options.gracePeriodSeconds < 0 ? 1 : *options.gracePeriodSeconds;
  std::int64_t current = meta::deletionGracePeriodSeconds(old).value_or(0);
  if (grace >= current) return {};  // a grace period can only shrink
  if (grace == 0 && meta::finalizers(old).empty()) return {DeletionStep::Kind::Remove, old};
  // The deadline moves back to when deletion was requested plus the new grace period
  // (rest.BeforeDelete), but never into the past: then it is now, and a graceful delete keeps a
  // minimal 1 s so that the kubelet still confirms it.
  TimePoint oldDeadline;
  if (!parseRfc3339(meta::deletionTimestamp(old), &oldDeadline)) {
    oldDeadline = now + std::chrono::seconds(current);
  }
  TimePoint deadline = oldDeadline - std::chrono::seconds(current) + std::chrono::seconds(grace);
  if (deadline < now) {
    deadline = now;
    if (grace != 0) grace = 1;
  }
  Json updated = old;
  Json& metadata = meta::metadata(updated);
  metadata["deletionGracePeriodSeconds"] = grace;
  metadata["deletionTimestamp"] = formatRfc3339(deadline);
  return {DeletionStep::Kind::Write, std::move(updated)};
}

// Propagation finalizers change only when deletion starts.
void setPropagationFinalizers(Json& object, const DeleteOptions& options) {
  const std::string policy = options.propagationPolicy.value_or("Background");
  if (policy == "Orphan") {
    meta::removeFinalizer(object, kForeground);
    meta::addFinalizer(object, kOrphan);
  } else if (policy == "Foreground") {
    meta::removeFinalizer(object, kOrphan);
    meta::addFinalizer(object, kForeground);
  } else {
    meta::removeFinalizer(object, kOrphan);
    meta::removeFinalizer(object, kForeground);
  }
}

// The first delete: the object goes at once, or waits for its finalizers, a pod's grace period or
// a namespace's content with deletionTimestamp set.
DeletionStep startDeletion(const ResourceInfo& info, const Json& old, const DeleteOptions& options,
                           TimePoint now) {
  Json updated = old;
  setPropagationFinalizers(updated, options);
  std::int64_t grace = info.is("", "pods") ? podGracePeriod(old, options) : 0;
  bool namespaceWaits = false;
  if (info.is("", "namespaces")) {
    const Json& spec = jsonAt(old, {"spec"});
    namespaceWaits = spec.is_object() && spec.contains("finalizers") &&
                     spec["finalizers"].is_array() && !spec["finalizers"].empty();
  }
  if (meta::finalizers(updated).empty() && grace == 0 && !namespaceWaits) {
    return {DeletionStep::Kind::Remove, std::move(updated)};
  }
  Json& metadata = meta::metadata(updated);
  metadata["deletionTimestamp"] = formatRfc3339(now + std::chrono::seconds(grace));
  metadata["deletionGracePeriodSeconds"] = grace;
  if (meta::generation(updated) > 0) metadata["generation"] = meta::generation(updated) + 1;
  if (info.is("", "namespaces")) {
    Json& status = updated["status"];
    if (!status.is_object()) status = Json::object();
    status["phase"] = "Terminating";
  }
  return {DeletionStep::Kind::Write, std::move(updated)};
}

}  // namespace

Result<DeleteResult> ApiServer::Impl::deleteLocked(const ResourceInfo& info, const std::string& ns,
                                                   const std::string& name,
                                                   const DeleteOptions& options) {
  if (auto invalid = validatePropagationPolicy(options)) return tl::unexpected(*invalid);
  const std::string objectKey = key(info, ns, name);
  ObjectPtr oldPtr = fromStorage(info, store_->get(objectKey));
  if (oldPtr == nullptr) return tl::unexpected(Status::notFound(info.groupResource(), name));
  const Json& old = *oldPtr;
  if (auto failed = checkDeletePreconditions(info, old, name, options)) {
    return tl::unexpected(*failed);
  }
  DeletionStep step = meta::isDeleting(old) ? deleteAgain(info, old, options, clock_.now())
                                            : startDeletion(info, old, options, clock_.now());
  switch (step.kind) {
    case DeletionStep::Kind::Unchanged:
      return DeleteResult{oldPtr, false};
    case DeletionStep::Kind::Remove:
      return removeObject(info, objectKey, std::move(step.object), options.dryRun);
    case DeletionStep::Kind::Write:
      break;
  }
  if (options.dryRun) {
    return DeleteResult{std::make_shared<const Json>(std::move(step.object)), false};
  }
  auto stored = put(objectKey, toStorage(info, std::move(step.object)), EventType::Modified);
  if (!stored) return tl::unexpected(stored.error());
  return DeleteResult{toServed(info, *stored), false};
}

// The object leaves the store (a dry run only says what it would have been).
Result<DeleteResult> ApiServer::Impl::removeObject(const ResourceInfo& info,
                                                   const std::string& objectKey, Json finalState,
                                                   bool dryRun) {
  if (dryRun) return DeleteResult{std::make_shared<const Json>(std::move(finalState)), true};
  auto removed = store_->remove(objectKey, toStorage(info, std::move(finalState)));
  if (!removed) return tl::unexpected(removed.error());
  if (info.is("apiextensions.k8s.io", "customresourcedefinitions")) {
    onCustomResourceDefinition(**removed, true);
  }
  return DeleteResult{toServed(info, *removed), true};
}

Result<ObjectList> ApiServer::Impl::deleteCollection(const GroupVersionResource& gvr,
                                                     std::string_view ns,
                                                     const ListOptions& listOptions,
                                                     const DeleteOptions& deleteOptions) {
  Request request{Verb::DeleteCollection, gvr, "", std::string(ns), ""};
  request.dryRun = deleteOptions.dryRun;
  return intercepted<ObjectList>(request, [&]() -> Result<ObjectList> {
    auto t = target(gvr, ns);
    if (!t) return tl::unexpected(t.error());
    std::lock_guard lock(mu_);
    ListOptions all = listOptions;
    all.limit = 0;
    all.continueToken.clear();
    auto selected = listLocked(*t->info, t->ns, all);
    if (!selected) return tl::unexpected(selected.error());
    ObjectList result{selected->apiVersion, selected->kind, "", "", {}};
    for (const auto& item : selected->items) {
      auto deleted =
          deleteLocked(*t->info, meta::namespace_(*item), meta::name(*item), deleteOptions);
      if (!deleted) {
        if (isNotFound(deleted.error())) continue;
        return tl::unexpected(deleted.error());
      }
      result.items.push_back(deleted->object);
    }
    result.resourceVersion = std::to_string(store_->revision());
    return result;
  });
}

}  // namespace fakekube
