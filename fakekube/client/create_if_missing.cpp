#include "fakekube/client/internal/create_if_missing.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/object_meta.h"
#include "fakekube/client/client.h"

namespace fakekube {

Result<void> createIfMissing(Client& client, const GroupVersionResource& gvr, Json object) {
  auto existing = client.get(gvr, meta::namespace_(object), meta::name(object));
  if (existing) return {};
  if (!isNotFound(existing.error())) return tl::unexpected(existing.error());
  auto created = client.create(gvr, std::move(object));
  if (!created && !isAlreadyExists(created.error())) return tl::unexpected(created.error());
  return {};
}

Result<void> createEachIfMissing(Client& client, const GroupVersionResource& gvr,
                                 std::vector<Json> objects) {
  for (Json& object : objects) {
    if (auto created = createIfMissing(client, gvr, std::move(object)); !created) return created;
  }
  return {};
}

}  // namespace fakekube
