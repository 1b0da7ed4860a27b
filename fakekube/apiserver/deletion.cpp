// DELETE and DELETE-collection: preconditions, propagation finalizers, deletionTimestamp while
// finalizers remain, graceful pod deletion, and the namespace Terminating phase.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/apiserver/api_server_impl.h"

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

Result<DeleteResult> ApiServer::Impl::deleteLocked(const ResourceInfo& info, const std::string& ns,
                                                   const std::string& name,
                                                   const DeleteOptions& options) {
  const GroupResource gr = info.groupResource();
  if (options.propagationPolicy) {
    const std::string& policy = *options.propagationPolicy;
    if (policy != "Foreground" && policy != "Background" && policy != "Orphan") {
      return tl::unexpected(Status::invalid(
          "meta.k8s.io", "DeleteOptions", "",
          {FieldError::notSupported(
              "propagationPolicy", goQuote(policy),
              "supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"")}));
    }
  }
  const std::string objectKey = key(info, ns, name);
  ObjectPtr oldPtr = fromStorage(info, store_->get(objectKey));
  if (oldPtr == nullptr) return tl::unexpected(Status::notFound(gr, name));
  const Json& old = *oldPtr;

  // rest.BeforeDelete checks the preconditions first, naming the Kind (not the resource).
  const GroupResource kindGr{info.group, info.kind};
  if (options.preconditions.uid && *options.preconditions.uid != meta::uid(old)) {
    return tl::unexpected(Status::conflict(
        kindGr, name,
        fmt::format("the UID in the precondition ({}) does not match the UID in record ({}). The "
                    "object might have been deleted and then recreated",
                    *options.preconditions.uid, meta::uid(old))));
  }
  if (options.preconditions.resourceVersion &&
      *options.preconditions.resourceVersion != meta::resourceVersion(old)) {
    return tl::unexpected(Status::conflict(
        kindGr, name,
        fmt::format("the ResourceVersion in the precondition ({}) does not match the "
                    "ResourceVersion in record ({}). The object might have been modified",
                    *options.preconditions.resourceVersion, meta::resourceVersion(old))));
  }
  if (info.is("", "namespaces") &&
      (name == "default" || name == "kube-system" || name == "kube-public")) {
    return tl::unexpected(Status::forbidden(gr, name, "this namespace may not be deleted"));
  }

  auto unchanged = [&]() -> Result<DeleteResult> { return DeleteResult{oldPtr, false}; };
  auto removeNow = [&](Json finalState) -> Result<DeleteResult> {
    if (options.dryRun)
      return DeleteResult{std::make_shared<const Json>(std::move(finalState)), true};
    auto removed = store_->remove(objectKey, toStorage(info, std::move(finalState)));
    if (!removed) return tl::unexpected(removed.error());
    if (info.is("apiextensions.k8s.io", "customresourcedefinitions"))
      onCustomResourceDefinition(**removed, true);
    return DeleteResult{toServed(info, *removed), true};
  };
  auto write = [&](Json updated) -> Result<DeleteResult> {
    if (options.dryRun)
      return DeleteResult{std::make_shared<const Json>(std::move(updated)), false};
    auto stored = put(objectKey, toStorage(info, std::move(updated)), EventType::Modified);
    if (!stored) return tl::unexpected(stored.error());
    return DeleteResult{toServed(info, *stored), false};
  };

  const TimePoint nowTime = clock_.now();
  if (meta::isDeleting(old)) {
    // Already deleting: a no-op, except that a pod's grace period may be shortened (the kubelet
    // confirms a pod's shutdown by deleting it with grace 0).
    if (!info.is("", "pods") || !options.gracePeriodSeconds) return unchanged();
    std::int64_t grace = *options.gracePeriodSeconds < 0 ? 1 : *options.gracePeriodSeconds;
    std::int64_t current = meta::deletionGracePeriodSeconds(old).value_or(0);
    if (grace >= current) return unchanged();  // a grace period can only shrink
    if (grace == 0 && meta::finalizers(old).empty()) return removeNow(old);
    // The deadline moves back to when deletion was requested plus the new grace period
    // (rest.BeforeDelete), but never into the past: then it is now, and a graceful delete keeps
    // a minimal 1 s so that the kubelet still confirms it.
    TimePoint oldDeadline;
    if (!parseRfc3339(meta::deletionTimestamp(old), &oldDeadline)) {
      oldDeadline = nowTime + std::chrono::seconds(current);
    }
    TimePoint deadline = oldDeadline - std::chrono::seconds(current) + std::chrono::seconds(grace);
    if (deadline < nowTime) {
      deadline = nowTime;
      if (grace != 0) grace = 1;
    }
    Json updated = old;
    Json& metadata = meta::metadata(updated);
    metadata["deletionGracePeriodSeconds"] = grace;
    metadata["deletionTimestamp"] = formatRfc3339(deadline);
    return write(std::move(updated));
  }

  Json updated = old;
  // Propagation finalizers change only when deletion starts.
  const std::string policy = options.propagationPolicy.value_or("Background");
  if (policy == "Orphan") {
    meta::removeFinalizer(updated, kForeground);
    meta::addFinalizer(updated, kOrphan);
  } else if (policy == "Foreground") {
    meta::removeFinalizer(updated, kOrphan);
    meta::addFinalizer(updated, kForeground);
  } else {
    meta::removeFinalizer(updated, kOrphan);
    meta::removeFinalizer(updated, kForeground);
  }

  std::int64_t grace = info.is("", "pods") ? podGracePeriod(old, options) : 0;
  bool namespaceWaits = false;
  if (info.is("", "namespaces")) {
    const Json& spec = jsonAt(old, {"spec"});
    namespaceWaits = spec.is_object() && spec.contains("finalizers") &&
                     spec["finalizers"].is_array() && !spec["finalizers"].empty();
  }
  if (meta::finalizers(updated).empty() && grace == 0 && !namespaceWaits) {
    return removeNow(std::move(updated));
  }

  Json& metadata = meta::metadata(updated);
  metadata["deletionTimestamp"] = formatRfc3339(nowTime + std::chrono::seconds(grace));
  metadata["deletionGracePeriodSeconds"] = grace;
  if (meta::generation(updated) > 0) metadata["generation"] = meta::generation(updated) + 1;
  if (info.is("", "namespaces")) {
    Json& status = updated["status"];
    if (!status.is_object()) status = Json::object();
    status["phase"] = "Terminating";
  }
  return write(std::move(updated));
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
