// `fakekube demo`: fakekube's stories in virtual time. First a Deployment on a simulated two-node
// cluster (deployment_story.cpp); the RayJob demo-job from apply to cleanup (rayjob_story.cpp),
// then again with the operator killed and restarted at each stage (restart_recovery_story.cpp);
// a RayCluster whose last worker turns Ready, with the KubeRay operator (raycluster_story.cpp);
// two RayJobs contending for room, without and with gang scheduling (contention_story.cpp);
// a RayService's zero-downtime upgrade (rayservice_story.cpp);
// then the API server's rules told as a
// story on the in-memory store.
//
// Every line is the outcome of a real request to the in-process API server; nothing is scripted
// output. The timestamps are virtual: the whole story runs in microseconds. With --trace (and
// --timeline) the chapters and every controller's reconciles are drawn too (story_trace.h).
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cache/cache.h"
#include "fakekube/cache/cached_client.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/cluster/garbage_collector.h"
#include "fakekube/cluster/namespace_controller.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/sim_executor.h"
#ifdef FAKEKUBE_CLI_CRASHTEST
#include "fixtures/timeline_page.h"
#endif
#include "tools/cli/commands.h"
#include "tools/cli/contention_story.h"
#include "tools/cli/deployment_story.h"
#include "tools/cli/raycluster_story.h"
#include "tools/cli/rayjob_story.h"
#include "tools/cli/rayservice_story.h"
#include "tools/cli/restart_recovery_story.h"
#include "tools/cli/story_trace.h"
#include "tools/cli/timeline.h"

namespace fakekube::cli {

namespace {

const GroupVersionResource kWidgets{"example.com", "v1", "widgets"};

Json pod(const std::string& name, const std::string& node = "") {
  Json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"labels", {{"app", "web"}}}}},
            {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx:1.27"}}}}}}};
  if (!node.empty()) p["spec"]["nodeName"] = node;
  return p;
}

Json deployment(const std::string& name, int replicas) {
  Json podTemplate = {{"metadata", {{"labels", {{"app", name}}}}},
                      {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx:1.27"}}}}}}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", {{"app", name}}}}},
            {"template", podTemplate}}}};
}

Json widgetCrd() {
  return Json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
             "versions": [{"name": "v1", "served": true, "storage": true,
                           "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object",
                                      "x-kubernetes-preserve-unknown-fields": true}}}]}})");
}

std::string describe(const Json& object) {
  std::string text = fmt::format("{} {}", meta::kind(object), meta::namespacedName(object));
  text += fmt::format(" (rv {}", meta::resourceVersion(object));
  if (meta::generation(object) > 0)
    text += fmt::format(", generation {}", meta::generation(object));
  return text + ")";
}

// The namespaces a server starts with; creating in a missing one.
void namespacesChapter(Timeline& t, ApiServer& server) {
  t.chapter(
      "1. Namespaces: the server starts with default, kube-system, kube-public, kube-node-lease");
  auto namespaces = server.list(kNamespaces, "");
  std::string names;
  for (const auto& ns : namespaces->items) names += " " + meta::name(*ns);
  t.line("list namespaces:" + names);
  t.tick();
  auto teamA = server.create(kNamespaces, "", {{"metadata", {{"name", "team-a"}}}});
  t.line(fmt::format("create {} -> phase {}", describe(**teamA),
                     (**teamA)["status"]["phase"].get<std::string>()));
  auto missing = server.create(kPods, "team-b", pod("web-0"));
  t.error("create Pod team-b/web-0 in a namespace that does not exist", missing.error());
}

