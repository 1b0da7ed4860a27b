// Discovery over a Client: which resources the server serves, and the verbs that no Client
// interface method covers (a namespace's `finalize` subresource).
//
// Controllers that act on every kind — the namespace controller deletes a namespace's contents of
// every namespaced kind, the garbage collector watches every kind — must learn the set of kinds
// from the server, custom kinds included, and learn it again as CustomResourceDefinitions come
// and go. In process the answer is the ApiServer's registry; over HTTP it is what kubectl reads:
// GET /api/v1, GET /apis, then GET /apis/<group>/<preferred version> per group.
//
// These work on the two clients that talk to a server (InProcessClient, RestClient); any other
// reader answers 405 MethodNotSupported. A Manager's apiReader() is one of those two.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

class Reader;

// One served resource at its preferred version (subresources are not listed).
struct ServedResource {
  GroupVersionResource gvr;
  std::string kind;
  bool namespaced = true;
  // The verbs discovery lists; empty means every verb (a stored kind in process).
  std::vector<std::string> verbs;

  // Whether every one of `wanted` is served ("list", "watch", "delete").
  bool supports(std::initializer_list<std::string_view> wanted) const;
};

// Every resource the server behind `reader` serves now.
Result<std::vector<ServedResource>> servedResources(Reader& reader);

// PUT /api/v1/namespaces/<name>/finalize with `ns` (a namespace's spec.finalizers).
Result<Json> finalizeNamespace(Reader& reader, Json ns);

}  // namespace fakekube
