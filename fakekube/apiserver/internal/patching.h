// The PATCH verb's own rules (k8s.io/apiserver/pkg/endpoints/handlers/patch.go), apart from the
// update rules every patch ends in: which PatchOptions are valid, how each patch type turns the
// current object into the patched one, and what server-side apply checks in the applied
// configuration before it creates or merges.
#pragma once

#include <optional>
#include <string_view>

#include "fakekube/api/group_version.h"
#include "fakekube/api/internal/patch_schema.h"
#include "fakekube/api/json.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/api/status.h"
#include "fakekube/apiserver/options.h"

namespace fakekube::patching {

// ValidatePatchOptions: apply needs a fieldManager; force is for apply only; a fieldManager is at
// most 128 printable characters. A 422 `PatchOptions.meta.k8s.io "" is invalid: ...` otherwise.
std::optional<Status> validateOptions(PatchType type, const PatchOptions& options);

// The current object with a JSON patch, merge patch or strategic merge patch applied (the latter
// under `schema`), or the error the API server answers for a patch that does not decode or apply.
Result<Json> patchedObject(const Json& current, PatchType type, std::string_view patchText,
                           const PatchSchema& schema);

// What server-side apply requires of an applied configuration whatever the live object: the
// apiVersion and kind of the request (400 "invalid object type: apps/v1, Kind=Deployment") and no
// metadata.managedFields (400).
std::optional<Status> checkAppliedConfiguration(const ResourceInfo& info,
                                                const GroupVersionResource& gvr,
                                                const Json& applied);

}  // namespace fakekube::patching