// What the server sets on a new pod; generateName; a name it refuses.
void podDefaultsChapter(Timeline& t, ApiServer& server) {
  t.chapter("2. Pods: uid, creationTimestamp and defaults come from the server");
  t.tick();
  auto web0 = server.create(kPods, "team-a", pod("web-0"));
  t.line(fmt::format("create {}: uid {}, created {}, phase {}, restartPolicy {}", describe(**web0),
                     meta::uid(**web0), meta::creationTimestamp(**web0),
                     (**web0)["status"]["phase"].get<std::string>(),
                     (**web0)["spec"]["restartPolicy"].get<std::string>()));
  auto generated = server.create(
      kPods, "team-a", {{"metadata", {{"generateName", "worker-"}}}, {"spec", pod("x")["spec"]}});
  t.line(fmt::format("create with generateName worker- -> {}", meta::name(**generated)));
  auto badName = server.create(kPods, "team-a", pod("Web_0"));
  t.error("create Pod team-a/Web_0", badName.error());
  t.line("(the rejected request left the revision where it was)");
}

// generation against resourceVersion.
void generationChapter(Timeline& t, ApiServer& server) {
  t.chapter("3. Generation counts spec changes; resourceVersion counts every write");
  t.tick();
  auto web = server.create(kDeployments, "team-a", deployment("web", 1));
  t.line("create " + describe(**web));
  Json scaled = **web;
  scaled["spec"]["replicas"] = 3;
  web = server.update(kDeployments, "team-a", scaled);
  t.line("scale to 3 replicas (spec change) -> " + describe(**web));
  Json labelled = **web;
  meta::setLabel(labelled, "tier", "frontend");
  web = server.update(kDeployments, "team-a", labelled);
  t.line("add label tier=frontend (metadata only) -> " + describe(**web));
  Json same = **web;
  web = server.update(kDeployments, "team-a", same);
  t.line("update with no change -> " + describe(**web) + ": no write, no new revision");
}

// Two writers of one object: the stale one gets 409 Conflict.
void optimisticConcurrencyChapter(Timeline& t, ApiServer& server) {
  t.chapter("4. Optimistic concurrency: a stale resourceVersion gets 409 Conflict");
  t.tick();
  auto settings = server.create(kConfigMaps, "team-a",
                                {{"metadata", {{"name", "settings"}}}, {"data", {{"mode", "a"}}}});
  Json readByA = **settings;
  Json readByB = **settings;
  t.line(fmt::format("controllers A and B both read ConfigMap team-a/settings at rv {}",
                     meta::resourceVersion(readByA)));
  readByA["data"]["mode"] = "b";
  auto writtenByA = server.update(kConfigMaps, "team-a", readByA);
  t.line("A writes mode=b -> " + describe(**writtenByA));
  readByB["data"]["mode"] = "c";
  auto conflict = server.update(kConfigMaps, "team-a", readByB);
  t.error(fmt::format("B writes mode=c with rv {}", meta::resourceVersion(readByB)),
          conflict.error());
  auto fresh = server.get(kConfigMaps, "team-a", "settings");
  Json retry = **fresh;
  retry["data"]["mode"] = "c";
  auto writtenByB = server.update(kConfigMaps, "team-a", retry);
  t.line("B re-reads and writes again -> " + describe(**writtenByB));
}

// A finalizer holds a deletion.
void finalizersChapter(Timeline& t, ApiServer& server) {
  t.chapter("5. Finalizers hold a deletion until the last one is removed");
  t.tick();
  Json guarded = {{"metadata", {{"name", "guarded"}, {"finalizers", {"example.com/cleanup"}}}},
                  {"data", {{"k", "v"}}}};
  server.create(kConfigMaps, "team-a", guarded);
  auto deleting = server.deleteObject(kConfigMaps, "team-a", "guarded");
  t.line(fmt::format("delete ConfigMap team-a/guarded -> still there, deletionTimestamp {}",
                     meta::deletionTimestamp(*deleting->object)));
  Json more = *deleting->object;
  meta::addFinalizer(more, "example.com/another");
  auto refused = server.update(kConfigMaps, "team-a", more);
  t.error("add another finalizer", refused.error());
  t.tick(5);
  Json released = *deleting->object;
  meta::removeFinalizer(released, "example.com/cleanup");
  server.update(kConfigMaps, "team-a", released);
  auto gone = server.get(kConfigMaps, "team-a", "guarded");
  t.line(fmt::format("remove the finalizer -> the object is gone ({})", gone.error().message));
}

