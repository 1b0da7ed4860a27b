#include "fakekube/runtime/predicate.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "fakekube/api/object_meta.h"

namespace fakekube::predicate {

namespace {

// A predicate that judges only updates, with both objects present.
Predicate updateOnly(std::function<bool(const Json& oldObject, const Json& newObject)> changed) {
  Predicate p;
  p.update = [changed = std::move(changed)](const ObjectPtr& oldObject,
                                            const ObjectPtr& newObject) {
    if (!oldObject || !newObject) return false;
    return changed(*oldObject, *newObject);
  };
  return p;
}

}  // namespace

Predicate generationChanged() {
  return updateOnly(
      [](const Json& o, const Json& n) { return meta::generation(o) != meta::generation(n); });
}

Predicate labelChanged() {
  return updateOnly(
      [](const Json& o, const Json& n) { return meta::labels(o) != meta::labels(n); });
}

Predicate annotationChanged() {
  return updateOnly(
      [](const Json& o, const Json& n) { return meta::annotations(o) != meta::annotations(n); });
}

Predicate resourceVersionChanged() {
  return updateOnly([](const Json& o, const Json& n) {
    return meta::resourceVersion(o) != meta::resourceVersion(n);
  });
}

Predicate fromFilter(std::function<bool(const Json& object)> filter) {
  auto f = std::make_shared<const std::function<bool(const Json&)>>(std::move(filter));
  auto one = [f](const ObjectPtr& object) { return object && (*f)(*object); };
  Predicate p;
  p.create = one;
  p.delete_ = one;
  p.generic = one;
  p.update = [f](const ObjectPtr&, const ObjectPtr& newObject) {
    return newObject && (*f)(*newObject);
  };
  return p;
}

Predicate and_(std::vector<Predicate> predicates) {
  auto ps = std::make_shared<const std::vector<Predicate>>(std::move(predicates));
  Predicate p;
  p.create = [ps](const ObjectPtr& o) {
    for (const auto& q : *ps) {
      if (!q.onCreate(o)) return false;
    }
    return true;
  };
  p.update = [ps](const ObjectPtr& o, const ObjectPtr& n) {
    for (const auto& q : *ps) {
      if (!q.onUpdate(o, n)) return false;
    }
    return true;
  };
  p.delete_ = [ps](const ObjectPtr& o) {
    for (const auto& q : *ps) {
      if (!q.onDelete(o)) return false;
    }
    return true;
  };
  p.generic = [ps](const ObjectPtr& o) {
    for (const auto& q : *ps) {
      if (!q.onGeneric(o)) return false;
    }
    return true;
  };
  return p;
}

Predicate or_(std::vector<Predicate> predicates) {
  auto ps = std::make_shared<const std::vector<Predicate>>(std::move(predicates));
  Predicate p;
  p.create = [ps](const ObjectPtr& o) {
    for (const auto& q : *ps) {
      if (q.onCreate(o)) return true;
    }
    return false;
  };
  p.update = [ps](const ObjectPtr& o, const ObjectPtr& n) {
    for (const auto& q : *ps) {
      if (q.onUpdate(o, n)) return true;
    }
    return false;
  };
  p.delete_ = [ps](const ObjectPtr& o) {
    for (const auto& q : *ps) {
      if (q.onDelete(o)) return true;
    }
    return false;
  };
  p.generic = [ps](const ObjectPtr& o) {
    for (const auto& q : *ps) {
      if (q.onGeneric(o)) return true;
    }
    return false;
  };
  return p;
}

Predicate not_(Predicate inner) {
  auto q = std::make_shared<const Predicate>(std::move(inner));
  Predicate p;
  p.create = [q](const ObjectPtr& o) { return !q->onCreate(o); };
  p.update = [q](const ObjectPtr& o, const ObjectPtr& n) { return !q->onUpdate(o, n); };
  p.delete_ = [q](const ObjectPtr& o) { return !q->onDelete(o); };
  p.generic = [q](const ObjectPtr& o) { return !q->onGeneric(o); };
  return p;
}

}  // namespace fakekube::predicate
