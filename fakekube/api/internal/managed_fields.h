// Field ownership: metadata.managedFields, kept by every write as kube-apiserver's field manager
// keeps it (k8s.io/apimachinery/pkg/util/managedfields/internal and structured-merge-diff's
// merge/update.go).
//
// An object's managedFields list one entry per manager, operation and subresource (and, for
// updates, apiVersion):
//   {"manager": "kubectl", "operation": "Apply", "apiVersion": "apps/v1",
//    "time": "2024-01-01T00:00:00Z", "fieldsType": "FieldsV1",
//    "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "status"}
// with the fields (field_set.h) that manager set last.
//
//  - An update (create, update, a JSON / merge / strategic merge patch) gives its manager the
//    fields it added or changed and takes them from every other manager; removed fields leave
//    every set. The entry's time is the write's when it changed something; an update that
//    changes nothing changes no entry. More than ten update entries: the oldest merge into
//    "ancient-changes" (capmanagers.go).
//  - An apply makes its manager own exactly the fields of its configuration, removes from the
//    object what the manager applied last time and no longer applies when nobody else owns it
//    (the core of apply: a configuration is declarative), and fails with 409 Conflict when it
//    changes a field another manager owns — unless forced, when it takes the field.
//
// A stored object keeps each entry's fieldsV1 raw: the set's compact JSON text in a binary value,
// as Go's metav1.FieldsV1 keeps its Raw bytes, which the JSON writer writes as it is (a client
// over HTTP reads the same object as ever). A tree of a few dozen `"f:name": {}` members would
// take five times the memory in every object, for sets read only when a write changes them; a
// write unpacks only the sets whose raw text names a field it changed. In process, read an
// entry's set with fieldsV1() below, which answers the tree whichever form the entry holds (an
// object read back from a database, or decoded from a request, holds trees until its next write).
//
// A request may carry managedFields itself: a valid list replaces the stored one (then this write
// is recorded on top of it), `[]` or `[{}]` clears it, an invalid one is ignored and the stored
// list kept (decodeLiveOrNew). Subresource writes always start from the stored list.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fakekube/api/internal/object_fields.h"
#include "fakekube/api/internal/patch_schema.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube::managed_fields {

// One write, as its entry records it.
struct Write {
  std::string_view manager;      // the fieldManager ("unknown" when empty, as upstream)
  std::string_view apiVersion;   // the request's group/version: "apps/v1", "v1"
  std::string_view subresource;  // "" or "status"
  std::string_view time;         // RFC 3339, the server's clock
  PatchSchema schema;            // how the kind's lists merge
  object_fields::Scope scope;    // what the write can change
};

// An update: `updated` replaces `live` (nullptr for a create, compared with `zero`, the kind's
// zero value); sets updated's metadata.managedFields.
void recordUpdate(const Json* live, const Json& zero, Json& updated, const Write& write);

// An apply of `configuration`: `merged` is `live` (nullptr for a create, compared with `zero`)
// with it merged in.
// Prunes from `merged` what the manager no longer applies and sets its managedFields; a 409
// Conflict naming each field and its manager when the apply changes fields others own and
// `force` is false.
std::optional<Status> recordApply(const Json* live, const Json& zero, Json& merged,
                                  const Json& configuration, const Write& write, bool force);

// The set of one managedFields entry, as a FieldsV1 tree ({"f:spec": {"f:replicas": {}}}),
// whether the entry holds it raw or as a tree; the empty object when it has none.
Json fieldsV1(const Json& entry);

// The managedFields of a request that the server accepts as sent: nullopt when valid, otherwise
// why not (DecodeManagedFields' checks).
std::optional<std::string> check(const Json& managedFields);

}  // namespace fakekube::managed_fields
