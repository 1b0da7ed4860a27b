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
    current = jsonFind(*current, key);
    if (current == nullptr) return kNull;
  }
  return *current;
}

}  // namespace

const Json* jsonFind(const Json& object, std::string_view key) {
  const auto* members = object.get_ptr<const Json::object_t*>();
  if (members == nullptr) return nullptr;
  auto it = members->find(key);
  return it == members->end() ? nullptr : &it->second;
}

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
  if (&a == &b) return true;
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Json::value_t::object: {
      // Both maps are ordered by key: one walk compares them (over the maps themselves, not
      // through nlohmann's iterators, which the compiler leaves as calls).
      const auto& left = a.get_ref<const Json::object_t&>();
      const auto& right = b.get_ref<const Json::object_t&>();
      if (left.size() != right.size()) return false;
      for (auto l = left.begin(), r = right.begin(); l != left.end(); ++l, ++r) {
        if (l->first != r->first || !sameJson(l->second, r->second)) return false;
      }
      return true;
    }
    case Json::value_t::array: {
      const auto& left = a.get_ref<const Json::array_t&>();
      const auto& right = b.get_ref<const Json::array_t&>();
      if (left.size() != right.size()) return false;
      for (std::size_t i = 0; i < left.size(); ++i) {
        if (!sameJson(left[i], right[i])) return false;
      }
      return true;
    }
    default:
      return a == b;
  }
}

}  // namespace fakekube
