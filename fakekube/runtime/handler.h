// EventHandler: how an informer event becomes requests in a controller's queue
// (controller-runtime's pkg/handler).
//
// A handler maps an event to the keys to reconcile. It never says what happened: the reconcile
// re-reads the object. The three handlers every controller is built from:
//
//   enqueueRequestForObject()   the object's own namespace/name (what For() uses)
//   enqueueRequestForOwner()    the owner named in the object's ownerReferences — by default
//                               only the reference with controller: true, and only if it is of
//                               the owner's group and kind; the direct owner only, never its own
//                               owners (what Owns() uses: a Pod's change reconciles its
//                               RayCluster)
//   enqueueRequestsFromMapFunc  whatever a function of the object answers (Watches() with a map)
//
// For an update, enqueueRequestForObject enqueues the new object; the owner and map handlers
// enqueue what the old and the new object each map to (without duplicates), so a change of owner
// reconciles both owners.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/runtime/reconcile.h"

namespace fakekube {

struct EventHandler {
  std::function<std::vector<ReconcileRequest>(const ObjectPtr& object)> create;
  std::function<std::vector<ReconcileRequest>(const ObjectPtr& oldObject,
                                              const ObjectPtr& newObject)>
      update;
  std::function<std::vector<ReconcileRequest>(const ObjectPtr& object)> delete_;
  std::function<std::vector<ReconcileRequest>(const ObjectPtr& object)> generic;
};

// handler.MapFunc.
using MapFunc = std::function<std::vector<ReconcileRequest>(const Json& object)>;

// The object's own request (handler.EnqueueRequestForObject).
EventHandler enqueueRequestForObject();

// The owner's request (handler.EnqueueRequestForOwner). `ownerGroup` ("" for the core group)
// and `ownerKind` ("RayCluster") select the references that count; with `onlyController` (the
// default, handler.OnlyControllerOwner) only a reference with controller: true does. The owner's
// namespace is the object's, unless `ownerNamespaced` is false (a cluster-scoped owner).
EventHandler enqueueRequestForOwner(std::string ownerGroup, std::string ownerKind,
                                    bool onlyController = true, bool ownerNamespaced = true);

// The requests `fn` answers (handler.EnqueueRequestsFromMapFunc).
EventHandler enqueueRequestsFromMapFunc(MapFunc fn);

// The requests an owner-reference handler would produce for `object`, for tests and for
// handlers built on it.
std::vector<ReconcileRequest> ownerRequests(const Json& object, const std::string& ownerGroup,
                                            const std::string& ownerKind, bool onlyController,
                                            bool ownerNamespaced);

}  // namespace fakekube
