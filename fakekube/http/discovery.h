// Discovery: the documents clients read to learn what the server serves.
//
//   GET /api                APIVersions      {"versions":["v1"],...}
//   GET /apis               APIGroupList     every group with its versions, CRD groups included
//   GET /apis/<g>           APIGroup
//   GET /api/v1, /apis/<g>/<v>
//                           APIResourceList  each kind (name, singularName, namespaced, kind,
//                                            verbs, shortNames, categories) and its subresources
//                                            as "pods/status", "pods/binding",
//                                            "namespaces/finalize"
//
// Built from the ResourceRegistry on every request, so a CustomResourceDefinition's kind shows up
// as soon as it is created and disappears when it is deleted. The legacy (unaggregated) forms are
// served: client-go falls back to them when the answer is plain application/json.
#pragma once

#include <optional>
#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/resource_registry.h"

namespace fakekube {

// `serverAddress` is "host:port" as clients reach the server.
Json apiVersionsDocument(std::string_view serverAddress);
Json apiGroupListDocument(const ResourceRegistry& registry);
// nullopt when no kind of the group is served.
std::optional<Json> apiGroupDocument(const ResourceRegistry& registry, std::string_view group);
// nullopt when the group/version serves no kind. `group` is "" for /api/v1.
std::optional<Json> apiResourceListDocument(const ResourceRegistry& registry,
                                            std::string_view group, std::string_view version);

}  // namespace fakekube
