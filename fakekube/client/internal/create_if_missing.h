// createIfMissing(): what installs a definition or a default object at start does (an operator's
// CustomResourceDefinitions, Volcano's default Queue).
#pragma once

#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

class Client;

// Creates `object` unless one of its name exists (in its namespace): an existing object is kept,
// and AlreadyExists from a create that lost a race is no error. It asks first because a create
// of an existing object is refused only after the server did the work of a create (for a
// CustomResourceDefinition, compiling its schemas: most of what a restart of an operator costs).
Result<void> createIfMissing(Client& client, const GroupVersionResource& gvr, Json object);
// The same for each object in order; stops at the first error.
Result<void> createEachIfMissing(Client& client, const GroupVersionResource& gvr,
                                 std::vector<Json> objects);

}  // namespace fakekube
