// BuiltinSchemas: the OpenAPI schemas of the built-in kinds, for the documents `kubectl explain`
// reads (openapi.h), built from the table of their fields (api/internal/builtin_schema_table.h).
// Each form of the schemas (OpenAPI v3 components, OpenAPI v2 definitions) is built on first use.
//
// Definition names end in the type's name (io.k8s.v1.Container), which is what explain prints as
// a field's type (<[]Container>).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/internal/builtin_schema_table.h"
#include "fakekube/api/json.h"

namespace fakekube {

enum class OpenApiForm { V2, V3 };

// The kinds the table has a schema for.
const std::vector<BuiltinKindSchema>& builtinKindSchemas();

// The definition of the kind's schema; empty when the table has none.
std::string builtinDefinitionOf(std::string_view group, std::string_view version,
                                std::string_view kind);

// Adds `definition` and every definition it refers to, directly or not, to `into` (an object
// keyed by definition name), in `form`: references are "#/components/schemas/<name>" (v3, a
// field's reference wrapped in allOf beside its description, as kube-apiserver publishes them)
// or "#/definitions/<name>" (v2). Kind definitions carry x-kubernetes-group-version-kind. An
// unknown definition adds nothing.
void addBuiltinDefinitions(const std::string& definition, OpenApiForm form, Json& into);

}  // namespace fakekube
