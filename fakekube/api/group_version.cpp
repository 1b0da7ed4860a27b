#include "fakekube/api/group_version.h"

namespace fakekube {

std::string GroupResource::str() const { return group.empty() ? resource : resource + "." + group; }

std::string GroupVersionResource::apiVersion() const {
  return group.empty() ? version : group + "/" + version;
}

std::string GroupVersionKind::apiVersion() const {
  return group.empty() ? version : group + "/" + version;
}

GroupVersion GroupVersion::parse(std::string_view apiVersion) {
  auto slash = apiVersion.find('/');
  if (slash == std::string_view::npos) return {"", std::string(apiVersion)};
  return {std::string(apiVersion.substr(0, slash)), std::string(apiVersion.substr(slash + 1))};
}

std::string GroupVersion::str() const { return group.empty() ? version : group + "/" + version; }

}  // namespace fakekube
