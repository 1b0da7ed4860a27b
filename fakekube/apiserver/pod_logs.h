// PodLogs: the pods/log subresource — a pod's container log, as `kubectl logs` reads it.
//
//   PodLogs logs(server, cluster.containerLogs());
//   auto text = logs.read("default", "web-0", {.container = "nginx", .tailLines = 10});
//   auto reader = logs.open("default", "job-abc", {.follow = true});  // ends when it ends
//
// What the API server and the kubelet check, in their order and with their messages:
//   options     tailLines < 0, limitBytes < 1, sinceSeconds < 1, or both sinceSeconds and
//               sinceTime: 422 Invalid PodLogOptions (ValidatePodLogOptions)
//   the pod     404 `pods "x" not found`
//   container   none named and the pod has more than one: 400 "a container name must be
//               specified for pod x, choose one of: [init... containers...]"; a name the pod does
//               not have: 400 "container c is not valid for pod x" (init containers count)
//   no node     the pod is not scheduled: an empty log (the API server has no kubelet to ask)
//   its status  from the pod's status as the kubelet wrote it (validateContainerLogStatus):
//               previous without lastState.terminated: 400 `previous terminated container "c"
//               in pod "x" not found`; no status for the container: 400 `container "c" in pod
//               "x" is not available`; waiting: 400 `container "c" in pod "x" is waiting to
//               start: <reason>` (ContainerCreating, PodInitializing, CrashLoopBackOff after a
//               back-off with no earlier instance)
// Then the log of the instance the status names — the running or last terminated one
// (containerID), or with `previous` the one before (lastState.terminated.containerID) — read
// from the kubelet's logs (a ContainerLogSource: the cluster's ContainerLogs) with the options.
// sinceSeconds counts back from the server's clock; of sinceSeconds and sinceTime the later instant
// wins, as in the kubelet. A log the kubelet no longer holds (a restarted server) reads as empty.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "fakekube/api/status.h"
#include "fakekube/apiserver/container_log_source.h"

namespace fakekube {

class ApiServer;

// PodLogOptions (core/v1), the query of GET pods/<name>/log.
struct PodLogOptions {
  std::string container;
  bool follow = false;
  bool previous = false;
  bool timestamps = false;
  std::optional<std::int64_t> tailLines;
  std::optional<std::int64_t> sinceSeconds;
  std::optional<TimePoint> sinceTime;
  std::optional<std::int64_t> limitBytes;
};

class PodLogs {
 public:
  // `logs` may be null (no kubelet keeps logs: every log is empty). Both must outlive this.
  PodLogs(ApiServer& server, ContainerLogSource* logs);

  // A reader of the log: it follows with options.follow, else ends at what is there now.
  Result<std::shared_ptr<ContainerLogReader>> open(const std::string& ns, const std::string& name,
                                                   const PodLogOptions& options);
  // The log as it is now (options.follow is ignored).
  Result<std::string> read(const std::string& ns, const std::string& name, PodLogOptions options);

 private:
  ApiServer& server_;
  ContainerLogSource* logs_;
};

}  // namespace fakekube
