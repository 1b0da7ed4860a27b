#include "fakekube/cluster/internal/controller_expectations.h"

namespace fakekube::workload {

void ControllerExpectations::expectCreations(const std::string& key, int adds) {
  std::lock_guard lock(mu_);
  records_[key] = Record{adds, 0, clock_.now(), {}};
}

void ControllerExpectations::expectDeletions(const std::string& key,
                                             const std::vector<std::string>& podKeys) {
  std::lock_guard lock(mu_);
  Record record{0, static_cast<int>(podKeys.size()), clock_.now(), {}};
  record.pendingDeletionKeys.insert(podKeys.begin(), podKeys.end());
  records_[key] = std::move(record);
}

void ControllerExpectations::expectDeletions(const std::string& key, int deletions) {
  std::lock_guard lock(mu_);
  records_[key] = Record{0, deletions, clock_.now(), {}};
}

void ControllerExpectations::creationObserved(const std::string& key) {
  lowerExpectations(key, 1, 0);
}

void ControllerExpectations::deletionObserved(const std::string& key) {
  lowerExpectations(key, 0, 1);
}

void ControllerExpectations::deletionObserved(const std::string& key, const std::string& podKey) {
  std::lock_guard lock(mu_);
  auto it = records_.find(key);
  if (it == records_.end()) return;
  if (it->second.pendingDeletionKeys.erase(podKey) == 0) return;
  --it->second.deletions;
}

void ControllerExpectations::lowerExpectations(const std::string& key, int adds, int deletions) {
  std::lock_guard lock(mu_);
  auto it = records_.find(key);
  if (it == records_.end()) return;
  it->second.adds -= adds;
  it->second.deletions -= deletions;
}

bool ControllerExpectations::satisfied(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = records_.find(key);
  if (it == records_.end()) return true;
  const Record& r = it->second;
  if (r.adds <= 0 && r.deletions <= 0) return true;
  return clock_.now() - r.timestamp > ttl_;
}

void ControllerExpectations::deleteExpectations(const std::string& key) {
  std::lock_guard lock(mu_);
  records_.erase(key);
}

std::pair<int, int> ControllerExpectations::pending(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = records_.find(key);
  if (it == records_.end()) return {0, 0};
  return {it->second.adds, it->second.deletions};
}

}  // namespace fakekube::workload
