#include "fakekube/cluster/internal/scheduler_waiting_pods.h"

#include <fmt/format.h>

namespace fakekube::scheduling {

// The WaitingPod a plugin is handed while it iterates: a name for one entry, valid as long as
// the entry is (a verdict on a pod no longer waiting does nothing).
class WaitingPods::Handle : public WaitingPod {
 public:
  Handle(WaitingPods& pods, const Entry& entry) : pods_(pods), entry_(entry) {}
  const Json& pod() const override { return *entry_.pod; }
  const std::string& node() const override { return entry_.node; }
  void allow(std::string_view plugin) override {
    if (plugin != entry_.plugin) return;  // another plugin still holds it
    pods_.signal(entry_.key, entry_.uid, {});
  }
  void reject(std::string_view plugin, std::string message) override {
    pods_.signal(entry_.key, entry_.uid, PluginStatus::unschedulable(std::move(message)));
  }

 private:
  WaitingPods& pods_;
  Entry entry_;
};

void WaitingPods::add(Entry entry) {
  std::lock_guard lock(mu_);
  std::string key = entry.key;
  pods_[key] = Waiting{std::move(entry), std::nullopt};
}

bool WaitingPods::contains(const std::string& key) const {
  std::lock_guard lock(mu_);
  return pods_.count(key) != 0;
}

std::optional<WaitingPods::Resolution> WaitingPods::resolve(const std::string& key,
                                                            const std::string& currentUid,
                                                            TimePoint now) {
  std::lock_guard lock(mu_);
  auto it = pods_.find(key);
  if (it == pods_.end()) return std::nullopt;
  Waiting& waiting = it->second;
  if (!waiting.verdict && currentUid != waiting.entry.uid) {
    waiting.verdict = PluginStatus::unschedulable("removed");
  }
  if (!waiting.verdict && now >= waiting.entry.deadline) {
    waiting.verdict = PluginStatus::unschedulable(
        fmt::format("rejected due to timeout after waiting {} at plugin {}",
                    goDurationString(waiting.entry.waitTime), waiting.entry.plugin));
  }
  Resolution resolution;
  if (!waiting.verdict) {
    resolution.waiting = true;
    resolution.deadline = waiting.entry.deadline;
    return resolution;
  }
  resolution.entry = std::move(waiting.entry);
  resolution.status = std::move(*waiting.verdict);
  pods_.erase(it);
  return resolution;
}

void WaitingPods::iterate(const std::function<void(WaitingPod&)>& visit) {
  std::vector<Entry> entries;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, waiting] : pods_) entries.push_back(waiting.entry);
  }
  for (const Entry& entry : entries) {
    Handle handle(*this, entry);
    visit(handle);
  }
}

void WaitingPods::signal(const std::string& key, const std::string& uid, PluginStatus status) {
  {
    std::lock_guard lock(mu_);
    auto it = pods_.find(key);
    if (it == pods_.end() || it->second.entry.uid != uid || it->second.verdict) return;
    it->second.verdict = std::move(status);
  }
  enqueue_(key);
}

std::string goDurationString(Duration duration) {
  const auto total = std::chrono::duration_cast<std::chrono::seconds>(duration).count();
  const auto hours = total / 3600;
  const auto minutes = total / 60 % 60;
  const auto seconds = total % 60;
  if (hours > 0) return fmt::format("{}h{}m{}s", hours, minutes, seconds);
  if (minutes > 0) return fmt::format("{}m{}s", minutes, seconds);
  return fmt::format("{}s", seconds);
}

}  // namespace fakekube::scheduling
