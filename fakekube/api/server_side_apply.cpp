#include "fakekube/api/internal/server_side_apply.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/internal/field_set.h"
#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/yaml.h"

namespace fakekube {

namespace {

void mergeValue(Json& live, const Json& applied, const PatchSchema::Field& field);

// The walks below recurse once per level of the document, which nests up to
// kMaxJsonNestingDepth (json_decode.h) deep: they iterate the underlying map rather than items(),
// whose proxies would take a few hundred bytes of every frame.

// Removes the null members of the objects below `v`, in place (list elements stay).
void dropNulls(Json& v) {
  if (v.is_object()) {
    auto& object = v.get_ref<Json::object_t&>();
    for (auto it = object.begin(); it != object.end();) {
      if (it->second.is_null()) {
        it = object.erase(it);
      } else {
        dropNulls(it->second);
        ++it;
      }
    }
  } else if (v.is_array()) {
    for (auto& item : v.get_ref<Json::array_t&>()) dropNulls(item);
  }
}

// The applied value where nothing was: nulls mean "unset", so they go.
Json withoutNulls(const Json& v) {
  Json out = v;
  dropNulls(out);
  return out;
}

void mergeObject(Json& live, const Json& applied, const PatchSchema& schema) {
  if (!live.is_object()) live = Json::object();
  for (const auto& [key, value] : applied.get_ref<const Json::object_t&>()) {
    if (value.is_null()) {
      live.erase(key);
      continue;
    }
    auto existing = live.find(key);
    if (existing == live.end()) {
      live[key] = withoutNulls(value);
    } else {
      mergeValue(*existing, value, schema.field(key));
    }
  }
}

// Whether two list-map elements have the same key values (a missing key matches only a missing
// key).
bool sameElement(const Json& a, const Json& b, const std::vector<std::string>& keys) {
  for (const auto& key : keys) {
    auto ia = a.find(key);
    auto ib = b.find(key);
    const bool hasA = ia != a.end();
    const bool hasB = ib != b.end();
    if (hasA != hasB || (hasA && *ia != *ib)) return false;
  }
  return true;
}

[[gnu::noinline]] void mergeListMap(Json& live, const Json& applied,
                                    const PatchSchema::Field& field) {
  const bool allObjects =
      std::all_of(live.begin(), live.end(), [](const Json& v) { return v.is_object(); }) &&
      std::all_of(applied.begin(), applied.end(), [](const Json& v) { return v.is_object(); });
  if (!allObjects) {  // not the list the schema describes: the applied one wins
    live = withoutNulls(applied);
    return;
  }
  for (const auto& element : applied) {
    auto match = std::find_if(live.begin(), live.end(),
                              [&](const Json& l) { return sameElement(l, element, field.keys); });
    if (match != live.end()) {
      mergeObject(*match, element, field.schema);
    } else {
      live.push_back(withoutNulls(element));
    }
  }
}

[[gnu::noinline]] void mergeSet(Json& live, const Json& applied) {
  for (const auto& value : applied) {
    if (std::find(live.begin(), live.end(), value) == live.end()) live.push_back(value);
  }
}

void mergeValue(Json& live, const Json& applied, const PatchSchema::Field& field) {
  if (live.is_object() && applied.is_object() && !field.appliedWhole()) {
    mergeObject(live, applied, field.schema);
  } else if (live.is_array() && applied.is_array() && field.list == ListStrategy::Map) {
    mergeListMap(live, applied, field);
  } else if (live.is_array() && applied.is_array() && field.list == ListStrategy::Set) {
    mergeSet(live, applied);
  } else {
    live = withoutNulls(applied);
  }
}

void pruneObject(Json& object, const Json& last, const Json& owned, const PatchSchema& schema,
                 bool root);

// The element of `list` a list-map or set path element names, or list.size().
std::size_t findElement(const Json& list, std::string_view element,
                        const PatchSchema::Field& field) {
  const bool byKey = element.starts_with("k:");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& candidate = list[i];
    if (byKey ? candidate.is_object() && field_set::keyElement(candidate, field.keys) == element
              : field_set::valueElement(candidate) == element) {
      return i;
    }
  }
  return list.size();
}

void pruneList(Json& list, const Json& last, const Json& owned, const PatchSchema::Field& field) {
  for (auto it = last.begin(); it != last.end(); ++it) {
    if (it.key() == field_set::kSelf) continue;
    const std::size_t at = findElement(list, it.key(), field);
    if (at == list.size()) continue;
    auto ownedChild = owned.find(it.key());
    if (ownedChild == owned.end()) {
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(at));
    } else if (field_set::hasChildren(*it) && list[at].is_object()) {
      pruneObject(list[at], *it, *ownedChild, field.schema, false);
    }
  }
}

