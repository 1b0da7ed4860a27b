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
// and the aggregated forms, one document for all of /api or all of /apis with every kind and its
// subresources (apidiscovery.k8s.io v2 and v2beta1 APIGroupDiscoveryList), which client-go 1.32
// asks for first (Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,
// then v2beta1, then plain JSON) and which spares it one request per group/version.
//
// Built from the ResourceRegistry on every request, so a CustomResourceDefinition's kind shows up
// as soon as it is created and disappears when it is deleted. The unaggregated forms stay for
// clients that ask for plain application/json.
#pragma once

#include <optional>
#include <string>
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

// The aggregated document of /api (`legacy`) or /apis; `discoveryVersion` is "v2" or "v2beta1"
// (the two have the same shape).
Json aggregatedDiscoveryDocument(const ResourceRegistry& registry, bool legacy,
                                 std::string_view discoveryVersion);
// Its Content-Type, which clients check before reading it as aggregated.
std::string aggregatedDiscoveryContentType(std::string_view discoveryVersion);

}  // namespace fakekube
