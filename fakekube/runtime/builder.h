// ControllerBuilder: wires a controller into a manager (controller-runtime's builder package).
//
//   auto controller = ControllerBuilder(manager)
//       .named("raycluster")
//       .forResource(kRayClusters, predicate::or_({predicate::generationChanged(),
//                                                  predicate::labelChanged(),
//                                                  predicate::annotationChanged()}))
//       .owns(kPods)
//       .watches(kConfigMaps, enqueueRequestsFromMapFunc(fn))
//       .withEventFilter(p)
//       .withOptions({.maxConcurrentReconciles = 2})
//       .complete(reconciler);
//
//   forResource(gvr, predicates...)   the primary resource: its events enqueue the object itself
//                                     (enqueueRequestForObject), filtered by these predicates
//   owns(gvr, predicates...)          objects the controller creates: their events enqueue the
//                                     controller owner of the For kind (enqueueRequestForOwner
//                                     with onlyController), direct owner only
//   watches(gvr, handler, preds...)   anything else, with a handler of your choice
//   withEventFilter(p)                a predicate every watch of the controller applies
//
// complete() registers the handlers on the manager's cache informers, adds the controller to the
// manager (it starts when the caches sync; the manager owns it) and answers it. Errors (answered as
// a 400 Status): no forResource, or owns() when the kind of the For resource is unknown (a manager
// built over a client that is not an InProcessClient; give it with forKind()).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/api/resources.h"
#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/handler.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/runtime/predicate.h"
#include "fakekube/runtime/reconcile.h"

namespace fakekube {

class ControllerBuilder {
 public:
  // `manager` must outlive the builder.
  explicit ControllerBuilder(Manager& manager) : manager_(manager) {}

  ControllerBuilder& named(std::string name);
  template <class... P>
  ControllerBuilder& forResource(const GroupVersionResource& gvr, P... predicates) {
    return forResourceWith(gvr, {std::move(predicates)...});
  }
  ControllerBuilder& forResourceWith(const GroupVersionResource& gvr,
                                     std::vector<Predicate> predicates);
  // The kind of the For resource, when the manager cannot tell (see the file comment).
  ControllerBuilder& forKind(std::string kind);
  template <class... P>
  ControllerBuilder& owns(const GroupVersionResource& gvr, P... predicates) {
    return ownsWith(gvr, {std::move(predicates)...});
  }
  ControllerBuilder& ownsWith(const GroupVersionResource& gvr, std::vector<Predicate> predicates);
  template <class... P>
  ControllerBuilder& watches(const GroupVersionResource& gvr, EventHandler handler,
                             P... predicates) {
    return watchesWith(gvr, std::move(handler), {std::move(predicates)...});
  }
  ControllerBuilder& watchesWith(const GroupVersionResource& gvr, EventHandler handler,
                                 std::vector<Predicate> predicates);
  ControllerBuilder& withEventFilter(Predicate predicate);
  // Every field but `name` (use named()).
  ControllerBuilder& withOptions(ControllerOptions options);

  Result<Controller*> complete(Reconciler reconciler);
  Result<Controller*> completeAsync(AsyncReconciler reconciler);

 private:
  struct Watch {
    GroupVersionResource gvr;
    enum class Type { For, Owns, Handler } type;
    EventHandler handler;
    std::vector<Predicate> predicates;
  };
  Result<Controller*> build(std::unique_ptr<Controller> controller);
  // The options with the name resolved; an error if there is no For resource.
  Result<ControllerOptions> resolvedOptions();

  Manager& manager_;
  std::string name_;
  std::optional<GroupVersionResource> for_;
  std::string forKind_;
  std::vector<Watch> watches_;
  std::vector<Predicate> globalPredicates_;
  ControllerOptions options_;
};

}  // namespace fakekube
