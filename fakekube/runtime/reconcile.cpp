#include "fakekube/runtime/reconcile.h"

namespace fakekube {

std::string ReconcileRequest::key() const {
  if (namespace_.empty()) return name;
  std::string key;
  key.reserve(namespace_.size() + 1 + name.size());
  key.append(namespace_).append("/").append(name);
  return key;
}

ReconcileRequest ReconcileRequest::fromKey(std::string_view key) {
  auto slash = key.find('/');
  if (slash == std::string_view::npos) return ReconcileRequest{"", std::string(key)};
  return ReconcileRequest{std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

}  // namespace fakekube
