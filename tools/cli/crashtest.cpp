// `fakekube crashtest`: the fixtures' crash-point enumeration (fixtures/crash_point_runner.h) on
// manifests, with the KubeRay operator and the Ray simulation, on virtual time.
//
// The files' objects start a seeded TestCluster (nodes, scheduler, kubelets running the
// simulated Ray head, workers and submitters, the garbage collector) with KubeRay's CRDs served.
// A clean run records the operator's writes until the goal; then every write k is rerun under
// each fault (crash before the commit, crash after it, lost response) and the operator restarted
// with nothing kept in memory. Each run must reach the goal within --timeout and keep:
//   - at most one head pod per RayCluster, no more worker pods in a group than it asks for;
//   - at most one RayCluster and one submitter Job per RayJob, one Ray submission per RayJob in
//     its head's job table (the simulated dashboard's /api/jobs/);
//   - RayJob counters consistent with the outcome (Complete: succeeded 1; Failed: succeeded 0);
//   - after deleting the files' objects (unless --no-teardown): they are gone and nothing they
//     owned is left (pods, services, Jobs, RayClusters).
//
// The goal: --until's conditions or the files' default (crashtest_goal.h).
//
// --rbac FILE...: the operator runs as system:serviceaccount:ray-system:kuberay-operator bound to
// the files' roles in every run, and the access report across all of them follows the rows
// (crashtest_rbac.h).
//
// --then FILE...: once the goal holds, the files are applied (kubectl apply's merge patch) and the
// run goes on to --then-until's goal, or a RayService's upgrade (crashtest_goal.h,
// crashtest_rayservice.h); the crash points are the operator's writes of both phases.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "controllers/ray/custom_resource_definitions.h"
#include "controllers/ray/dashboard_client.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/sim/ray_simulation.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/network.h"
#include "fixtures/crash_point_runner.h"
#include "fixtures/manifests.h"
#include "tools/cli/commands.h"
#include "tools/cli/crashtest_batch_scheduler.h"
#include "tools/cli/crashtest_goal.h"
#include "tools/cli/crashtest_invariants.h"
#include "tools/cli/crashtest_rayservice.h"
#include "tools/cli/crashtest_rbac.h"
#include "tools/cli/explore.h"
#include "tools/cli/go_duration.h"

