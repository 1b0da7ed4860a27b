// The `ray` command line inside simulated pods: the submitter's `ray job ...` and the workers'
// `ray health-check`, talking to the simulated head (ray_head.h) over the in-process network.
//
// rayShellProcess() is the behaviour of a container whose command is a shell script, the
// submitter's `/bin/bash -ce -- SCRIPT` above all (submitter_command.h): the script is parsed
// and run by shell.h with the container's env (value entries; valueFrom is not resolved), bash's
// -e when the flags say so, and its exit status is the container's. Commands it knows:
//
//   python -c "...urlopen('URL', ...)..."   KubeRay's health check: GET URL, exit 0 when the
//                                           answer is 200 and contains `success`, else 1
//   ray job status [--address A] ID         exit 0 when the dashboard knows ID (prints its status)
//   ray job submit [--address A] [--no-wait] [--submission-id ID] [--runtime-env-json J]
//       [--metadata-json J] [--entrypoint-num-cpus N] [--entrypoint-num-gpus N]
//       [--entrypoint-resources J] -- ENTRYPOINT...
//                                           POST /api/jobs/ (the words after -- joined as
//                                           Python's list2cmdline joins them); a non-2xx answer
//                                           exits 1; without --no-wait it then follows the logs
//                                           and exits 1 only when the job FAILED (a STOPPED job
//                                           is 0, as Ray's `job submit`): SidecarMode's case
//   ray job logs [--address A] [--follow] ID
//                                           prints the logs; with --follow polls every
//                                           followInterval until the job is terminal, then exits
//                                           0 for SUCCEEDED, 1 for FAILED or STOPPED
//   ray job stop ID, ray job delete ID, ray job list
//   ray health-check --address HOST:PORT    exit 0 when GCS answers
//   echo, sleep, true, false, :, exit       shell.h's builtins
//   anything else                           "command not found", 127
// A: http://HOST:PORT (or HOST:PORT), else $RAY_ADDRESS. A connection that fails is Ray's
// "ConnectionError: Failed to connect to Ray at address: A." and exit 1. Flags take `--f v` and
// `--f=v`.
//
// waitGcsReady() is the behaviour of KubeRay's `wait-gcs-ready` init container: every
// gcsWaitInterval it runs `ray health-check --address <head-svc>:<gcs port>` (the address its
// command names), printing KubeRay's "N seconds elapsed: Waiting for GCS to be ready." until GCS
// answers, then "GCS is ready." and exit 0.
//
// What the scripts print goes to the container's log (ProcessContext::print, what `kubectl logs`
// shows), as Ray's CLI words it: every `ray job` command first prints "Job submission server
// address: URL"; `submit` then "Job 'ID' submitted successfully" between dashes and the next
// steps, and without --no-wait "Tailing logs until the job exits (disable with --no-wait):" and
// what `logs --follow` prints: the job's log lines, then "Job 'ID' succeeded" / "failed" / "was
// stopped" between dashes. Each line also goes to Options::output, with the pod and
// container it came from, so a test can read a submitter's transcript with its times.
#pragma once

#include <functional>
#include <string>

#include "fakekube/cluster/container_behavior.h"
#include "fakekube/sim/clock.h"

namespace fakekube::ray {

// One line a simulated container printed.
struct ContainerOutput {
  std::string namespace_;
  std::string pod;
  std::string container;
  std::string line;
  TimePoint time{};
};

struct RayCliOptions {
  // `ray job logs --follow` polls the dashboard this often.
  Duration followInterval = std::chrono::seconds(1);
  // wait-gcs-ready's retry interval (its `sleep 5`).
  Duration gcsWaitInterval = std::chrono::seconds(5);
  // Where printed lines go (unset: nowhere). Called from executor tasks.
  std::function<void(const ContainerOutput&)> output;
};

// A container running a shell script (`bash -c`, `bash -ce --`, `sh -c`) or a bare `ray ...`
// command.
ProcessFactory rayShellProcess(RayCliOptions options = {});

// KubeRay's wait-gcs-ready init container.
ProcessFactory waitGcsReady(RayCliOptions options = {});

}  // namespace fakekube::ray