void pruneObject(Json& object, const Json& last, const Json& owned, const PatchSchema& schema,
                 bool root) {
  static const Json kNothingOwned = Json::object();
  for (auto it = last.begin(); it != last.end(); ++it) {
    if (!it.key().starts_with("f:")) continue;
    const std::string_view name = std::string_view(it.key()).substr(2);
    auto value = object.find(name);
    if (value == object.end()) continue;
    auto ownedChild = owned.find(it.key());
    // An object's metadata is never removed: sets leave out its name, which every applied
    // configuration has.
    if (root && name == "metadata" && value->is_object()) {
      pruneObject(*value, *it, ownedChild != owned.end() ? *ownedChild : kNothingOwned,
                  schema.field(name).schema, false);
      continue;
    }
    if (ownedChild == owned.end()) {
      object.erase(value);
    } else if (field_set::hasChildren(*it)) {
      const PatchSchema::Field& field = schema.field(name);
      if (value->is_object()) {
        pruneObject(*value, *it, *ownedChild, field.schema, false);
      } else if (value->is_array()) {
        pruneList(*value, *it, *ownedChild, field);
      }
    }
  }
}

}  // namespace

void pruneAppliedConfiguration(Json& merged, const Json& lastApplied, const Json& owned,
                               const PatchSchema& schema) {
  if (merged.is_object()) pruneObject(merged, lastApplied, owned, schema, true);
}

Result<Json> parseAppliedConfiguration(std::string_view body) {
  Json applied;
  // JSON nested past the limit: what go-yaml, which reads every apply body, says of it.
  if (const auto first = body.find_first_not_of(" \t\r\n");
      first != std::string_view::npos && (body[first] == '{' || body[first] == '[')) {
    if (auto at = findExcessiveNesting(body)) {
      const auto line = 1 + std::count(body.begin(), body.begin() + *at, '\n');
      return tl::unexpected(Status::badRequest(fmt::format(
          "error decoding YAML: error converting YAML to JSON: yaml: {}exceeded max depth of {}",
          line > 1 ? fmt::format("line {}: ", line) : "", kMaxJsonNestingDepth)));
    }
  }
  // kubectl sends JSON; parse that directly so numbers keep their exact form. Anything else is
  // YAML (of which JSON is a subset).
  if (auto json = parseJsonText(body)) {
    applied = std::move(*json);
  } else {
    auto decoded = decodeYaml(body);
    if (!decoded) {
      return tl::unexpected(
          Status::badRequest(fmt::format("error decoding YAML: {}", decoded.error().message)));
    }
    applied = std::move(*decoded);
  }
  if (applied.is_null()) return Json::object();
  if (!applied.is_object()) {
    return tl::unexpected(Status::badRequest(fmt::format(
        "error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot "
        "unmarshal {} into Go value of type map[string]interface {{}}",
        applied.is_array()     ? "array"
        : applied.is_string()  ? "string"
        : applied.is_boolean() ? "bool"
                               : "number")));
  }
  return applied;
}

void mergeAppliedConfiguration(Json& live, const Json& applied, const PatchSchema& schema) {
  mergeObject(live, applied, schema);
}

}  // namespace fakekube
