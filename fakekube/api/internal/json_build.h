// jsonObject(key, value, key, value, ...): a JSON object built member by member, each value
// moved into place.
//
// nlohmann's initializer-list constructor ({{"name", n}, {"value", v}}) first makes every member a
// two-element array, then checks that the whole list is made of such pairs, then copies each one
// out (the elements of an initializer_list are const): several times the work of emplacing the
// members, on paths that run for every pod event (conditions, env vars, owner references,
// Events). Keys must be distinct.
//
// Includes <nlohmann/json.hpp>: include this header from .cpp files only.
#pragma once

#include <nlohmann/json.hpp>
#include <utility>

#include "fakekube/api/json.h"

namespace fakekube {

namespace json_build_detail {

inline void emplaceMembers(Json::object_t&) {}

template <class Key, class Value, class... Rest>
void emplaceMembers(Json::object_t& object, Key&& key, Value&& value, Rest&&... rest) {
  object.emplace(std::forward<Key>(key), std::forward<Value>(value));
  emplaceMembers(object, std::forward<Rest>(rest)...);
}

}  // namespace json_build_detail

template <class... Members>
Json jsonObject(Members&&... members) {
  static_assert(sizeof...(Members) % 2 == 0, "jsonObject takes key, value pairs");
  Json object = Json::object();
  json_build_detail::emplaceMembers(object.get_ref<Json::object_t&>(),
                                    std::forward<Members>(members)...);
  return object;
}

}  // namespace fakekube
