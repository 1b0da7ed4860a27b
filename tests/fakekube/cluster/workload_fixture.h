// Shared fixture of the workload controller tests (ReplicaSet, Deployment, Job): the cluster
// fixture (API server on virtual time, garbage collector running) plus a Manager that runs the
// controllers under test, and helpers that play the kubelet the way envtest users do: they patch
// pod status through the status subresource (Running + Ready, Succeeded, Failed).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/conditions.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/cluster_fixture.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::workloadtest {

using namespace clustertest;  // NOLINT: the cluster and API server test helpers

// A Job running `image` once (completions and parallelism as the server defaults them).
inline Json job(const std::string& name, const std::string& ns = "default") {
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"template",
             {{"spec",
               {{"restartPolicy", "Never"},
                {"containers", Json::array({{{"name", "main"}, {"image", "busybox:1.36"}}})}}}}}}}};
}

class WorkloadTest : public ClusterTest {
 protected:
  void TearDown() override {
    manager.reset();
    ClusterTest::TearDown();
  }

  // A manager over the server; the test adds its controllers and calls start().
  Manager& newManager(ManagerOptions options = {}) {
    manager = std::make_unique<Manager>(ex, *server, std::move(options));
    return *manager;
  }

  void startManager() {
    manager->start();
    ex.runUntilIdle();
    ASSERT_TRUE(manager->running());
  }

  // Lets the controllers act on everything that is due now (and `time` more of virtual time).
  void run(std::chrono::milliseconds time = std::chrono::milliseconds(0)) {
    ex.advance(time);
    ex.runUntilIdle();
  }

  // The pods of a namespace that match `selector`, by name.
  std::vector<Json> pods(const std::string& selector = "", const std::string& ns = "default") {
    ListOptions options;
    options.labelSelector = selector;
    Json listed = list(kPods, ns, options);
    std::vector<Json> out(listed["items"].begin(), listed["items"].end());
    return out;
  }

  std::vector<Json> podsOwnedBy(const Json& owner) {
    std::vector<Json> out;
    for (auto& p : pods()) {
      auto ref = meta::controllerOf(p);
      if (ref && ref->uid == meta::uid(owner)) out.push_back(std::move(p));
    }
    return out;
  }

  std::string now() { return formatRfc3339(ex.now()); }

  // --- the kubelet's part ---
  Json patchPodStatus(const Json& pod, const Json& status) {
    return must(server->patch(kPods, meta::namespace_(pod), meta::name(pod), PatchType::Merge,
                              Json{{"status", status}}.dump(), {}, "status"),
                "patch pod status");
  }
  Json markRunning(const Json& pod, bool ready = true) {
    return patchPodStatus(pod, {{"phase", "Running"},
                                {"conditions", Json::array({{{"type", "Ready"},
                                                             {"status", ready ? "True" : "False"},
                                                             {"lastTransitionTime", now()}}})}});
  }
  Json markFinished(const Json& pod, bool succeeded) {
    int exitCode = succeeded ? 0 : 1;
    return patchPodStatus(
        pod, {{"phase", succeeded ? "Succeeded" : "Failed"},
              {"conditions", Json::array({{{"type", "Ready"},
                                           {"status", "False"},
                                           {"reason", "PodCompleted"},
                                           {"lastTransitionTime", now()}}})},
              {"containerStatuses", Json::array({{{"name", "main"},
                                                  {"ready", false},
                                                  {"restartCount", 0},
                                                  {"state",
                                                   {{"terminated",
                                                     {{"exitCode", exitCode},
                                                      {"reason", succeeded ? "Completed" : "Error"},
                                                      {"finishedAt", now()}}}}}}})}});
  }

  // The condition of `type` in an object's status (null when absent).
  static Json condition(const Json& object, const std::string& type) {
    const Json* c = findCondition(object, type);
    return c ? *c : Json();
  }

  static std::vector<std::string> conditionTypes(const Json& object) {
    std::vector<std::string> out;
    if (!object.contains("status") || !object["status"].contains("conditions")) return out;
    for (const auto& c : object["status"]["conditions"]) out.push_back(c.value("type", ""));
    return out;
  }

  std::unique_ptr<Manager> manager;
};

}  // namespace fakekube::workloadtest
