// A controller that writes a misspelt field: the API server drops it as kube-apiserver does
// (decoding into the Go type keeps only the fields the type has) and tells the writer with a
// warning; what the controller reads back, from its manager's cache, no longer has it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/runtime/runtime_fixture.h"

namespace fakekube::runtimetest {
namespace {

using ::testing::ElementsAre;

using UnknownFieldsControllerTest = RuntimeTest;

TEST_F(UnknownFieldsControllerTest, AMisspeltFieldAControllerWritesIsNotReadBack) {
  create(kConfigMaps, configMap("app"));
  Manager manager(ex, *server);
  std::vector<std::string> warnings;
  std::vector<bool> readBackHadTheField;
  // For each ConfigMap, a Pod running its image, written with `imagePullPolizy` for
  // `imagePullPolicy`; once the Pod is in the cache, what the reconciler reads is recorded.
  auto controller =
      ControllerBuilder(manager)
          .forResource(kConfigMaps)
          .owns(kPods)
          .complete([&](const ReconcileRequest& r) -> ReconcileResult {
            auto existing = manager.client().get(kPods, r.namespace_, r.name + "-pod");
            if (existing) {
              readBackHadTheField.push_back(
                  (*existing)["spec"]["containers"][0].contains("imagePullPolizy"));
              return {};
            }
            Json pod = apitest::pod(r.name + "-pod", r.namespace_);
            pod["spec"]["containers"][0]["imagePullPolizy"] = "Always";
            pod["metadata"]["ownerReferences"] =
                Json::array({{{"apiVersion", "v1"},
                              {"kind", "ConfigMap"},
                              {"name", r.name},
                              {"uid", get(kConfigMaps, r.namespace_, r.name)["metadata"]["uid"]},
                              {"controller", true}}});
            CreateOptions options;
            options.warnings = &warnings;
            auto created = manager.client().create(kPods, pod, options);
            if (!created) return {.requeue = true};
            return {};
          });
  ASSERT_TRUE(controller.has_value());
  manager.start();
  ex.runUntilIdle();

  EXPECT_THAT(warnings, ElementsAre("unknown field \"spec.containers[0].imagePullPolizy\""));
  EXPECT_THAT(readBackHadTheField, ElementsAre(false));
  EXPECT_FALSE(
      get(kPods, "default", "app-pod")["spec"]["containers"][0].contains("imagePullPolizy"));
}

}  // namespace
}  // namespace fakekube::runtimetest
