#include "fakekube/api/internal/object_fields.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fakekube/api/internal/field_set.h"
#include "fakekube/api/json_lookup.h"

namespace fakekube::object_fields {

namespace {

using Field = PatchSchema::Field;

// Where a walk is: the top of the object, its metadata, or anywhere below.
enum class Level { Root, Metadata, Nested };

// StripMetaManager's set, at the top and in metadata.
bool stripped(Level level, std::string_view key, const Scope& scope) {
  if (level == Level::Root) {
    if (key == "apiVersion" || key == "kind") return true;
    if (!scope.only.empty()) return key != scope.only;
    return key == scope.ignored;
  }
  if (level == Level::Metadata) {
    return key == "name" || key == "namespace" || key == "creationTimestamp" || key == "selfLink" ||
           key == "uid" || key == "clusterName" || key == "generation" || key == "managedFields" ||
           key == "resourceVersion";
  }
  return false;
}

Level below(Level level, std::string_view key) {
  return level == Level::Root && key == "metadata" ? Level::Metadata : Level::Nested;
}

std::string fieldElement(std::string_view key) {
  std::string element = "f:";
  element.append(key);
  return element;
}

// How a value is walked: by its members, by list-map keys, as a set, or whole.
enum class Shape { Object, ListMap, Set, Leaf };

// `depth`: how far below the object's top the value is; past field_set::kMaxDepth, a leaf.
Shape shapeOf(const Json& value, const Field& field, int depth) {
  if (depth >= field_set::kMaxDepth) return Shape::Leaf;
  if (value.is_object()) return field.appliedWhole() ? Shape::Leaf : Shape::Object;
  if (!value.is_array()) return Shape::Leaf;
  if (field.list == ListStrategy::Set) return Shape::Set;
  if (field.list != ListStrategy::Map) return Shape::Leaf;
  // A list the schema calls a list-map but whose elements are not all objects: one value.
  const bool objects =
      std::all_of(value.begin(), value.end(), [](const Json& e) { return e.is_object(); });
  return objects ? Shape::ListMap : Shape::Leaf;
}

// --- fieldsOf ---

Json objectFields(const Json& object, const PatchSchema& schema, Level level, const Scope& scope,
                  int depth);

Json valueFields(const Json& value, const Field& field, int depth) {
  Json out = Json::object();
  switch (shapeOf(value, field, depth)) {
    case Shape::Object:
      return objectFields(value, field.schema, Level::Nested, {}, depth);
    case Shape::ListMap:
      for (const auto& element : value) {
        std::string key = field_set::keyElement(element, field.keys);
        if (out.contains(key)) continue;  // a duplicate: the first one speaks for the key
        field_set::place(out, key,
                         objectFields(element, field.schema, Level::Nested, {}, depth + 1), true);
      }
      return out;
    case Shape::Set:
      for (const auto& element : value) {
        field_set::place(out, field_set::valueElement(element), Json::object(), true);
      }
      return out;
    case Shape::Leaf:
      return out;
  }
  return out;
}

Json objectFields(const Json& object, const PatchSchema& schema, Level level, const Scope& scope,
                  int depth) {
  Json out = Json::object();
  // A metadata that is not an object (an applied `metadata: text`) owns nothing here; the
  // write's type check refuses it.
  if (!object.is_object()) return out;
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (stripped(level, it.key(), scope)) continue;
    const Json& value = *it;
    const Field& field = schema.field(it.key());
    const Level next = below(level, it.key());
    Json children = next == Level::Metadata
                        ? objectFields(value, field.schema, next, scope, depth + 1)
                        : valueFields(value, field, depth + 1);
    // A leaf, a null or an empty object is owned itself; an object or a list through what is
    // in it (a named field of a Go struct is not a member of its own set).
    const Shape shape = shapeOf(value, field, depth + 1);
    const bool member = next != Level::Metadata && (shape == Shape::Leaf || value.is_null() ||
                                                    (value.is_object() && value.empty()));
    field_set::place(out, fieldElement(it.key()), std::move(children), member);
  }
  return out;
}

// --- compare ---

class Comparison {
 public:
  // `zero`: the zero value at this place (or null), which stands in for a member `before` lacks:
  // a stored object without a status still has one in Go.
  void objects(const Json& before, const Json& after, const Json* zero, const PatchSchema& schema,
               Level level, const Scope& scope, int depth, Json& changed, Json& removed) {
    // Both are sorted by key: one merge of the two member lists.
    auto b = before.begin();
    auto a = after.begin();
    while (b != before.end() || a != after.end()) {
      int order = b == before.end() ? 1 : a == after.end() ? -1 : b.key().compare(a.key());
      const std::string& key = order <= 0 ? b.key() : a.key();
      if (!stripped(level, key, scope)) {
        const Json* zeroMember = zero != nullptr ? jsonFind(*zero, key) : nullptr;
        value(key, order <= 0 ? &*b : zeroMember, order >= 0 ? &*a : nullptr, zeroMember,
              schema.field(key), below(level, key), scope, depth + 1, changed, removed);
      }
      if (order <= 0) ++b;
      if (order >= 0) ++a;
    }
  }

