// Predicate: which informer events may reach a controller's queue (controller-runtime's
// pkg/predicate).
//
// A predicate answers, per kind of event, "should this event enqueue anything?". Each of the
// four functions may be empty, which means "yes". They filter events, not objects: an update is
// judged on the old and the new object together, which is what lets GenerationChanged drop the
// update a controller's own status write causes (status writes do not bump
// metadata.generation).
//
// Where predicates apply (see ControllerBuilder): forResource(gvr, predicates...) filters only
// the events of the For resource; owns() and watches() take their own; withEventFilter()
// filters every watch of the controller.
//
// The named predicates behave as controller-runtime's: they judge only updates (create, delete
// and generic events pass) and an update with a missing old or new object fails. KubeRay's
// RayCluster controller uses or_({generationChanged(), labelChanged(), annotationChanged()}).
#pragma once

#include <functional>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/object.h"

namespace fakekube {

struct Predicate {
  std::function<bool(const ObjectPtr& object)> create;
  std::function<bool(const ObjectPtr& oldObject, const ObjectPtr& newObject)> update;
  std::function<bool(const ObjectPtr& object)> delete_;
  // Generic events come from sources other than an informer (a channel in controller-runtime).
  std::function<bool(const ObjectPtr& object)> generic;

  bool onCreate(const ObjectPtr& object) const { return !create || create(object); }
  bool onUpdate(const ObjectPtr& oldObject, const ObjectPtr& newObject) const {
    return !update || update(oldObject, newObject);
  }
  bool onDelete(const ObjectPtr& object) const { return !delete_ || delete_(object); }
  bool onGeneric(const ObjectPtr& object) const { return !generic || generic(object); }
};

namespace predicate {

// Update: metadata.generation changed. Status-only writes do not pass.
Predicate generationChanged();
// Update: metadata.labels changed.
Predicate labelChanged();
// Update: metadata.annotations changed.
Predicate annotationChanged();
// Update: metadata.resourceVersion changed (drops the periodic resyncs' no-op updates).
Predicate resourceVersionChanged();

// Every event judged by one function of the object (predicate.NewPredicateFuncs); for an update,
// of the new object.
Predicate fromFilter(std::function<bool(const Json& object)> filter);

// All of them pass (an empty list passes everything).
Predicate and_(std::vector<Predicate> predicates);
// At least one passes (an empty list passes nothing), as predicate.Or.
Predicate or_(std::vector<Predicate> predicates);
// The opposite of `p` for every kind of event (an empty function of `p`, "yes", becomes "no").
Predicate not_(Predicate p);

}  // namespace predicate
}  // namespace fakekube
