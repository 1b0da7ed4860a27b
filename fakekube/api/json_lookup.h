// jsonAt: the value at a path of object keys in a document, or null when any step is missing or
// not an object. For reading specs and statuses whose optional parts may be absent, without
// operator[] (which would insert) or at() (which throws).
//
// sameJson: whether two documents are the same text-for-text: same types (1 and 1.0 differ, which
// nlohmann's operator== does not tell apart), same members, same elements.
//
// jsonArrayAt / jsonObjectAt: object[key] when it is an array (an object), else a static empty
// one: what `object.value(key, Json::array())` reads, without copying the member (value()
// returns a copy, of a pod's containers, say, on every event).
//
// jsonFind: a pointer to object[key], or nullptr when `object` is not an object or has no such
// member. The primitive under the others: it looks the member up in the object's map directly,
// where object.find(key) != object.end() builds and compares two nlohmann iterators (calls the
// compiler does not inline, on the path every read of a document takes).
//
// jsonMember: object[key] for writing, inserted as null when absent, as operator[] does, but with
// one lookup by string_view: nlohmann's operator[] builds a std::string key and a map node before
// it looks, and throws the node away when the key is there.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"

namespace fakekube {

// if (const Json* spec = jsonFind(pod, "spec")): a pointer into `object`, or nullptr.
const Json* jsonFind(const Json& object, std::string_view key);

// jsonAt(pod, {"spec", "template", "spec"}): a reference into `document`, or to a static null.
const Json& jsonAt(const Json& document, std::initializer_list<std::string_view> path);
// The same for a path known only at run time (an index's member, say).
const Json& jsonAt(const Json& document, const std::vector<std::string>& path);

// for (const Json& c : jsonArrayAt(podSpec, "containers")): references into `object` (which
// must outlive them) or to static empties; never throws, whatever `object` is.
const Json& jsonArrayAt(const Json& object, std::string_view key);
const Json& jsonObjectAt(const Json& object, std::string_view key);

// jsonMember(pod, "status") = ...: `object` must be an object or null (null becomes an empty
// object); anything else throws nlohmann's type_error, as operator[] does.
Json& jsonMember(Json& object, std::string_view key);

// sameJson(a, b): a == b, and every number of the same kind (integer, unsigned or float) in both.
bool sameJson(const Json& a, const Json& b);

}  // namespace fakekube
