#include "fakekube/cluster/container_logs.h"

#include <fmt/format.h>

#include <algorithm>

namespace fakekube {

std::string formatRfc3339NanoFixed(TimePoint t) {
  const auto seconds = std::chrono::floor<std::chrono::seconds>(t);
  const auto nanos = (t - seconds).count();
  std::string whole = formatRfc3339(seconds);  // "2024-01-01T00:00:05Z"
  whole.pop_back();
  return fmt::format("{}.{:09d}Z", whole, nanos);
}

ContainerLogs::ContainerLogs() : ContainerLogs(Limits{}) {}
ContainerLogs::ContainerLogs(Limits limits)
    : limits_(limits), shared_(std::make_shared<Shared>()) {}

void ContainerLogs::open(const std::string& containerId, const std::string& podUid,
                         const std::string& container) {
  std::lock_guard lock(shared_->mu);
  auto& ids = instances_[{podUid, container}];
  if (logs_.count(containerId) == 0) {
    auto log = std::make_shared<Log>();
    log->podUid = podUid;
    log->container = container;
    logs_[containerId] = std::move(log);
    ids.push_back(containerId);
  }
  // The current instance and the one before it.
  while (ids.size() > 2) {
    auto it = logs_.find(ids.front());
    if (it != logs_.end()) {
      it->second->closed = true;
      logs_.erase(it);
    }
    ids.erase(ids.begin());
  }
  shared_->changed.notify_all();
}

void ContainerLogs::append(const std::string& containerId, TimePoint time, std::string_view text) {
  std::lock_guard lock(shared_->mu);
  auto it = logs_.find(containerId);
  if (it == logs_.end() || it->second->closed) return;
  Log& log = *it->second;
  while (true) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    log.bytes += line.size() + 1;
    log.lines.push_back({time, std::string(line)});
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  while (!log.lines.empty() &&
         (log.lines.size() > limits_.maxLines || log.bytes > limits_.maxBytes)) {
    log.bytes -= log.lines.front().text.size() + 1;
    log.lines.pop_front();
    ++log.firstSequence;
  }
  shared_->changed.notify_all();
}

void ContainerLogs::close(const std::string& containerId) {
  std::lock_guard lock(shared_->mu);
  auto it = logs_.find(containerId);
  if (it == logs_.end()) return;
  it->second->closed = true;
  shared_->changed.notify_all();
}

void ContainerLogs::removePod(const std::string& podUid) {
  std::lock_guard lock(shared_->mu);
  // A pod's instances are one range of the (podUid, container) order, and they name every log
  // the pod has (open files each log under its instance; trimming drops it from both): deleting
  // a pod costs its own containers, not a walk of every container on the machine.
  auto it = instances_.lower_bound({podUid, std::string()});
  while (it != instances_.end() && it->first.first == podUid) {
    for (const auto& containerId : it->second) {
      if (auto log = logs_.find(containerId); log != logs_.end()) {
        log->second->closed = true;
        logs_.erase(log);
      }
    }
    it = instances_.erase(it);
  }
  shared_->changed.notify_all();
}

bool ContainerLogs::contains(const std::string& containerId) const {
  std::lock_guard lock(shared_->mu);
  return logs_.count(containerId) > 0;
}

std::vector<std::string> ContainerLogs::lines(const std::string& containerId) const {
  std::lock_guard lock(shared_->mu);
  std::vector<std::string> out;
  auto it = logs_.find(containerId);
  if (it == logs_.end()) return out;
  for (const auto& line : it->second->lines) out.push_back(line.text);
  return out;
}

std::size_t ContainerLogs::size() const {
  std::lock_guard lock(shared_->mu);
  return logs_.size();
}

std::shared_ptr<ContainerLogReader> ContainerLogs::reader(const std::string& containerId,
                                                          LogReadOptions options) {
  std::shared_ptr<Log> log;
  {
    std::lock_guard lock(shared_->mu);
    auto it = logs_.find(containerId);
    if (it != logs_.end()) log = it->second;
  }
  return std::make_shared<LogReader>(shared_, std::move(log), std::move(options));
}

// --- LogReader ---

ContainerLogs::LogReader::LogReader(std::shared_ptr<Shared> shared, std::shared_ptr<Log> log,
                                    LogReadOptions options)
    : shared_(std::move(shared)), log_(std::move(log)), options_(std::move(options)) {
  remaining_ = options_.limitBytes;
  std::lock_guard lock(shared_->mu);
  if (!log_) return;
  const std::uint64_t end = log_->firstSequence + log_->lines.size();
  next_ = log_->firstSequence;
  if (options_.tailLines) {
    const auto tail = static_cast<std::uint64_t>(std::max<std::int64_t>(0, *options_.tailLines));
    if (end - next_ > tail) next_ = end - tail;
  }
  if (!options_.follow) end_ = end;
}

bool ContainerLogs::LogReader::done() const {
  if (stopped_ || !log_) return true;
  if (remaining_ && *remaining_ <= 0) return true;
  const std::uint64_t end = log_->firstSequence + log_->lines.size();
  if (end_) return next_ >= std::min(*end_, end) || (next_ >= end && log_->closed);
  return log_->closed && next_ >= end;
}

void ContainerLogs::LogReader::take(std::string& out) {
  if (!log_) return;
  next_ = std::max(next_, log_->firstSequence);  // lines dropped meanwhile are gone
  std::uint64_t end = log_->firstSequence + log_->lines.size();
  if (end_) end = std::min(end, *end_);
  while (next_ < end && !(remaining_ && *remaining_ <= 0)) {
    const Line& line = log_->lines[static_cast<std::size_t>(next_ - log_->firstSequence)];
    ++next_;
    if (options_.since && line.time < *options_.since) continue;
    std::string text;
    if (options_.timestamps) text = formatRfc3339NanoFixed(line.time) + " ";
    text += line.text;
    text += '\n';
    if (remaining_) {
      if (static_cast<std::int64_t>(text.size()) > *remaining_) {
        text.resize(static_cast<std::size_t>(*remaining_));
      }
      *remaining_ -= static_cast<std::int64_t>(text.size());
    }
    out += text;
  }
}

ContainerLogReader::Step ContainerLogs::LogReader::read(std::string& out,
                                                        std::chrono::milliseconds wait) {
  std::unique_lock lock(shared_->mu);
  auto available = [this] {
    if (done()) return true;
    const std::uint64_t end = log_->firstSequence + log_->lines.size();
    return next_ < end;
  };
  if (!available() && wait.count() > 0) shared_->changed.wait_for(lock, wait, available);
  const std::size_t before = out.size();
  take(out);
  if (done()) return Step::Ended;
  return out.size() > before ? Step::Data : Step::Idle;
}

std::string ContainerLogs::LogReader::readAll() {
  std::string out;
  std::lock_guard lock(shared_->mu);
  take(out);
  return out;
}

void ContainerLogs::LogReader::stop() {
  std::lock_guard lock(shared_->mu);
  stopped_ = true;
  shared_->changed.notify_all();
}

}  // namespace fakekube
