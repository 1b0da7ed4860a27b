#include "fakekube/api/internal/builtin_pruning.h"

#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <utility>
#include <variant>

#include "fakekube/api/internal/builtin_schema_table.h"

namespace fakekube {

namespace {

// Objects nest at most this deep through the types (only a CustomResourceDefinition's
// JSONSchemaProps refer to themselves); below it a value is kept as it is, which bounds each
// walk's recursion whatever the document.
constexpr int kMaxTypeDepth = 256;

// One type of the tree: what a value of it may hold.
struct TypeNode {
  enum class Shape : std::uint8_t {
    Leaf,    // a scalar or free-form value: nothing below it is pruned
    Struct,  // an object with these fields only
    List,    // an array of `element`
    Map,     // an object whose every value is an `element`
  };
  Shape shape = Shape::Leaf;
  const TypeNode* element = nullptr;
  std::vector<std::pair<std::string, const TypeNode*>> fields;  // Struct: sorted by name

  // Whether anything below a value of this type can be pruned.
  bool prunes() const { return shape != Shape::Leaf; }
};

// Every type of the table as a node, built once; kinds map to their top-level node.
class TypeTree {
 public:
  static const TypeTree& get() {
    static const TypeTree tree;
    return tree;
  }

  const TypeNode* forKind(std::string_view apiVersion, std::string_view kind) const {
    std::string key;
    key.reserve(apiVersion.size() + 1 + kind.size());
    key.append(apiVersion).append(1, ' ').append(kind);
    auto it = kinds_.find(key);
    return it == kinds_.end() ? nullptr : it->second;
  }

 private:
  TypeTree() {
    for (const BuiltinKindSchema& k : BuiltinSchemaTable::get().kinds()) {
      const std::string apiVersion = k.group.empty() ? k.version : k.group + "/" + k.version;
      kinds_[apiVersion + " " + k.kind] = node("#" + k.definition);
    }
  }

  // The node of a field type ("[]#io.k8s.v1.Container"), made on first use. A node is
  // registered before its parts are resolved, so a type that refers to itself ends in a cycle.
  const TypeNode* node(const std::string& type) {
    if (auto it = byType_.find(type); it != byType_.end()) return it->second;
    TypeNode& n = nodes_.emplace_back();
    byType_.emplace(type, &n);
    if (type.starts_with("[]")) {
      n.shape = TypeNode::Shape::List;
      n.element = node(type.substr(2));
    } else if (type.starts_with("map[]")) {
      n.shape = TypeNode::Shape::Map;
      n.element = node(type.substr(5));
    } else if (type.starts_with("#")) {
      // A definition the table lacks is kept whole rather than emptied.
      if (const BuiltinDefinition* d = BuiltinSchemaTable::get().definition(type.substr(1))) {
        n.shape = TypeNode::Shape::Struct;
        for (const BuiltinFieldSchema& f : d->fields) n.fields.emplace_back(f.name, node(f.type));
      }
    }
    return &n;
  }

  std::deque<TypeNode> nodes_;  // stable addresses
  std::unordered_map<std::string, const TypeNode*> byType_;
  std::unordered_map<std::string, const TypeNode*> kinds_;  // "apps/v1 Deployment"
};

// Drops unknown members along the walk, naming them as sigs.k8s.io/json's strict decoding does:
// "spec.containers[0].bogus", "metadata.labels" keys after a dot too.
class Pruner {
 public:
  std::vector<std::string> found;

  void value(Json& v, const TypeNode& type, int depth) {
    if (depth > kMaxTypeDepth) return;
    switch (type.shape) {
      case TypeNode::Shape::Leaf:
        return;
      case TypeNode::Shape::Struct:
        if (v.is_object()) structMembers(v.get_ref<Json::object_t&>(), type, depth);
        return;
      case TypeNode::Shape::List:
        if (!v.is_array() || !type.element->prunes()) return;
        for (std::size_t i = 0; i < v.size(); ++i) {
          path_.push_back({nullptr, i});
          value(v[i], *type.element, depth + 1);
          path_.pop_back();
        }
        return;
      case TypeNode::Shape::Map:
        if (!v.is_object() || !type.element->prunes()) return;
        for (auto& [key, item] : v.get_ref<Json::object_t&>()) {
          path_.push_back({&key, 0});
          value(item, *type.element, depth + 1);
          path_.pop_back();
        }
        return;
    }
  }

 private:
  struct Segment {
    const std::string* key;  // nullptr for a list index
    std::size_t index;
  };
  std::vector<Segment> path_;

  // Members and fields are both sorted by name: one pass over the two.
  void structMembers(Json::object_t& members, const TypeNode& type, int depth) {
    auto field = type.fields.begin();
    const auto fieldsEnd = type.fields.end();
    for (auto it = members.begin(); it != members.end();) {
      const std::string& key = it->first;
      while (field != fieldsEnd && field->first < key) ++field;
      if (field == fieldsEnd || field->first != key) {
        if (found.size() < kMaxUnknownFieldsReported) found.push_back(pathTo(key));
        it = members.erase(it);
        continue;
      }
      if (field->second->prunes()) {
        path_.push_back({&key, 0});
        value(it->second, *field->second, depth + 1);
        path_.pop_back();
      }
      ++it;
    }
  }

