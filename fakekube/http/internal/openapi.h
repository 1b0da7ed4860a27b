// OpenAPI: the documents kubectl reads for its default validation (--validate=strict) and for
// `kubectl explain`.
//
// kubectl fetches GET /openapi/v3 (an index of group/versions, each with a serverRelativeURL
// carrying a content hash), then the group/version document, and looks for the PATCH operation of
// the kind (x-kubernetes-group-version-kind) with a `fieldValidation` query parameter: when it is
// there, kubectl sends fieldValidation=Strict and leaves validation to the server. So each
// document lists, per kind, its collection and item paths with the write operations and their
// query parameters.
//
// `kubectl explain` (1.32) reads the same group/version document: it finds the kind through the
// x-kubernetes-group-version-kind of an operation on the resource's path, then the schema in
// components.schemas carrying that group/version/kind, and follows properties, items,
// additionalProperties and allOf/$ref from there. So each document carries the schemas of its
// kinds and every type they refer to: the built-in kinds' from builtin_schemas.h, a custom
// resource's from its CustomResourceDefinition's openAPIV3Schema (with apiVersion, kind and
// metadata added, named as kube-apiserver names them: com.example.v1.Widget).
//
// The PATCH operations declare no request body. kubectl apply computes a strategic merge patch
// from the OpenAPI schema only when the PATCH operation accepts
// application/strategic-merge-patch+json; otherwise it uses its compiled-in types, whose merge
// keys are complete, where these schemas carry none. /openapi/v2 holds the same schemas as
// Swagger 2.0 definitions, served as JSON only: client-go asks for the protobuf form and, refused
// (406), falls back to its compiled-in types as well.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/resource_registry.h"

namespace fakekube {

using CustomResourceDefinitions = std::vector<std::shared_ptr<const Json>>;

// The index served at /openapi/v3: {"paths":{"api/v1":{"serverRelativeURL":...},...}}. The hash
// in each URL changes when the document does.
Json openApiIndexDocument(const ResourceRegistry& registry,
                          const CustomResourceDefinitions& customResourceDefinitions = {});

// The document of "api/v1" or "apis/<group>/<version>"; nullopt when nothing is served there.
// `customResourceDefinitions` are the CRD objects whose schemas the custom kinds get.
std::optional<Json> openApiGroupVersionDocument(
    const ResourceRegistry& registry, std::string_view groupVersionPath,
    const CustomResourceDefinitions& customResourceDefinitions = {});

// The Swagger 2.0 document served at /openapi/v2: every kind's schema under "definitions".
Json openApiV2Document(const ResourceRegistry& registry,
                       const CustomResourceDefinitions& customResourceDefinitions = {});

}  // namespace fakekube
