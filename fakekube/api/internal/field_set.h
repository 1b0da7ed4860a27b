// FieldSet: a set of field paths, in the form metadata.managedFields stores it ("FieldsV1").
//
// structured-merge-diff (sigs.k8s.io/structured-merge-diff, fieldpath/serialize.go) writes the
// fields a manager owns as a tree of JSON objects, one level per path element:
//   f:<name>            a field of an object              .spec.replicas
//   k:{"name":"c"}      a list-map element, by its keys   .spec.containers[name="c"]
//   v:"a"               a set element, by its value       .metadata.finalizers[="a"]
//   i:<n>               a list element by index
// A node with no children, `{}`, is a member of the set; a node with children is a member only
// when it has the child "." (`"f:labels": {".": {}, "f:app": {}}` owns the map and one key).
//
// The functions here work on that form directly, in place. A stored object keeps each set as its
// compact text (managed_fields.h) and a write unpacks only the sets it changes. Keys are ordered
// as JsonObjectMap orders them (by name), which differs from structured-merge-diff's element
// order only for index elements and numeric keys: the same set, serialised in another member
// order.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"

namespace fakekube::field_set {

// The "." child that marks a node with children as a member.
inline constexpr std::string_view kSelf = ".";

// How deep a set goes. A value nested deeper in an object is owned as one leaf (no Kubernetes
// type comes close; a custom resource's preserve-unknown-fields subtree may, up to the decoders'
// limit), which bounds every walk over objects and sets here, and the depth managedFields add
// to a document. A set sent deeper than this is not valid.
inline constexpr int kMaxDepth = 100;

// Whether `node` (a set node: an object) is a member of its set.
bool isMember(const Json& node);
// Whether `node` has any child other than ".".
bool hasChildren(const Json& node);

// Whether `fields` is a FieldsV1 tree as structured-merge-diff's FieldsToSet reads it (and no
// deeper than kMaxDepth): nullopt when valid, otherwise why not.
std::optional<std::string> check(const Json& fields);

// Adds `other`'s paths to `set` (both FieldsV1 objects).
void unite(Json& set, const Json& other);
// Removes `other`'s paths from `set`: a member of `other` stops being a member of `set`, and a
// node left with neither membership nor children goes. Not recursive: removing `.spec` leaves
// `.spec.replicas`, as fieldpath.Set.Difference does.
void subtract(Json& set, const Json& other);
// The paths in both.
Json intersection(const Json& a, const Json& b);

// Inserts `children` (a node's children, built by a walk) under `parent[key]`, marking the node
// a member when `member`; does nothing for a node with neither.
void place(Json& parent, std::string_view key, Json children, bool member);

// The path elements of a list element: `k:` with its key fields (sorted, compact JSON, as
// structured-merge-diff serialises a key), or `v:` with a set element's value.
std::string keyElement(const Json& element, const std::vector<std::string>& keys);
std::string valueElement(const Json& value);

// The set's members as paths, members of a node before its children's (fieldpath.Set.Iterate's
// order), in the form conflicts are reported in: `.spec.containers[name="c"].image`.
std::vector<std::string> paths(const Json& set);

// One path element as structured-merge-diff prints it (".replicas", "[name=\"c\"]", "[=\"a\"]").
std::string printElement(std::string_view element);

}  // namespace fakekube::field_set
