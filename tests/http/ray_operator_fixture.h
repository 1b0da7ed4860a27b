// The fixture of the KubeRay operator's end-to-end tests, each run twice: with the operator inside
// `fakekube serve` (the default controllers, KubeRay's among them) and as `fakekube operator` in
// a process of its own against the server's kubeconfig (serve then runs the cluster's controllers
// without KubeRay's).
//
// Both processes run their clocks and timers ten times faster than real time (`--time-scale`):
// backoffs, TTLs and deadlines pass in a tenth of the wall time, and every duration the tests
// compare is read from the timestamps the controllers wrote.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {

enum class OperatorPlacement { InsideServe, OutOfProcess };

// The test name suffix of a placement (INSTANTIATE_TEST_SUITE_P's name generator).
inline std::string operatorPlacementName(const ::testing::TestParamInfo<OperatorPlacement>& info) {
  return info.param == OperatorPlacement::InsideServe ? "OperatorInsideServe"
                                                      : "OperatorOutOfProcess";
}

inline constexpr const char* kOperatorTimeScale = "10";

// The cluster's controllers without the KubeRay ones.
inline constexpr const char* kClusterControllersWithoutKubeRay =
    "gc,namespace,node-lifecycle,scheduler,kubelet,job,ttl-after-finished,replicaset,deployment,"
    "endpoints,endpointslice,serviceaccount,statefulset,daemonset,cronjob,disruption";

class RayOperatorServeTest : public KubectlTest,
                             public ::testing::WithParamInterface<OperatorPlacement> {
 protected:
  std::vector<std::string> serveArguments() override {
    if (GetParam() == OperatorPlacement::InsideServe) {
      return {"--nodes", "3", "--time-scale", kOperatorTimeScale};
    }
    return {"--nodes",       "3",
            "--time-scale",  kOperatorTimeScale,
            "--controllers", kClusterControllersWithoutKubeRay};
  }
  void SetUp() override {
    KubectlTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (GetParam() == OperatorPlacement::OutOfProcess) {
      rayOperator = std::make_unique<ChildProcess>(
          std::vector<std::string>{FAKEKUBE_CLI, "operator", "--kubeconfig", serve->kubeconfig(),
                                   "--time-scale", kOperatorTimeScale});
      auto line = rayOperator->readLine();
      ASSERT_TRUE(line.has_value()) << rayOperator->readAllStderr();
      ASSERT_THAT(*line,
                  ::testing::HasSubstr("fakekube operator: running against " + serve->url()));
    }
  }
  void TearDown() override {
    if (rayOperator) {
      rayOperator->signal(SIGTERM);
      EXPECT_EQ(rayOperator->wait(), 0) << "fakekube operator did not stop cleanly";
    }
    KubectlTest::TearDown();
  }

  std::unique_ptr<ChildProcess> rayOperator;
};

}  // namespace fakekube::e2e