// Graceful deletion of a pod on a node.
void gracefulDeletionChapter(Timeline& t, ApiServer& server) {
  t.chapter("6. Pods: graceful deletion on a node, immediate without one");
  t.tick();
  server.deleteObject(kPods, "team-a", "web-0");
  t.line(fmt::format("delete Pod team-a/web-0 (never scheduled) -> gone: {}",
                     server.get(kPods, "team-a", "web-0").error().message));
  server.create(kPods, "team-a", pod("web-1", "node-1"));
  auto terminating = server.deleteObject(kPods, "team-a", "web-1");
  t.line(fmt::format("delete Pod team-a/web-1 (on node-1) -> terminating until {} (grace {}s)",
                     meta::deletionTimestamp(*terminating->object),
                     meta::deletionGracePeriodSeconds(*terminating->object).value_or(0)));
  t.tick(3);
  DeleteOptions now;
  now.gracePeriodSeconds = 0;
  server.deleteObject(kPods, "team-a", "web-1", now);
  t.line("the kubelet confirms with gracePeriodSeconds=0 -> gone");
}

// A CustomResourceDefinition, its objects and their status.
void customResourcesChapter(Timeline& t, ApiServer& server) {
  t.chapter("7. Custom resources: a CRD makes a kind servable; status does not bump generation");
  t.tick();
  server.create(kCustomResourceDefinitions, "", widgetCrd());
  t.line("create CustomResourceDefinition widgets.example.com");
  auto widget = server.create(kWidgets, "team-a",
                              {{"apiVersion", "example.com/v1"},
                               {"kind", "Widget"},
                               {"metadata", {{"name", "w1"}}},
                               {"spec", {{"size", 1}}}});
  t.line("create " + describe(**widget));
  Json status = **widget;
  status["status"] = {{"ready", true}};
  widget = server.updateStatus(kWidgets, "team-a", status);
  t.line("write status.ready=true via /status -> " + describe(**widget));
  Json resized = **widget;
  resized["spec"]["size"] = 2;
  widget = server.update(kWidgets, "team-a", resized);
  t.line("change spec.size -> " + describe(**widget));
  Json unversioned = **widget;
  meta::metadata(unversioned).erase("resourceVersion");
  t.error("update without a resourceVersion",
          server.update(kWidgets, "team-a", unversioned).error());
}

// A watch resumed from a resourceVersion, and after compaction.
void watchChapter(Timeline& t, ApiServer& server) {
  t.chapter("8. Watch: resume from a resourceVersion and see exactly the later writes, in order");
  t.tick();
  WatchOptions from;
  from.resourceVersion = std::to_string(server.revision());
  auto watch = *server.watch(kConfigMaps, "team-a", from);
  Json flags = {{"metadata", {{"name", "flags"}}}, {"data", {{"beta", "off"}}}};
  auto created = server.create(kConfigMaps, "team-a", flags);
  Json flipped = **created;
  flipped["data"]["beta"] = "on";
  server.update(kConfigMaps, "team-a", flipped);
  server.deleteObject(kConfigMaps, "team-a", "flags");
  while (auto event = watch->tryNext()) {
    t.line(fmt::format("watch from rv {}: {} {} (rv {})", from.resourceVersion,
                       watchEventTypeName(event->type), meta::name(*event->object),
                       meta::resourceVersion(*event->object)));
  }
  server.compact(server.revision());
  auto expired = *server.watch(kConfigMaps, "team-a", from);
  auto error = expired->tryNext();
  t.error(fmt::format("watch from rv {} after compaction", from.resourceVersion),
          Status::fromJson(*error->object));
}

