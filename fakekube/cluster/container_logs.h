// ContainerLogs: what the simulated containers printed, one log per container instance — the
// files a container runtime keeps under /var/log/pods, in memory.
//
// The kubelet (kubelet.h) opens a log when it starts a container, under the containerID it
// reports in the pod's status ("containerd://<hex>", a new one for every restart), appends what
// the container's process prints (ProcessContext::print) stamped with the executor's clock, and
// closes it when the process exits or is killed. Readers find a log by that containerID: the
// current instance is status.containerStatuses[].containerID, the previous one
// lastState.terminated.containerID (pod_logs.h does that part).
//
// Bounded, so that long runs stay small:
//   - each log keeps its newest Limits::maxLines lines and Limits::maxBytes bytes (older lines
//     are dropped, as log rotation would drop them);
//   - per container of a pod, only the current instance and the one before it are kept (the
//     kubelet's container garbage collection keeps one dead container per container);
//   - a pod's logs go when the kubelet forgets the pod (removePod).
//
// Reading (LogReader) applies the kubelet's rules for PodLogOptions: tailLines picks the last N
// lines first, `since` then skips older lines, a timestamp prefix is RFC 3339 with nanoseconds
// ("2024-01-01T00:00:05.000000000Z line"), limitBytes cuts the output (mid-line if need be)
// after that many bytes. A reader that follows keeps reading lines as they are appended and ends
// once the log is closed and everything was read; one that does not follow ends at what the log
// held when it was made.
//
// Thread-safe: the kubelet appends from executor tasks while HTTP threads read.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fakekube/apiserver/container_log_source.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

// "2024-01-01T00:00:05.000000000Z": RFC 3339 with nine fractional digits, the kubelet's
// timestamp prefix (RFC3339NanoFixed).
std::string formatRfc3339NanoFixed(TimePoint t);

class ContainerLogs final : public ContainerLogSource {
 public:
  struct Limits {
    std::size_t maxLines = 10000;
    std::size_t maxBytes = 1024 * 1024;
  };

  ContainerLogs();
  explicit ContainerLogs(Limits limits);
  ContainerLogs(const ContainerLogs&) = delete;
  ContainerLogs& operator=(const ContainerLogs&) = delete;

  // --- the kubelet's side ---

  // A new instance of `container` of the pod `podUid` started, logging under `containerId`.
  // The pod's instance before the previous one of that container is dropped.
  void open(const std::string& containerId, const std::string& podUid,
            const std::string& container);
  // Appends `text` printed at `time`, as puts() would print it: `text` and a newline, so each
  // piece of it between '\n's is one log line ("" is one empty line, "a\nb" two lines). Nothing
  // happens for an unknown or closed log.
  void append(const std::string& containerId, TimePoint time, std::string_view text);
  // The instance ended: readers that follow it end once they read everything.
  void close(const std::string& containerId);
  // Drops every log of the pod (readers end).
  void removePod(const std::string& podUid);

  // --- readers ---

  bool contains(const std::string& containerId) const;
  // Lines the log holds now (for tests and tools).
  std::vector<std::string> lines(const std::string& containerId) const;

  class LogReader;
  // A reader over the log (an unknown log reads as empty and ends at once).
  std::shared_ptr<ContainerLogReader> reader(const std::string& containerId,
                                             LogReadOptions options) override;

  // Logs held now.
  std::size_t size() const;

 private:
  struct Line {
    TimePoint time;
    std::string text;
  };
  struct Log {
    std::string podUid;
    std::string container;
    std::deque<Line> lines;
    std::uint64_t firstSequence = 0;  // sequence number of lines.front()
    std::size_t bytes = 0;
    bool closed = false;
  };
  // The lock and the wake-up, shared with readers so that a reader outlives the store safely.
  struct Shared {
    std::mutex mu;
    std::condition_variable changed;
  };
  friend class LogReader;

  const Limits limits_;
  std::shared_ptr<Shared> shared_;
  std::unordered_map<std::string, std::shared_ptr<Log>> logs_;  // by containerID
  // Per pod and container name, its instances' containerIDs, oldest first.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> instances_;
};

class ContainerLogs::LogReader final : public ContainerLogReader {
 public:
  Step read(std::string& out, std::chrono::milliseconds wait) override;
  std::string readAll() override;
  void stop() override;

  LogReader(std::shared_ptr<Shared> shared, std::shared_ptr<Log> log, LogReadOptions options);

 private:
  // Appends the lines from next_ on; under the store's lock.
  void take(std::string& out);
  bool done() const;

  std::shared_ptr<Shared> shared_;
  std::shared_ptr<Log> log_;  // null: an unknown log
  const LogReadOptions options_;
  std::uint64_t next_ = 0;                 // the next line's sequence number
  std::optional<std::uint64_t> end_;       // not following: where the reader stops
  std::optional<std::int64_t> remaining_;  // bytes left under limitBytes
  bool stopped_ = false;
};

}  // namespace fakekube