namespace fakekube::cli {

// --- invariants (crashtest_invariants.h) ---

// At most one head pod per RayCluster; no worker group with more live pods than it asks for.
Invariant rayClusterPods() {
  return {
      "RayCluster pods", [](TestCluster& cluster) -> std::optional<std::string> {
        std::map<std::string, Json> rayClusters;  // by uid
        for (auto& rc : cluster.list(ray::kRayClusters)) rayClusters[meta::uid(rc)] = rc;
        std::map<std::pair<std::string, std::string>, std::vector<std::string>> byGroup;
        for (const auto& pod : cluster.list(kPods)) {
          if (meta::isDeleting(pod)) continue;
          auto ref = meta::controllerOf(pod);
          if (!ref || ref->kind != "RayCluster") continue;
          const Json& labels = meta::labels(pod);
          const std::string type = labels.is_object() ? labels.value("ray.io/node-type", "") : "";
          const std::string group =
              type == "head" ? "" : (labels.is_object() ? labels.value("ray.io/group", "") : "");
          byGroup[{ref->uid, group}].push_back(meta::name(pod));
        }
        std::vector<std::string> found;
        for (const auto& [key, pods] : byGroup) {
          const auto& [uid, group] = key;
          auto rc = rayClusters.find(uid);
          if (rc == rayClusters.end()) continue;  // noOrphans' business
          std::size_t allowed = 1;
          if (!group.empty()) {
            allowed = 0;
            const Json& spec = rc->second.value("spec", Json::object());
            for (const auto& g : spec.value("workerGroupSpecs", Json::array())) {
              if (g.value("groupName", "") != group) continue;
              long long replicas = g.value("replicas", 0LL);
              replicas = std::max(replicas, g.value("minReplicas", 0LL));
              if (g.contains("maxReplicas"))
                replicas = std::min(replicas, g.value("maxReplicas", 0LL));
              if (g.value("suspend", false)) replicas = 0;
              allowed = static_cast<std::size_t>(std::max(0LL, replicas) *
                                                 std::max(1LL, g.value("numOfHosts", 1LL)));
            }
          }
          if (pods.size() <= allowed) continue;
          found.push_back(fmt::format("RayCluster {} has {} {} pods, expected at most {} ({})",
                                      meta::name(rc->second), pods.size(),
                                      group.empty() ? std::string("head") : "worker group " + group,
                                      allowed, fmt::join(pods, ", ")));
        }
        if (found.empty()) return std::nullopt;
        return fmt::format("{}", fmt::join(found, "; "));
      }};
}

// A RayJob's counters agree with where it ended.
Invariant rayJobCounters() {
  return {"RayJob counters", [](TestCluster& cluster) -> std::optional<std::string> {
            std::vector<std::string> found;
            for (const auto& job : cluster.list(ray::kRayJobs)) {
              const Json& status = job.value("status", Json::object());
              const std::string state = status.value("jobDeploymentStatus", "");
              const long long succeeded = status.value("succeeded", 0LL);
              const long long failed = status.value("failed", 0LL);
              const long long backoffLimit =
                  job.value("spec", Json::object()).value("backoffLimit", 0LL);
              std::string wrong;
              if (state == "Complete" && (succeeded != 1 || failed > backoffLimit)) {
                wrong = "Complete";
              } else if (state == "Failed" && (succeeded != 0 || failed > backoffLimit + 1)) {
                wrong = "Failed";
              } else if (succeeded > 1) {
                wrong = state.empty() ? std::string("(no state)") : state;
              }
              if (wrong.empty()) continue;
              found.push_back(
                  fmt::format("RayJob {} is {} with succeeded {}, failed {} "
                              "(backoffLimit {})",
                              meta::namespacedName(job), wrong, succeeded, failed, backoffLimit));
            }
            if (found.empty()) return std::nullopt;
            return fmt::format("{}", fmt::join(found, "; "));
          }};
}

// One Ray submission per RayJob in its cluster's head: the simulated head's job table (GET
// /api/jobs/ on the dashboard) holds at most one job whose submission id is the RayJob's jobId
// or, as KubeRay generates ids, starts with "<rayjob>-".
Invariant oneRaySubmissionPerRayJob() {
  return {"one Ray submission per RayJob", [](TestCluster& cluster) -> std::optional<std::string> {
            if (cluster.cluster() == nullptr) return std::nullopt;
            std::vector<std::string> found;
            for (const auto& job : cluster.list(ray::kRayJobs)) {
              const Json& status = job.value("status", Json::object());
              const std::string rayCluster = status.value("rayClusterName", "");
              const std::string jobId = status.value("jobId", "");
              if (rayCluster.empty()) continue;
              const std::string ns = namespaceOrDefault(job);
              for (const auto& pod : cluster.list(kPods, ns)) {
                const Json& labels = meta::labels(pod);
                if (!labels.is_object() || labels.value("ray.io/cluster", "") != rayCluster ||
                    labels.value("ray.io/node-type", "") != "head" || meta::isDeleting(pod)) {
                  continue;
                }
                const std::string ip = pod.value("status", Json::object()).value("podIP", "");
                if (ip.empty()) continue;
                auto answer = cluster.cluster()->network().call(
                    ns, ip, 8265, HttpRequest{.method = "GET", .path = "/api/jobs/"});
                if (!answer || answer->status != 200) continue;
                Json jobs = Json::parse(answer->body, nullptr, false);
                if (!jobs.is_array()) continue;
                std::vector<std::string> ids;
                const std::string prefix = meta::name(job) + "-";
                for (const auto& details : jobs) {
                  const std::string id = details.is_object() && details["submission_id"].is_string()
                                             ? details["submission_id"].get<std::string>()
                                             : std::string();
                  if (!id.empty() && (id == jobId || id.starts_with(prefix))) ids.push_back(id);
                }
                if (ids.size() > 1) {
                  found.push_back(fmt::format("RayJob {} has {} submissions in {} ({})",
                                              meta::namespacedName(job), ids.size(),
                                              meta::name(pod), fmt::join(ids, ", ")));
                }
              }
            }
            if (found.empty()) return std::nullopt;
            return fmt::format("{}", fmt::join(found, "; "));
          }};
}

namespace {

// The deleted objects are gone (their finalizers were removed).
Invariant deletedObjectsGone(std::vector<Json> objects) {
  return {"deleted objects are gone",
          [objects = std::move(objects)](TestCluster& cluster) -> std::optional<std::string> {
            std::vector<std::string> left;
            for (const auto& o : objects) {
              auto gvr = cluster.server().resourceFor(meta::apiVersion(o), meta::kind(o));
              if (!gvr) continue;
              if (cluster.server().get(*gvr, namespaceOrDefault(o), meta::name(o))) {
                left.push_back(
                    fmt::format("{} {}/{}", meta::kind(o), namespaceOrDefault(o), meta::name(o)));
              }
            }
            if (left.empty()) return std::nullopt;
            return fmt::format("still there: {}", fmt::join(left, ", "));
          }};
}

// The objects the teardown deletes: what the files created, but CRDs and namespaces.
std::vector<Json> topLevelObjects(const std::vector<Json>& objects) {
  std::vector<Json> out;
  for (const auto& o : objects) {
    const std::string kind = meta::kind(o);
    if (kind == "CustomResourceDefinition" || kind == "Namespace") continue;
    out.push_back(o);
  }
  return out;
}

// Shell quoting for the replay command.
std::string quoted(const std::string& arg) {
  const bool plain = !arg.empty() && arg.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_./=:,+-@%") == std::string::npos;
  if (plain) return arg;
  std::string out = "'";
  for (char ch : arg) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string replayCommand(const CrashtestOptions& options, std::uint64_t k, CrashFault fault) {
  std::string command = "fakekube crashtest";
  for (const auto& f : options.files) command += " -f " + quoted(f);
  for (const auto& u : options.until) command += " --until " + quoted(u);
  for (const auto& f : options.then) command += " --then " + quoted(f);
  for (const auto& u : options.thenUntil) command += " --then-until " + quoted(u);
  if (options.timeout != CrashtestOptions{}.timeout)
    command += " --timeout " + quoted(options.timeout);
  if (options.nodes != CrashtestOptions{}.nodes)
    command += fmt::format(" --nodes {}", options.nodes);
  if (!options.teardown) command += " --no-teardown";
  if (!options.batchScheduler.empty())
    command += " --batch-scheduler " + quoted(options.batchScheduler);
  for (const auto& f : options.rbac) command += " --rbac " + quoted(f);
  return command +
         fmt::format(" --seed {} --point {} --fault {}", options.seed, k, crashFaultName(fault));
}

// The objects of the manifest files: each with apiVersion, kind and metadata.name, at least one.
Result<std::vector<Json>> readCrashtestManifests(const std::vector<std::string>& files,
                                                 const std::string& flag = "-f") {
  if (files.empty()) {
    return tl::unexpected(Status::badRequest("no manifests: -f FILE.yaml is required"));
  }
  std::vector<Json> objects;
  for (const auto& path : files) {
    auto decoded = readManifestFile(path);
    if (!decoded) return tl::unexpected(decoded.error());
    for (auto& o : *decoded) {
      if (meta::kind(o).empty() || meta::apiVersion(o).empty() || meta::name(o).empty()) {
        return tl::unexpected(Status::badRequest(
            fmt::format("{}: every object needs apiVersion, kind and metadata.name", path)));
      }
      objects.push_back(std::move(o));
    }
  }
  if (objects.empty()) {
    return tl::unexpected(
        Status::badRequest(flag == "-f" ? std::string("the manifests hold no objects")
                                        : fmt::format("{}: the manifests hold no objects", flag)));
  }
  return objects;
}

// --faults: some of before, after, lost, comma-separated (each once).
Result<std::vector<CrashFault>> parseCrashFaults(const std::string& text) {
  std::vector<CrashFault> faults;
  std::stringstream names(text);
  for (std::string name; std::getline(names, name, ',');) {
    auto fault = parseCrashFault(name);
    if (!fault) {
      return tl::unexpected(Status::badRequest(
          fmt::format("--faults: unknown fault \"{}\" (known: before, after, lost)", name)));
    }
    if (std::find(faults.begin(), faults.end(), *fault) == faults.end()) faults.push_back(*fault);
  }
  if (faults.empty()) {
    return tl::unexpected(Status::badRequest("--faults: expected some of before, after, lost"));
  }
  return faults;
}

// --point K with --fault F: the fault of the one run to replay (none without --point).
Result<std::optional<CrashFault>> replayFaultOf(const CrashtestOptions& options) {
  if (options.point.has_value() != !options.fault.empty()) {
    return tl::unexpected(Status::badRequest("--point K and --fault F go together"));
  }
  if (!options.point) return std::optional<CrashFault>();
  if (*options.point == 0)
    return tl::unexpected(Status::badRequest("--point: writes count from 1"));
  auto fault = parseCrashFault(options.fault);
  if (!fault) {
    return tl::unexpected(Status::badRequest(
        fmt::format("--fault: unknown fault \"{}\" (known: before, after, lost)", options.fault)));
  }
  return std::optional<CrashFault>(*fault);
}

// The cluster's starting objects: KubeRay's CRDs, served from the start (the files' objects need
// them) unless the files bring their own definitions, then the files' objects. `registry` learns
// every definition, for the goal's conditions.
Result<std::vector<Json>> crashtestStartingObjects(const std::vector<Json>& objects,
                                                   bool rayServices, ResourceRegistry& registry) {
  std::set<std::string> definedByFiles;
  for (const auto& o : objects) {
    if (meta::kind(o) != "CustomResourceDefinition") continue;
    definedByFiles.insert(meta::name(o));
    auto info = ResourceRegistry::fromCustomResourceDefinition(o);
    if (!info) return tl::unexpected(info.error());
    registry.add(std::move(*info));
  }
  std::vector<Json> startingObjects;
  std::vector<Json> definitions = {ray::rayClusterCustomResourceDefinition(),
                                   ray::rayJobCustomResourceDefinition()};
  if (rayServices) definitions.push_back(ray::rayServiceCustomResourceDefinition());
  for (Json crd : definitions) {
    if (definedByFiles.contains(meta::name(crd))) continue;
    if (auto info = ResourceRegistry::fromCustomResourceDefinition(crd)) registry.add(*info);
    startingObjects.push_back(std::move(crd));
  }
  for (const auto& o : objects) startingObjects.push_back(o);
  return startingObjects;
}

// --then's objects, applied as `kubectl apply` applies objects it did not create (no
// last-applied annotation): one that exists gets its manifest as a JSON merge patch (what kubectl
// sends for a custom resource: the operator's finalizers and the status stay), one that does not
// is created. Through the test's client: never one of the operator's writes.
Result<void> applyThenObjects(TestCluster& cluster, const std::vector<Json>& objects) {
  for (Json object : objects) {
    auto gvr = cluster.server().resourceFor(meta::apiVersion(object), meta::kind(object));
    if (!gvr) return tl::unexpected(gvr.error());
    const auto info = cluster.server().registry().find(*gvr);
    if (info && info->namespaced && meta::namespace_(object).empty()) {
      meta::setNamespace(object, "default");
    }
    const std::string ns = meta::namespace_(object);
    const std::string name = meta::name(object);
    auto existing = cluster.client().get(*gvr, ns, name);
    if (!existing && !isNotFound(existing.error())) return tl::unexpected(existing.error());
    auto applied = existing
                       ? cluster.client().patch(*gvr, ns, name, PatchType::Merge, object.dump())
                       : cluster.client().create(*gvr, std::move(object));
    if (!applied) return tl::unexpected(applied.error());
  }
  return {};
}

// The objects of -f and --then, each once (by kind, namespace and name), for the teardown.
std::vector<Json> objectsOfBothPhases(const std::vector<Json>& objects,
                                      const std::vector<Json>& thenObjects) {
  std::vector<Json> all = objects;
  std::set<std::string> seen;
  auto key = [](const Json& o) {
    return meta::kind(o) + "/" + namespaceOrDefault(o) + "/" + meta::name(o);
  };
  for (const auto& o : objects) seen.insert(key(o));
  for (const auto& o : thenObjects) {
    if (seen.insert(key(o)).second) all.push_back(o);
  }
  return all;
}

// The KubeRay operator as every run starts it: the RayCluster and RayJob controllers, and the
// RayService controller when the manifests hold a RayService (an idle controller's informers
// would still change the order of the run's same-instant work, and with it the crash points of
// the other scenarios). The operator reaches the simulated Ray dashboards through the cluster's
// in-process network (never a real socket), and draws its random names (RayJob cluster names,
// job ids) from the run's seed, so that a run replays exactly; each start of the operator in a
// run gets the next seed, as a restarted process would draw other names.
OperatorFactory kubeRayOperatorFactory(bool rayServices, std::string batchScheduler,
                                       bool installDefinitions) {
  std::set<std::string> names = {"raycluster", "rayjob"};
  if (rayServices) names.insert("rayservice");
  // The operator's environment variables (ENABLE_DETERMINISTIC_HEAD_POD_NAME, ...), read as
  // `fakekube operator` reads them from its Deployment's env.
  const ray::OperatorOptions fromEnvironment = ray::OperatorOptions::fromEnvironment();
  return [names, batchScheduler = std::move(batchScheduler), installDefinitions, fromEnvironment](
             Manager& manager, const OperatorContext& context) -> Result<void> {
    ray::OperatorOptions operatorOptions = fromEnvironment;
    operatorOptions.randomSeed = context.seed * 1000003 + context.start;
    operatorOptions.batchScheduler = batchScheduler;
    operatorOptions.installCustomResourceDefinitions = installDefinitions;
    if (context.cluster != nullptr) {
      operatorOptions.httpProxyClients = ray::inProcessHttpProxyClients(context.cluster->network());
    }
    if (context.cluster == nullptr)
      return tl::unexpected(Status::badRequest("the cluster has no network"));
    // With RayServices, the Serve config PUTs each cluster receives are counted
    // (atMostOneServeConfigPutPerClusterAndRestart).
    return ray::addRayOperator(manager, names, operatorOptions,
                               names.contains("rayservice")
                                   ? countingServeConfigDashboards(context)
                                   : ray::inProcessDashboardClients(context.cluster->network()));
  };
}

// After the goal: the files' objects (but CRDs and namespaces) are deleted, and must be gone
// with nothing they owned left.
void addCrashtestTeardown(const std::vector<Json>& objects, CrashScenario& scenario) {
  const std::vector<Json> deleted = topLevelObjects(objects);
  scenario.teardown = [deleted](TestCluster& c) -> Result<void> {
    for (const auto& o : deleted) {
      auto gvr = c.server().resourceFor(meta::apiVersion(o), meta::kind(o));
      if (!gvr) return tl::unexpected(gvr.error());
      auto gone = c.client().deleteObject(*gvr, namespaceOrDefault(o), meta::name(o));
      if (!gone && !isNotFound(gone.error())) return tl::unexpected(gone.error());
    }
    return {};
  };
  scenario.teardownTime = std::chrono::seconds(60);
  scenario.afterTeardown = {deletedObjectsGone(deleted),
                            noOrphans(kPods, ray::kRayClusters),
                            noOrphans(kServices, ray::kRayClusters),
                            noOrphans(ray::kRayClusters, ray::kRayJobs),
                            noOrphans(ray::kRayClusters, ray::kRayServices),
                            noOrphans(kServices, ray::kRayServices),
                            noOrphans(kJobs, ray::kRayJobs),
                            noOrphans(kPods, kJobs)};
}

// --then and --then-until combine with a run of crash points (or one of them, --point), not with
// what reads its plan from elsewhere (--replay, --merge) nor with --explore's plans.
Result<void> checkThenCombination(const CrashtestOptions& options) {
  if (options.then.empty()) {
    if (options.thenUntil.empty()) return {};
    return tl::unexpected(Status::badRequest("--then-until needs --then FILE"));
  }
  for (const auto& [flag, set] : {std::pair<const char*, bool>{"--replay", !options.replay.empty()},
                                  {"--merge", !options.merge.empty()},
                                  {"--explore", !options.explore.empty()}}) {
    if (set) {
      return tl::unexpected(
          Status::badRequest(fmt::format("--then does not combine with {}", flag)));
    }
  }
  return {};
}

// One line, whatever the message holds (a YAML error may span several).
std::string crashtestOneLine(std::string message) {
  while (!message.empty() && message.back() == '\n') message.pop_back();
  for (std::size_t at; (at = message.find('\n')) != std::string::npos;)
    message.replace(at, 1, "; ");
  return message;
}

// The clean run, then one crash point (--point) or every one. `finish` turns the exit code of a
// run into the command's (it adds --rbac's report); a --point beyond the clean run's writes is
// bad input, answered before anything else.
int runCrashPoints(const CrashtestOptions& options, std::optional<CrashFault> replayFault,
                   CrashScenario scenario, std::ostream& out, std::ostream& err,
                   const std::function<int(int)>& finish) {
  CrashPointRunner runner(std::move(scenario));
  auto printViolations = [&](const CrashPointRow& row) {
    for (const auto& v : row.violations) out << "    " << v << "\n";
    out << "    replay: " << replayCommand(options, row.k, row.fault) << "\n";
  };
  const auto wallStart = std::chrono::steady_clock::now();
  Duration cleanTime{0};
  auto writes = runner.cleanRun(&cleanTime);
  if (!writes) {
    const Status& s = writes.error();
    // The goal missed or an invariant broken without any fault: the scenario (or the operator)
    // is wrong. Anything else is a setup error: the files' objects were refused.
    const bool scenarioFailed = s.code == 504 || s.code == 500;
    err << "fakekube crashtest: " << crashtestOneLine(s.message) << "\n";
    return finish(scenarioFailed ? 1 : 2);
  }
  if (options.point) {
    // One run, described by the clean run's write k (and checked against it).
    if (*options.point > writes->size()) {
      err << "fakekube crashtest: "
          << fmt::format("--point {}: the clean run makes {} operator writes", *options.point,
                         writes->size())
          << "\n";
      return 2;
    }
    CrashPointRow row =
        runner.runPoint(*options.point, *replayFault, &(*writes)[*options.point - 1]);
    out << row.str() << "\n";
    if (!row.converged) printViolations(row);
    return finish(row.converged ? 0 : 1);
  }
  out << fmt::format("clean run (seed {}): {} operator writes, goal reached in {:.3f}s\n",
                     options.seed, writes->size(),
                     std::chrono::duration<double>(cleanTime).count());
  out.flush();
  CrashPointReport report;
  report.seed = options.seed;
  const int jobs = options.jobs > 0
                       ? options.jobs
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  report.rows = runner.runPoints(runner.pointsOf(*writes), jobs, [&](const CrashPointRow& row) {
    out << row.str() << "\n";
    if (!row.converged) printViolations(row);
    out.flush();
  });
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
  err << fmt::format("fakekube crashtest: {} runs in {:.2f} s of wall time ({:.1f} runs/s)\n",
                     runner.runs(), wall,
                     wall > 0 ? static_cast<double>(runner.runs()) / wall : 0.0);
  out << report.summary() << "\n";
  return finish(report.ok() ? 0 : 1);
}

}  // namespace

int runCrashtest(const CrashtestOptions& options) {
  std::ostream& out = options.out != nullptr ? *options.out : std::cout;
  std::ostream& err = options.err != nullptr ? *options.err : std::cerr;
  auto badInput = [&](const std::string& message) {
    err << "fakekube crashtest: " << crashtestOneLine(message) << "\n";
    return 2;
  };

  if (auto combination = checkThenCombination(options); !combination)
    return badInput(combination.error().message);
  if (!options.merge.empty()) return runMerge(options, out, err);
  if (!options.replay.empty()) return runReplay(options, out, err);
  auto objects = readCrashtestManifests(options.files);
  if (!objects) return badInput(objects.error().message);
  auto timeout = parseGoDuration(options.timeout);
  if (!timeout) return badInput("--timeout: " + timeout.error().message);
  if (*timeout <= Duration{0}) return badInput("--timeout: expected a positive duration");
  auto faults = parseCrashFaults(options.faults);
  if (!faults) return badInput(faults.error().message);
  auto replayFault = replayFaultOf(options);
  if (!replayFault) return badInput(replayFault.error().message);
  if (options.jobs < 0)
    return badInput(fmt::format("--jobs {}: expected 0 (one per core) or more", options.jobs));
  if (options.nodes < 1 || options.nodes > 100) {
    return badInput(fmt::format("--nodes {}: expected 1..100", options.nodes));
  }
  if (auto valid = validateCrashtestBatchScheduler(options.batchScheduler); !valid)
    return badInput(valid.error().message);
  auto rbac = crashtestRbac(options);
  if (!rbac) return badInput(rbac.error().message);
  std::vector<Json> thenObjects;
  if (!options.then.empty()) {
    auto read = readCrashtestManifests(options.then, "--then");
    if (!read) return badInput(read.error().message);
    thenObjects = std::move(*read);
  }
  const bool rayServices =
      !rayServiceTargets(*objects).empty() || !rayServiceTargets(thenObjects).empty();
  ResourceRegistry registry;
  auto startingObjects = crashtestStartingObjects(*objects, rayServices, registry);
  if (!startingObjects) return badInput(startingObjects.error().message);
  auto goal = crashtestGoal(options, registry, *objects);
  if (!goal) return badInput(goal.error().message);
  std::optional<Expectation> thenGoal;
  if (!thenObjects.empty()) {
    auto parsed = crashtestThenGoal(options, registry, thenObjects);
    if (!parsed) return badInput(parsed.error().message);
    thenGoal = std::move(*parsed);
  }

  CrashScenario scenario;
  scenario.name = "crashtest";
  scenario.timeout = *timeout;
  scenario.faults = *faults;
  scenario.goal = std::move(*goal);
  TestClusterOptions& cluster = scenario.cluster;
  cluster.seed = options.seed;
  cluster.nodes = options.nodes;
  cluster.objects = std::move(*startingObjects);
  cluster.configureCluster = [](Cluster& c) { ray::addRayBehaviors(c.behaviors()); };
  // Under --rbac the CRDs are the installer's (they are starting objects): KubeRay's role grants
  // no access to CustomResourceDefinitions.
  OperatorFactory factory = options.operatorFactory
                                ? options.operatorFactory
                                : kubeRayOperatorFactory(rayServices, options.batchScheduler,
                                                         /*installDefinitions=*/!*rbac);
  cluster.operators = {{"kuberay", factory}};
  if (*rbac) {
    cluster.operators.front().runAs = (*rbac)->runAs;
    cluster.audit = (*rbac)->audit;
  }
  scenario.invariants = {rayClusterPods(), noDuplicateControlled(ray::kRayClusters, "RayJob"),
                         noDuplicateControlled(kJobs, "RayJob"), rayJobCounters()};
  if (rayServices) {
    scenario.invariants.push_back(rayServiceServicesSelectOneCluster());
    scenario.invariants.push_back(atMostOneServeConfigPutPerClusterAndRestart());
    scenario.atEveryCommit.push_back(rayServiceServicesSelectActiveOrPending());
  }
  if (thenGoal) {
    scenario.then.push_back(
        {fmt::format("apply {}", fmt::join(options.then, ", ")),
         [thenObjects](TestCluster& c) { return applyThenObjects(c, thenObjects); },
         std::move(*thenGoal)});
  }
  if (options.teardown) addCrashtestTeardown(objectsOfBothPhases(*objects, thenObjects), scenario);
  addCrashtestBatchScheduler(options.batchScheduler, scenario);

  // With --rbac, the access report of every run so far follows whatever ended the command.
  auto withRbacReport = [&](int code) {
    if (*rbac) out << rbacReport(**rbac);
    out.flush();
    return code;
  };
  if (wantsExploration(options)) {
    return withRbacReport(runExploration(options, std::move(scenario), out, err));
  }
  return runCrashPoints(options, *replayFault, std::move(scenario), out, err, withRbacReport);
}

}  // namespace fakekube::cli