 private:
  void value(const std::string& key, const Json* before, const Json* after, const Json* zero,
             const Field& field, Level level, const Scope& scope, int depth, Json& changed,
             Json& removed) {
    const std::string element = fieldElement(key);
    if (level == Level::Metadata) {
      // Never a member itself; an object on both sides in any stored object.
      static const Json kEmpty = Json::object();
      const Json& b = before != nullptr && before->is_object() ? *before : kEmpty;
      const Json& a = after != nullptr && after->is_object() ? *after : kEmpty;
      Json c = Json::object();
      Json r = Json::object();
      objects(b, a, zero, field.schema, level, scope, depth, c, r);
      field_set::place(changed, element, std::move(c), false);
      field_set::place(removed, element, std::move(r), false);
      return;
    }
    node(element, before, after, zero, field, depth, changed, removed);
  }

  // One node, present on either side or both.
  void node(const std::string& element, const Json* before, const Json* after, const Json* zero,
            const Field& field, int depth, Json& changed, Json& removed) {
    if (before == nullptr) {
      field_set::place(changed, element, valueNodes(*after, field, depth), true);
      return;
    }
    if (after == nullptr) {
      field_set::place(removed, element, valueNodes(*before, field, depth), true);
      return;
    }
    // A null on one side stands for an empty value of the other side's shape (a nil slice of
    // the zero value against a list the object brings).
    const bool beforeNull = before->is_null();
    const bool afterNull = after->is_null();
    if (beforeNull && afterNull) return;
    const Shape shape = shapeOf(beforeNull ? *after : *before, field, depth);
    const bool granular =
        shape != Shape::Leaf &&
        (beforeNull || afterNull ||
         (before->type() == after->type() && shapeOf(*after, field, depth) == shape));
    const bool bothEmpty = (beforeNull || before->empty()) && (afterNull || after->empty());
    if (!granular || bothEmpty) {
      if (*before != *after) field_set::place(changed, element, Json::object(), true);
      return;
    }
    static const Json kEmptyObject = Json::object();
    static const Json kEmptyArray = Json::array();
    const Json& empty = shape == Shape::Object ? kEmptyObject : kEmptyArray;
    const Json& b = beforeNull ? empty : *before;
    const Json& a = afterNull ? empty : *after;
    Json c = Json::object();
    Json r = Json::object();
    switch (shape) {
      case Shape::Object:
        objects(b, a, zero, field.schema, Level::Nested, {}, depth, c, r);
        break;
      case Shape::ListMap:
        listMaps(b, a, field, depth, c, r);
        break;
      case Shape::Set:
        sets(b, a, c, r);
        break;
      case Shape::Leaf:
        break;
    }
    field_set::place(changed, element, std::move(c), false);
    field_set::place(removed, element, std::move(r), false);
  }

  // Every node of a value that appears or goes whole.
  Json valueNodes(const Json& value, const Field& field, int depth) {
    Json out = Json::object();
    switch (shapeOf(value, field, depth)) {
      case Shape::Object:
        for (auto it = value.begin(); it != value.end(); ++it) {
          const Field& child = field.schema.field(it.key());
          field_set::place(out, fieldElement(it.key()), valueNodes(*it, child, depth + 1), true);
        }
        break;
      case Shape::ListMap:
        for (const auto& element : value) {
          Field item;
          item.schema = field.schema;
          std::string key = field_set::keyElement(element, field.keys);
          if (!out.contains(key)) {
            field_set::place(out, key, valueNodes(element, item, depth + 1), true);
          }
        }
        break;
      case Shape::Set:
        for (const auto& element : value) {
          field_set::place(out, field_set::valueElement(element), Json::object(), true);
        }
        break;
      case Shape::Leaf:
        break;
    }
    return out;
  }

