// fieldValidation: what a write answers for the unknown fields of a built-in object
// (api/internal/builtin_pruning.h drops them), as kube-apiserver's handlers answer them
// (k8s.io/apiserver/pkg/endpoints/handlers: create.go, update.go, patch.go):
//   - create, update and the status subresource decode the body strictly: Warn adds
//     `unknown field "spec.foo"` for each, Strict fails with a 400
//       ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error:
//       unknown field "bogus", unknown field "data.x"
//   - JSON and merge patches decode the patched object the same way; Strict fails with a 422
//     naming the field "patch" and showing the patched object:
//       "" is invalid: patch: Invalid value: "{...}": strict decoding error: unknown field "x"
//     and a strategic merge patch the same with the patch itself as Go prints a map
//     (`map[x:map[a:1]]`);
//   - server-side apply refuses undeclared fields whatever fieldValidation says (its typed
//     conversion fails), with the untyped 500 kube-apiserver answers:
//       failed to create typed patch object (default/c1; /v1, Kind=ConfigMap): .bogus: field not
//       declared in schema
// Ignore drops them silently. Custom resources answer the same, for what their definition's
// structural schema prunes (api/internal/structural_schema.h), as the apiextensions decoder reports
// it.
#pragma once

#include <optional>
#include <string_view>

#include "fakekube/api/internal/patch_schema.h"
#include "fakekube/api/json.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/api/status.h"
#include "fakekube/apiserver/options.h"

namespace fakekube::fieldvalidation {

// A create, update or status body: prunes `object` in place.
std::optional<Status> decodeBody(const ResourceInfo& info, Json& object,
                                 const WriteWarnings& options);

// The result of a JSON, merge or strategic merge patch (`patchText` of `type`): prunes `patched`.
std::optional<Status> decodePatched(const ResourceInfo& info, Json& patched, PatchType type,
                                    std::string_view patchText, const WriteWarnings& options);

// An applied configuration (server-side apply), under the kind's list keys `schema`.
std::optional<Status> checkApplied(const ResourceInfo& info, const Json& applied,
                                   const PatchSchema& schema);

}  // namespace fakekube::fieldvalidation
