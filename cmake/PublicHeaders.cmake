# fakekube's public headers: what `cmake --install` installs and what the public_headers test
# compiles one by one. Every header here must compile on its own and include only headers of
# this list (the test compiles them from a copy of exactly this set, so a public header that
# includes an internal one fails there). Any header not listed is the implementation's: it is
# not installed and may change freely. Paths are relative to the source root, as the includes
# spell them.
set(FAKEKUBE_PUBLIC_HEADERS
  fakekube/fakekube.h
  fakekube/api/builtin_resources.h
  fakekube/api/field_selector.h
  fakekube/api/group_version.h
  fakekube/api/json.h
  fakekube/api/json_lookup.h
  fakekube/api/json_patch.h
  fakekube/api/label_selector.h
  fakekube/api/merge_patch.h
  fakekube/api/object.h
  fakekube/api/object_meta.h
  fakekube/api/resource_registry.h
  fakekube/api/status.h
  fakekube/api/validation.h
  fakekube/api/watch_event.h
  fakekube/api/yaml.h
  fakekube/apiserver/api_server.h
  fakekube/apiserver/interceptor.h
  fakekube/apiserver/options.h
  fakekube/apiserver/watch.h
  fakekube/cache/cache.h
  fakekube/cache/cached_client.h
  fakekube/cache/informer.h
  fakekube/client/client.h
  fakekube/client/discovery.h
  fakekube/client/in_process_client.h
  fakekube/client/kubeconfig.h
  fakekube/client/rest_client.h
  fakekube/cluster/cluster.h
  fakekube/cluster/container_behavior.h
  fakekube/cluster/cronjob_controller.h
  fakekube/cluster/daemonset_controller.h
  fakekube/cluster/deployment_controller.h
  fakekube/cluster/endpoints_controller.h
  fakekube/cluster/endpointslice_controller.h
  fakekube/cluster/job_controller.h
  fakekube/cluster/kubelet.h
  fakekube/cluster/network.h
  fakekube/cluster/node_lifecycle_controller.h
  fakekube/cluster/nodes.h
  fakekube/cluster/quantity.h
  fakekube/cluster/replicaset_controller.h
  fakekube/cluster/scheduler.h
  fakekube/cluster/serviceaccount_controller.h
  fakekube/cluster/statefulset_controller.h
  fakekube/http/http_server.h
  fakekube/http/tls_certificate.h
  fakekube/runtime/builder.h
  fakekube/runtime/controller.h
  fakekube/runtime/event_recorder.h
  fakekube/runtime/handler.h
  fakekube/runtime/leader_election.h
  fakekube/runtime/manager.h
  fakekube/runtime/metrics.h
  fakekube/runtime/predicate.h
  fakekube/runtime/priority_queue.h
  fakekube/runtime/rate_limiter.h
  fakekube/runtime/reconcile.h
  fakekube/sim/clock.h
  fakekube/sim/executor.h
  fakekube/sim/sim_executor.h
  fakekube/sim/thread_pool_executor.h
  fakekube/store/options.h
)

# The KubeRay operator (fakekube::ray): the operator, its options, its kinds, the Ray simulation.
set(FAKEKUBE_RAY_PUBLIC_HEADERS
  controllers/ray/constants.h
  controllers/ray/custom_resource_definitions.h
  controllers/ray/dashboard_client_factory.h
  controllers/ray/operator_options.h
  controllers/ray/ray_operator.h
  controllers/ray/raycluster_types.h
  controllers/ray/rayjob_types.h
  controllers/ray/sim/entrypoint.h
  controllers/ray/sim/ray_head.h
  controllers/ray/sim/ray_job_cli.h
  controllers/ray/sim/ray_simulation.h
)

# The test library (fakekube::fixtures): all of it.
set(FAKEKUBE_FIXTURES_PUBLIC_HEADERS
  fixtures/controller_checks.h
  fixtures/crash_point_runner.h
  fixtures/eventually.h
  fixtures/expectation.h
  fixtures/invariant.h
  fixtures/json_path.h
  fixtures/manifests.h
  fixtures/matchers.h
  fixtures/reactor.h
  fixtures/recorded_request.h
  fixtures/test_cluster.h
)
