#include "fakekube/api/json_lookup.h"

#include <nlohmann/json.hpp>

namespace fakekube {

namespace {

// Both jsonAt overloads: `path` is any range of keys that convert to std::string_view.
template <class Path>
const Json& walk(const Json& document, const Path& path) {
  static const Json kNull;
  const Json* current = &document;
  for (std::string_view key : path) {
    if (!current->is_object()) return kNull;
    auto it = current->find(key);
    if (it == current->end()) return kNull;
    current = &*it;
  }
  return *current;
}

}  // namespace

const Json& jsonAt(const Json& document, std::initializer_list<std::string_view> path) {
  return walk(document, path);
}

const Json& jsonAt(const Json& document, const std::vector<std::string>& path) {
  return walk(document, path);
}

const Json& jsonArrayAt(const Json& object, std::string_view key) {
  static const Json kEmpty = Json::array();
  const Json& found = jsonAt(object, {key});
  return found.is_array() ? found : kEmpty;
}

const Json& jsonObjectAt(const Json& object, std::string_view key) {
  static const Json kEmpty = Json::object();
  const Json& found = jsonAt(object, {key});
  return found.is_object() ? found : kEmpty;
}

Json& jsonMember(Json& object, std::string_view key) {
  if (object.is_null()) object = Json::object();
  if (!object.is_object()) return object[std::string(key)];  // throws the usual type_error
  return object.get_ref<Json::object_t&>().emplace(key).first->second;
}

bool sameJson(const Json& a, const Json& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Json::value_t::object: {
      if (a.size() != b.size()) return false;
      // Both maps are ordered by key: one walk compares them.
      for (auto left = a.begin(), right = b.begin(); left != a.end(); ++left, ++right) {
        if (left.key() != right.key() || !sameJson(*left, *right)) return false;
      }
      return true;
    }
    case Json::value_t::array: {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!sameJson(a[i], b[i])) return false;
      }
      return true;
    }
    default:
      return a == b;
  }
}

}  // namespace fakekube