  void listMaps(const Json& before, const Json& after, const Field& field, int depth, Json& changed,
                Json& removed) {
    // The elements of `before` by key (the first of duplicates), then each of `after` against
    // its counterpart, then those `after` no longer has.
    std::unordered_map<std::string, const Json*> earlier;
    if (before.is_array()) {
      earlier.reserve(before.size());
      for (const auto& element : before) {
        earlier.emplace(field_set::keyElement(element, field.keys), &element);
      }
    }
    Field item;
    item.schema = field.schema;
    std::unordered_set<std::string> seen;
    if (after.is_array()) {
      for (const auto& element : after) {
        std::string key = field_set::keyElement(element, field.keys);
        if (!seen.insert(key).second) continue;
        auto match = earlier.find(key);
        node(key, match != earlier.end() ? match->second : nullptr, &element, nullptr, item,
             depth + 1, changed, removed);
      }
    }
    for (const auto& [key, element] : earlier) {
      if (seen.count(key) == 0) {
        node(key, element, nullptr, nullptr, item, depth + 1, changed, removed);
      }
    }
  }

  void sets(const Json& before, const Json& after, Json& changed, Json& removed) {
    std::vector<std::string> b;
    std::vector<std::string> a;
    if (before.is_array()) {
      for (const auto& v : before) b.push_back(field_set::valueElement(v));
    }
    if (after.is_array()) {
      for (const auto& v : after) a.push_back(field_set::valueElement(v));
    }
    std::sort(b.begin(), b.end());
    std::sort(a.begin(), a.end());
    for (const auto& v : a) {
      if (!std::binary_search(b.begin(), b.end(), v))
        field_set::place(changed, v, Json::object(), true);
    }
    for (const auto& v : b) {
      if (!std::binary_search(a.begin(), a.end(), v))
        field_set::place(removed, v, Json::object(), true);
    }
  }
};

Json makeZeroValue(std::string_view group, std::string_view kind) {
  const Json podSpec = {{"containers", nullptr}};
  const Json podTemplate = {{"metadata", Json::object()}, {"spec", podSpec}};
  Json zero = {{"metadata", Json::object()}, {"spec", Json::object()}, {"status", Json::object()}};
  if (group.empty() && kind == "Pod") {
    zero["spec"] = podSpec;
  } else if (group.empty() && kind == "PodTemplate") {
    zero["template"] = podTemplate;
  } else if ((group == "apps" && (kind == "Deployment" || kind == "ReplicaSet" ||
                                  kind == "StatefulSet" || kind == "DaemonSet")) ||
             (group == "batch" && kind == "Job")) {
    zero["spec"]["template"] = podTemplate;
    if (kind == "Deployment") zero["spec"]["strategy"] = Json::object();
    if (kind == "StatefulSet" || kind == "DaemonSet") {
      zero["spec"]["updateStrategy"] = Json::object();
    }
  } else if (group == "batch" && kind == "CronJob") {
    zero["spec"]["jobTemplate"] = {{"metadata", Json::object()},
                                   {"spec", {{"template", podTemplate}}}};
  }
  return zero;
}

}  // namespace

Json fieldsOf(const Json& object, const PatchSchema& schema, const Scope& scope) {
  if (!object.is_object()) return Json::object();
  return objectFields(object, schema, Level::Root, scope, 0);
}

void compare(const Json& before, const Json& after, const Json& zero, const PatchSchema& schema,
             const Scope& scope, Json& changed, Json& removed) {
  changed = Json::object();
  removed = Json::object();
  if (!before.is_object() || !after.is_object()) return;
  Comparison().objects(before, after, &zero, schema, Level::Root, scope, 0, changed, removed);
}

const Json& zeroValue(std::string_view group, std::string_view kind, bool custom) {
  static const Json kEmpty = Json::object();
  if (custom) return kEmpty;
  // One per kind, made on first use; kinds are few and fixed.
  static std::mutex mu;
  static std::unordered_map<std::string, std::unique_ptr<const Json>> made;
  std::lock_guard lock(mu);
  auto& slot = made[std::string(group) + "/" + std::string(kind)];
  if (slot == nullptr) slot = std::make_unique<const Json>(makeZeroValue(group, kind));
  return *slot;
}

}  // namespace fakekube::object_fields