// An informer that lags behind the server.
void informerLagChapter(Timeline& t, SimExecutor& executor, ApiServer& server) {
  t.chapter("9. Informer lag: the write succeeded, the cache has not seen it yet");
  InProcessClient client(server);
  CacheOptions cacheOptions;
  cacheOptions.defaults.deliveryDelay = std::chrono::seconds(2);
  Cache cache(client, executor, cacheOptions);
  CachedClient cached(cache, client);
  cache.informerFor(kPods);
  cache.start();
  executor.runUntilIdle();
  Json web2 = pod("web-2");
  meta::setNamespace(web2, "team-a");
  cached.create(kPods, web2);
  auto fromCache = cached.get(kPods, "team-a", "web-2");
  auto fromServer = client.get(kPods, "team-a", "web-2");
  t.line(fmt::format("create Pod team-a/web-2 -> cached get: {}; uncached get: {}",
                     fromCache ? "found" : fromCache.error().message,
                     fromServer ? "found" : fromServer.error().message));
  t.tick(2);
  t.line(fmt::format("2 s later the event reaches the cache -> cached get: found (rv {})",
                     meta::resourceVersion(*cached.get(kPods, "team-a", "web-2"))));
  cache.stop();
}

// Owner references, followed by the garbage collector.
void garbageCollectionChapter(Timeline& t, SimExecutor& executor, ApiServer& server) {
  t.chapter("10. Garbage collection follows owner references");
  auto owner = server.create(kDeployments, "team-a", deployment("api", 2));
  Json rs = {{"metadata",
              {{"name", "api-7d9f"},
               {"ownerReferences", Json::array({meta::toJson(meta::controllerRefTo(**owner))})}}},
             {"spec", deployment("api", 2)["spec"]}};
  auto replicaSet = server.create(kReplicaSets, "team-a", rs);
  for (const char* name : {"api-7d9f-a", "api-7d9f-b"}) {
    Json p = pod(name, "node-1");
    meta::addOwnerReference(p, meta::controllerRefTo(**replicaSet));
    server.create(kPods, "team-a", p);
  }
  t.line("Deployment team-a/api owns ReplicaSet api-7d9f, which owns Pods api-7d9f-a and -b");
  DeleteOptions foreground;
  foreground.propagationPolicy = "Foreground";
  server.deleteObject(kDeployments, "team-a", "api", foreground);
  executor.runUntilIdle();
  auto waiting = server.get(kDeployments, "team-a", "api");
  auto podA = server.get(kPods, "team-a", "api-7d9f-a");
  t.line(
      fmt::format("delete it Foreground -> the Deployment waits (finalizers {}); pod api-7d9f-a "
                  "terminating, grace until {}",
                  (**waiting)["metadata"]["finalizers"].dump(),
                  podA ? meta::deletionTimestamp(**podA) : podA.error().message));
  for (const char* name : {"api-7d9f-a", "api-7d9f-b"}) {
    DeleteOptions kubelet;
    kubelet.gracePeriodSeconds = 0;
    server.deleteObject(kPods, "team-a", name, kubelet);  // what the kubelet confirms
  }
  executor.runUntil([&] { return !server.get(kDeployments, "team-a", "api"); },
                    std::chrono::seconds(10));
  t.line(fmt::format("the kubelet confirms the pods gone -> ReplicaSet: {}; Deployment: {}",
                     server.get(kReplicaSets, "team-a", "api-7d9f").error().message,
                     server.get(kDeployments, "team-a", "api").error().message));
}

// A namespace's deletion, finished by the namespace controller.
void namespaceDeletionChapter(Timeline& t, SimExecutor& executor, ApiServer& server) {
  t.chapter("11. Deleting a namespace deletes its contents, waiting for their finalizers");
  Json held = {{"metadata", {{"name", "held"}, {"finalizers", {"example.com/hold"}}}}};
  server.create(kConfigMaps, "team-a", held);
  server.deleteObject(kNamespaces, "", "team-a");
  executor.advance(std::chrono::seconds(2));
  auto teamANow = server.get(kNamespaces, "", "team-a");
  t.line(fmt::format("delete Namespace team-a -> phase {}; left inside: ConfigMap held",
                     (**teamANow)["status"]["phase"].get<std::string>()));
  t.error("create in it",
          server.create(kConfigMaps, "team-a", {{"metadata", {{"name", "late"}}}}).error());
  Json release = **server.get(kConfigMaps, "team-a", "held");
  meta::removeFinalizer(release, "example.com/hold");
  server.update(kConfigMaps, "team-a", release);
  executor.advance(std::chrono::seconds(2));
  t.line(fmt::format("release the finalizer -> {}",
                     server.get(kNamespaces, "", "team-a").error().message));
}

