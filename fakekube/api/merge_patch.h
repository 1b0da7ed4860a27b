// JSON Merge Patch (RFC 7386): PATCH with Content-Type application/merge-patch+json, and what
// `kubectl apply` sends for custom resources.
//
// The patch mirrors the document's shape: a member set to null is deleted, an object merges
// recursively into the object at the same place, and anything else (scalars and whole arrays)
// replaces what was there. Lists therefore cannot be edited element by element; that is what
// strategic merge patch adds for built-in kinds.
#pragma once

#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

// Parses `patchText` and merges it into a copy of `doc`.
//
// RFC 7386 lets a non-object patch replace the whole document, but a Kubernetes object cannot be
// replaced by an array or a string, so here a patch that is not a JSON object is a 400
// BadRequest, as is text that is not JSON (`error decoding patch: ...`).
Result<Json> applyMergePatch(const Json& doc, std::string_view patchText);

// The RFC 7386 MergePatch algorithm itself, in place and with no Kubernetes restriction: a
// non-object patch replaces `doc`; if `doc` is not an object it first becomes {}; null members
// delete, object members merge recursively, all else replaces. Nulls inside a value that is
// added where nothing was are dropped too (the RFC's recursion over an empty target).
void mergePatchInPlace(Json& doc, const Json& patch);

// The merge patch that turns `original` into `modified`: members that disappeared become null,
// changed objects recurse, other changed values are carried whole; {} when nothing changed. If
// either side is not an object the patch is `modified` itself.
//
// Merge patch cannot express a member whose value is null (null means delete) and drops nulls
// nested in added objects, so for documents containing nulls applying the result gives the
// document without them. Kubernetes objects do not rely on explicit nulls.
Json createMergePatch(const Json& original, const Json& modified);

}  // namespace fakekube
