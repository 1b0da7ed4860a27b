// The real kubectl against `fakekube serve`, sending objects kube-apiserver refuses: kubectl
// prints the 422's message as it prints a real cluster's, and nothing is created.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

using ::testing::HasSubstr;

class KubectlValidationTest : public KubectlTest {};

constexpr const char* kPodWithBadPullPolicy = R"yaml(
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: main
    image: nginx:1.27
    imagePullPolicy: "!invalid!"
)yaml";

TEST_F(KubectlValidationTest, CreatePodWithUnsupportedImagePullPolicyPrintsTheInvalidCause) {
  ProcessResult created = kubectl({"create", "-f", "-"}, kPodWithBadPullPolicy);
  EXPECT_NE(created.exitCode, 0);
  EXPECT_THAT(created.err, HasSubstr("Pod \"p\" is invalid: "));
  EXPECT_THAT(created.err,
              HasSubstr("spec.containers[0].imagePullPolicy: Unsupported value: \"!invalid!\": "
                        "supported values: \"Always\", \"IfNotPresent\", \"Never\""));
  ProcessResult got = kubectl({"get", "pod", "p"});
  EXPECT_NE(got.exitCode, 0);
  EXPECT_THAT(got.err, HasSubstr("pods \"p\" not found"));
}

TEST_F(KubectlValidationTest, CreateDeploymentWithNegativeReplicasIsRefused) {
  ProcessResult created =
      kubectl({"create", "deployment", "web", "--image=nginx:1.27", "--replicas=-1"});
  EXPECT_NE(created.exitCode, 0);
  EXPECT_THAT(created.err, HasSubstr("spec.replicas: Invalid value: -1: must be greater than or "
                                     "equal to 0"));
}

}  // namespace
}  // namespace fakekube::e2e
