// fakekube: everything a controller and its tests need, in one include.
//
//   #include "fakekube/fakekube.h"
//
//   fakekube::SimExecutor executor;                              // virtual time
//   auto server = *fakekube::ApiServer::open(executor.clock());  // in-memory API server
//   fakekube::Cluster cluster(executor, *server, {.nodes = 1});  // scheduler, kubelets, ...
//   fakekube::Manager manager(executor, *server);                // a controller manager
//
// This header and the headers it includes are fakekube's public surface: they are installed
// (`cmake --install`, then `find_package(fakekube)` and `fakekube::fakekube`), each compiles on
// its own (the public_headers test), and they name no header outside that set. The other headers
// of the source tree are the implementation and may change without notice. Documents are JSON:
// include <nlohmann/json.hpp> in the .cpp files that build or read them (api/json.h only names
// the type). The test library is fixtures/ (fakekube::fixtures), the KubeRay operator
// controllers/ray/ (fakekube::ray); see docs/architecture.md for the layout.
#pragma once

// Objects, errors and names.
#include "fakekube/api/builtin_resources.h"
#include "fakekube/api/conditions.h"
#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/api/object.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/quantity.h"
#include "fakekube/api/resources.h"
#include "fakekube/api/status.h"
#include "fakekube/api/watch_event.h"
#include "fakekube/api/yaml.h"

// The API server, its verbs' options, and the hook faults hang on.
#include "fakekube/apiserver/api_server.h"
#include "fakekube/apiserver/interceptor.h"
#include "fakekube/apiserver/options.h"
#include "fakekube/apiserver/watch.h"
#include "fakekube/auth/user_info.h"

// Clients: in process, cached, and over HTTP.
#include "fakekube/cache/cache.h"
#include "fakekube/cache/cached_client.h"
#include "fakekube/cache/informer.h"
#include "fakekube/client/client.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/client/kubeconfig.h"
#include "fakekube/client/rest_client.h"

// The controller runtime.
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/event_recorder.h"
#include "fakekube/runtime/handler.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/runtime/predicate.h"
#include "fakekube/runtime/reconcile.h"

// What runs around the API server: nodes, scheduler, kubelets, built-in controllers.
#include "fakekube/cluster/cluster.h"
#include "fakekube/cluster/container_behavior.h"

// Time and where work runs.
#include "fakekube/sim/clock.h"
#include "fakekube/sim/executor.h"
#include "fakekube/sim/sim_executor.h"
#include "fakekube/sim/thread_pool_executor.h"
