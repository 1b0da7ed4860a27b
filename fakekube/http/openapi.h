// OpenAPI v3: the minimal documents that let kubectl's default validation (--validate=strict)
// work against this server.
//
// kubectl fetches GET /openapi/v3 (an index of group/versions, each with a serverRelativeURL
// carrying a content hash), then the group/version document, and looks for the PATCH operation of
// the kind (x-kubernetes-group-version-kind) with a `fieldValidation` query parameter: when it is
// there, kubectl sends fieldValidation=Strict and leaves validation to the server. So each
// document lists, per kind, its collection and item paths with the write operations and their
// query parameters. No schemas are published (components is empty): kubectl then computes
// strategic merge patches from its compiled-in types, as it does against servers without them.
#pragma once

#include <optional>
#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/resource_registry.h"

namespace fakekube {

// The index served at /openapi/v3: {"paths":{"api/v1":{"serverRelativeURL":...},...}}.
Json openApiIndexDocument(const ResourceRegistry& registry);

// The document of "api/v1" or "apis/<group>/<version>"; nullopt when nothing is served there.
std::optional<Json> openApiGroupVersionDocument(const ResourceRegistry& registry,
                                                std::string_view groupVersionPath);

}  // namespace fakekube
