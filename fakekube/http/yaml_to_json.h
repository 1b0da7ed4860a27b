// YAML request bodies as JSON documents.
//
// Server-side apply sends `application/apply-patch+yaml` (kubectl sends JSON, which is YAML too,
// but other clients send real YAML), and the API server accepts application/yaml bodies on create
// and update. Plain scalars are typed as Kubernetes' YAML decoder (sigs.k8s.io/yaml over YAML
// 1.1) types them: null / ~ / empty, true/false/yes/no/on/off, integers (decimal, 0x, 0o),
// floats (.inf, .nan); quoted or tagged scalars stay strings.
#pragma once

#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

// The one document of `text` as JSON; a 400 BadRequest Status when it does not parse or holds
// more than one document.
Result<Json> yamlToJson(std::string_view text);

}  // namespace fakekube