// The API server's rules, chapter by chapter; the last two with kube-controller-manager's
// garbage collector and namespace controller.
int story(SimExecutor& executor, ApiServer& server, const StoryOptions& options) {
  Timeline t(executor, server, options);
  namespacesChapter(t, server);
  podDefaultsChapter(t, server);
  generationChapter(t, server);
  optimisticConcurrencyChapter(t, server);
  finalizersChapter(t, server);
  gracefulDeletionChapter(t, server);
  customResourcesChapter(t, server);
  watchChapter(t, server);
  informerLagChapter(t, executor, server);
  // kube-controller-manager's, for the last two
  Manager controllers(executor, server, options.manager(executor, "kube-controller-manager"));
  auto collector = addGarbageCollector(controllers);
  controllers.start();
  garbageCollectionChapter(t, executor, server);
  auto namespaceController = addNamespaceController(controllers);
  namespaceDeletionChapter(t, executor, server);
  controllers.stop();

  std::printf("\n%lld writes in %.0f virtual seconds; every line above is a real API request.\n",
              static_cast<long long>(server.revision()),
              std::chrono::duration<double>(executor.now() - kSimulatedEpoch).count());
  return 0;
}

}  // namespace

namespace {

// Every story, in order; the process exit code.
int tellStories(const StoryOptions& story) {
  if (int failed = deploymentStory(story); failed != 0) return failed;
  if (int failed = rayJobStory(story); failed != 0) return failed;
  if (int failed = restartRecoveryStory(story).exitCode; failed != 0) return failed;
  if (int failed = rayClusterStory(story); failed != 0) return failed;
  if (int failed = contentionStory(story); failed != 0) return failed;
  if (int failed = rayServiceStory(story); failed != 0) return failed;

  SimExecutor executor(SimExecutor::Options{.seed = 1});
  auto server = openStoryServer(executor);
  if (server == nullptr) return 1;
  Timeline(executor, *server, story)
      .heading("The API server's rules, on the embedded in-memory store");
  return ::fakekube::cli::story(executor, *server, story);
}

// --trace and --timeline: the stories drawn; false (the error printed) when a file cannot be
// written.
bool writeDrawings(const DemoOptions& options, const StoryTrace& trace) {
  const Json drawn = trace.chromeTrace();
  auto save = [](const std::string& path, const std::string& text, const char* flag) {
    if (path.empty()) return true;
    std::ofstream file(path);
    file << text;
    file.close();
    if (file) return true;
    std::fprintf(stderr, "fakekube demo: %s %s: cannot write the file\n", flag, path.c_str());
    return false;
  };
  bool saved = save(options.trace, drawn.dump() + "\n", "--trace");
#ifdef FAKEKUBE_CLI_CRASHTEST
  saved = save(options.timeline, timelinePage(drawn), "--timeline") && saved;
#endif
  return saved;
}

}  // namespace

int runDemo(const DemoOptions& options) {
  std::printf(
      "fakekube demo: fakekube's stories on the embedded in-memory store, in virtual time\n");
  StoryTrace trace;
  StoryOptions story;
  story.color = options.color;
  if (!options.trace.empty() || !options.timeline.empty()) story.trace = &trace;
  const int told = tellStories(story);
  if (story.trace != nullptr && !writeDrawings(options, trace)) return told != 0 ? told : 1;
  return told;
}

}  // namespace fakekube::cli
