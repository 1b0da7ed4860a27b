// Strategic merge patch: PATCH with Content-Type application/strategic-merge-patch+json, what
// `kubectl patch` sends by default and what `kubectl apply` (client-side), `label`, `annotate`,
// `scale`, `edit` and `set image` send for built-in kinds.
//
// It is a JSON merge patch (objects merge recursively, null deletes, scalars replace) in which the
// lists the kind's PatchSchema marks merge instead of being replaced: a list of objects merges
// element by element on its merge key (containers by name, conditions by type, ownerReferences by
// uid, ...), and a list of strings marked merge (finalizers) merges as a set. Every other list is
// replaced whole. Directives refine it, as in k8s.io/apimachinery/pkg/util/strategicpatch:
//
//   {"$patch": "replace", ...}            in an object: the object becomes the rest of this one
//   {"$patch": "delete"}                  in an object: the object becomes {}
//   [{"name": "x", "$patch": "delete"}]   in a merge list: removes the element with that key
//   [{"$patch": "replace"}, ...]          in a merge list: the list becomes the other elements
//   "$deleteFromPrimitiveList/<field>": [values]   removes these values from a merged string list
//   "$setElementOrder/<field>": [...]     the order of the merged list (elements, or {key: value}
//                                         objects); elements only the server has keep their place
//   "$retainKeys": [fields]               keys of this object not listed are cleared
//
// The result orders a merged list as Kubernetes does: the patch's elements in the patch's order
// (or $setElementOrder's), interleaved with the elements only the live object has, which keep
// their relative order. `"$patch": "merge"` is refused, as Kubernetes refuses it.
//
// Errors carry the API server's codes and messages: text that is not a JSON object is 400; bad
// directive formats are 400 ("invalid patch format of retainKeys"); a list of lists is 422; a merge
// list element without its merge key, an unknown $patch value or mixed element types answer what
// the real server answers for them, an untyped 500 with the strategicpatch error text (e.g. "map:
// map[image:nginx] does not contain declared merge key: name").
#pragma once

#include <string_view>

#include "fakekube/api/internal/patch_schema.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

// Parses `patchText` and applies it to a copy of `doc` (an object) under `schema`.
Result<Json> applyStrategicMergePatch(const Json& doc, std::string_view patchText,
                                      const PatchSchema& schema);

}  // namespace fakekube
