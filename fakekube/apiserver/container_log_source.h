// ContainerLogSource: where the API server reads a container's log for pods/log — the kubelet's
// log endpoint, which kube-apiserver reaches over its kubelet connection. The cluster's kubelets
// keep the logs (cluster/container_logs.h implements this); the API server and its HTTP front
// see only this interface, so they do not depend on the cluster.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "fakekube/sim/clock.h"

namespace fakekube {

struct LogReadOptions {
  // The last N lines only (nullopt: all).
  std::optional<std::int64_t> tailLines;
  // Lines printed before this are skipped.
  std::optional<TimePoint> since;
  // Stop after this many bytes (nullopt: no limit).
  std::optional<std::int64_t> limitBytes;
  // Prefix each line with its time.
  bool timestamps = false;
  // Keep reading what is appended until the log is closed.
  bool follow = false;
};

class ContainerLogReader {
 public:
  enum class Step {
    Data,   // text was appended to `out`
    Idle,   // nothing new within `wait`
    Ended,  // the reader is done (`out` may hold the last text)
  };
  virtual ~ContainerLogReader() = default;
  // Waits up to `wait` for lines, then appends what is there.
  virtual Step read(std::string& out, std::chrono::milliseconds wait) = 0;
  // Everything up to the end, for a reader that does not follow (a following one would wait).
  virtual std::string readAll() = 0;
  // Ends the reader (its client went away). Safe from any thread.
  virtual void stop() = 0;
};

class ContainerLogSource {
 public:
  virtual ~ContainerLogSource() = default;
  // A reader over the log of the container instance `containerId` (an unknown one reads as
  // empty and ends at once).
  virtual std::shared_ptr<ContainerLogReader> reader(const std::string& containerId,
                                                     LogReadOptions options) = 0;
};

}  // namespace fakekube