  std::string pathTo(std::string_view key) const {
    std::string out;
    for (const Segment& s : path_) {
      if (s.key == nullptr) {
        out += '[';
        out += std::to_string(s.index);
        out += ']';
      } else {
        if (!out.empty()) out += '.';
        out += *s.key;
      }
    }
    if (!out.empty()) out += '.';
    out.append(key);
    return out;
  }
};

// A list-map element by its keys (sorted by name, as fieldpath prints them), else its index.
std::string appliedListElementSegment(const Json& element, std::size_t index,
                                      const PatchSchema::Field& field) {
  if (field.list == ListStrategy::Map && element.is_object()) {
    std::vector<std::string> keys = field.keys;
    std::sort(keys.begin(), keys.end());
    std::string out;
    for (const std::string& k : keys) {
      auto it = element.find(k);
      if (it == element.end()) continue;
      out += out.empty() ? "[" : ",";
      out += k + "=" + it->dump();
    }
    if (!out.empty()) return out + "]";
  }
  return "[" + std::to_string(index) + "]";
}

// Finds undeclared members without changing anything, naming them as structured-merge-diff's
// field paths do: ".spec.containers[name=\"c\"].x".
class UndeclaredFields {
 public:
  std::vector<std::string> found;

  void value(const Json& v, const TypeNode& type, const PatchSchema& schema, int depth) {
    if (depth > kMaxTypeDepth) return;
    switch (type.shape) {
      case TypeNode::Shape::Leaf:
        return;
      case TypeNode::Shape::Struct:
        if (!v.is_object()) return;
        for (const auto& [key, item] : v.get_ref<const Json::object_t&>()) {
          member(key, item, type, schema, depth);
        }
        return;
      case TypeNode::Shape::List:
      case TypeNode::Shape::Map:
        return;  // reached through member(), which knows the field's list keys
    }
  }

 private:
  std::vector<std::string> path_;  // rendered segments: ".key", "[0]", "[name=\"c\"]"

  void member(const std::string& key, const Json& item, const TypeNode& type,
              const PatchSchema& schema, int depth) {
    auto field = std::lower_bound(type.fields.begin(), type.fields.end(), key,
                                  [](const auto& f, const std::string& k) { return f.first < k; });
    if (field == type.fields.end() || field->first != key) {
      std::string path;
      for (const std::string& s : path_) path += s;
      found.push_back(path + "." + key);
      return;
    }
    const TypeNode& fieldType = *field->second;
    if (!fieldType.prunes()) return;
    const PatchSchema::Field& patchField = schema.field(key);
    path_.push_back("." + key);
    if (fieldType.shape == TypeNode::Shape::List && item.is_array()) {
      for (std::size_t i = 0; i < item.size(); ++i) {
        path_.push_back(appliedListElementSegment(item[i], i, patchField));
        value(item[i], *fieldType.element, patchField.schema, depth + 1);
        path_.pop_back();
      }
    } else if (fieldType.shape == TypeNode::Shape::Map && item.is_object()) {
      for (const auto& [mapKey, mapItem] : item.get_ref<const Json::object_t&>()) {
        path_.push_back("." + mapKey);
        value(mapItem, *fieldType.element, patchField.schema, depth + 1);
        path_.pop_back();
      }
    } else {
      value(item, fieldType, patchField.schema, depth + 1);
    }
    path_.pop_back();
  }
};

}  // namespace

bool hasBuiltinSchema(std::string_view apiVersion, std::string_view kind) {
  return TypeTree::get().forKind(apiVersion, kind) != nullptr;
}

std::vector<std::string> pruneUnknownFields(std::string_view apiVersion, std::string_view kind,
                                            Json& object) {
  const TypeNode* type = TypeTree::get().forKind(apiVersion, kind);
  if (type == nullptr || !object.is_object()) return {};
  Pruner pruner;
  pruner.value(object, *type, 0);
  return std::move(pruner.found);
}

std::vector<std::string> undeclaredFields(std::string_view apiVersion, std::string_view kind,
                                          const Json& applied, const PatchSchema& schema) {
  const TypeNode* type = TypeTree::get().forKind(apiVersion, kind);
  if (type == nullptr || !applied.is_object()) return {};
  UndeclaredFields walker;
  walker.value(applied, *type, schema, 0);
  return std::move(walker.found);
}

std::string appliedFieldPath(const Json& applied, const MemberPath& path,
                             const PatchSchema& schema) {
  std::string out;
  const Json* at = &applied;
  const PatchSchema* level = &schema;
  const PatchSchema::Field* list = nullptr;  // the field whose elements an index steps into
  for (const auto& segment : path) {
    if (const auto* key = std::get_if<std::string>(&segment)) {
      out += '.';
      out += *key;
      const Json* next = nullptr;
      if (at != nullptr && at->is_object()) {
        auto it = at->find(*key);
        if (it != at->end()) next = &*it;
      }
      at = next;
      list = &level->field(*key);
      level = &list->schema;
      continue;
    }
    const std::size_t index = std::get<std::size_t>(segment);
    const Json* element =
        at != nullptr && at->is_array() && index < at->size() ? &(*at)[index] : nullptr;
    static const PatchSchema::Field kAtomic;
    out += element != nullptr ? appliedListElementSegment(*element, index, list ? *list : kAtomic)
                              : "[" + std::to_string(index) + "]";
    at = element;
  }
  return out;
}

}  // namespace fakekube
