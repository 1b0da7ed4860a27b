// RayHead: what the Ray head container does in the simulation — GCS and the dashboard's Jobs API.
//
// The kubelet starts it for a container whose command line runs `ray start --head` (KubeRay's
// `ulimit -n 65536; ray start --head --dashboard-host=0.0.0.0 ... --block`). After startupDelay it
// listens on the pod IP at the GCS port (`--port`, else 6379), the dashboard port
// (`--dashboard-port`, else 8265) and the ports below of the in-process network (network.h) and
// becomes ready; until then every port refuses connections, as a head that is still starting.
// Its log (`kubectl logs`) holds what `ray start --head --block` prints: "Local node IP: <pod IP>"
// at start, then "Ray runtime started.", the `ray start --address='<ip>:<gcs port>'` hint and the
// dashboard's address once it listens.
//
// The dashboard serves (paths as Ray's dashboard, bodies JSON unless said otherwise):
//   GET    /api/gcs_healthz          200 "success" (text)
//   GET    /api/version              {"version", "ray_version", "ray_commit"}
//   GET    /api/jobs/                [job details...], in submission order
//   POST   /api/jobs/                {entrypoint, submission_id?, metadata?, runtime_env?,
//                                    entrypoint_num_cpus?, entrypoint_num_gpus?,
//                                    entrypoint_resources?} -> {"job_id", "submission_id"};
//                                    a submission_id in use -> 500 "Job with submission_id X
//                                    already exists. Please use a different submission_id."
//                                    (Ray registers the id with put_info(overwrite=False) before
//                                    it starts the job); without one, raysubmit_<16 chars>
//   GET    /api/jobs/<id>            job details; 404 "Job <id> does not exist" (text)
//   GET    /api/jobs/<id>/logs       {"logs": "line\nline\n"}
//   POST   /api/jobs/<id>/stop       {"stopped": true} when it was PENDING or RUNNING (now
//                                    STOPPED), false when already terminal
//   DELETE /api/jobs/<id>            {"deleted": true} for a terminal job; 500 for a running one
// Job details: type SUBMISSION, job_id (the driver's JobID, "01000000", "02000000", ... once
// RUNNING; null before), submission_id, status, entrypoint, message (Ray's texts), error_type,
// start_time and end_time (ms since the epoch, executor clock; end_time null until terminal),
// metadata, runtime_env, driver_exit_code.
//
// A job is PENDING from its submission for jobPendingDelay, then RUNNING while its entrypoint runs
// (entrypoint.h), then SUCCEEDED (exit 0) or FAILED (exit code and the last logs in the message,
// error_type JOB_ENTRYPOINT_COMMAND_ERROR); a stop makes it STOPPED at once.
//
// Ray Serve's REST API (/api/serve/applications/) and the head's Serve proxy on its serve port:
// ray_serve.h.
//
// The job table lives in the process: a head container that restarts, or a head pod that is
// deleted and recreated, starts with no jobs, as Ray without GCS fault tolerance does.
//
// The GCS port answers any request with 200 "GCS is alive": enough for `ray health-check`. The
// head also listens where a Ray head does on the Ray client port (10001), the metrics port (8080,
// GET /metrics) and the dashboard agent's port (52365, GET /api/local_raylet_healthz "success"),
// so every port of KubeRay's head Service has a listener (the first of them, "client" in name
// order, is the one a headless Service's name resolves through).
//
// Thread-safe: the dashboard may be called from any thread (the API server's proxy serves on the
// HTTP server's threads), while jobs advance in executor tasks.
#pragma once

#include <memory>

#include "controllers/ray/sim/entrypoint.h"
#include "controllers/ray/sim/ray_serve.h"
#include "fakekube/cluster/container_behavior.h"
#include "fakekube/sim/clock.h"

namespace fakekube::ray {

struct RayHeadOptions {
  // From the container's start to GCS and the dashboard answering.
  Duration startupDelay = std::chrono::seconds(2);
  // How long a submitted job stays PENDING.
  Duration jobPendingDelay = std::chrono::seconds(1);
  // Commands tests registered for entrypoints (may be null).
  std::shared_ptr<const EntrypointRegistry> entrypoints;
  // The ray_version /api/version reports.
  std::string rayVersion = "2.46.0";
  // How Serve's applications deploy (ray_serve.h).
  RayServeOptions serve;
};

// The Ray head's container behaviour.
ProcessFactory rayHead(RayHeadOptions options = {});

// The ports a `ray start --head` command line asks for, Ray's defaults otherwise.
struct RayHeadPorts {
  int gcs = 6379;              // --port
  int dashboard = 8265;        // --dashboard-port
  int client = 10001;          // --ray-client-server-port
  int metrics = 8080;          // --metrics-export-port
  int dashboardAgent = 52365;  // --dashboard-agent-listen-port
};
RayHeadPorts rayHeadPorts(const std::string& commandLine);

}  // namespace fakekube::ray
