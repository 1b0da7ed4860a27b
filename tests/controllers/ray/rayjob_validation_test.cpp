// validateRayJob's rules, one by one, with KubeRay's messages (rayjob_controller_unit_test.go
// TestValidateRayJobSpec / TestValidateRayJobStatus and validation_test.go's RayJob cases).
#include "controllers/ray/internal/rayjob_validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/controllers/ray/ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

TEST(RayJobValidationTest, TheTemplateIsValid) {
  EXPECT_EQ(validateRayJobMetadata(rayJobTemplate("ok")), std::nullopt);
  EXPECT_EQ(validateRayJobSpec(rayJobTemplate("ok")), std::nullopt);
  EXPECT_EQ(validateRayJobStatus(rayJobTemplate("ok")), std::nullopt);
}

TEST(RayJobValidationTest, MetadataNameMustBeADns1035Label) {
  EXPECT_THAT(validateRayJobMetadata(rayJobTemplate("1job")),
              Optional(HasSubstr("RayJob name should be a valid DNS1035 label")));
}

TEST(RayJobValidationTest, TtlNeedsShutdownAfterJobFinishes) {
  Json job = rayJobTemplate("ttl");
  job["spec"]["shutdownAfterJobFinishes"] = false;
  job["spec"]["ttlSecondsAfterFinished"] = 10;
  EXPECT_THAT(validateRayJobSpec(job),
              Optional(std::string("The RayJob spec is invalid: a RayJob with "
                                   "shutdownAfterJobFinishes set to false cannot have "
                                   "TTLSecondsAfterFinished")));
  job["spec"]["shutdownAfterJobFinishes"] = true;
  job["spec"]["ttlSecondsAfterFinished"] = -1;
  EXPECT_THAT(validateRayJobSpec(job), Optional(HasSubstr("must be a non-negative integer")));
}

TEST(RayJobValidationTest, ClusterSelectorRules) {
  Json job = rayJobTemplate("selector");
  job["spec"].erase("rayClusterSpec");
  EXPECT_THAT(validateRayJobSpec(job),
              Optional(HasSubstr("one of RayClusterSpec or ClusterSelector must be set")));
  job["spec"]["clusterSelector"] = {{"ray.io/cluster", ""}};
  EXPECT_THAT(validateRayJobSpec(job),
              Optional(std::string("cluster name in ClusterSelector should not be empty")));
  job["spec"]["clusterSelector"] = {{"ray.io/cluster", "shared"}};
  job["spec"]["backoffLimit"] = 1;
  EXPECT_THAT(validateRayJobSpec(job),
              Optional(HasSubstr("BackoffLimit is incompatible with ClusterSelector mode")));
  job["spec"].erase("backoffLimit");
  EXPECT_EQ(validateRayJobSpec(job), std::nullopt);
}

TEST(RayJobValidationTest, InteractiveModeHasNoBackoffLimit) {
  Json job = rayJobTemplate("interactive");
  job["spec"]["submissionMode"] = "InteractiveMode";
  job["spec"]["backoffLimit"] = 1;
  EXPECT_THAT(validateRayJobSpec(job),
              Optional(HasSubstr("BackoffLimit is incompatible with InteractiveMode")));
}

TEST(RayJobValidationTest, DeadlinesArePositive) {
  Json job = rayJobTemplate("deadlines");
  job["spec"]["activeDeadlineSeconds"] = 0;
  EXPECT_THAT(validateRayJobSpec(job),
              Optional(HasSubstr("activeDeadlineSeconds must be a positive integer")));
  job["spec"]["activeDeadlineSeconds"] = 5;
  job["spec"]["preRunningDeadlineSeconds"] = -3;
  EXPECT_THAT(validateRayJobSpec(job),
              Optional(HasSubstr("preRunningDeadlineSeconds must be a positive integer")));
}

TEST(RayJobValidationTest, RuntimeEnvYamlMustParse) {
  Json job = rayJobTemplate("env");
  job["spec"]["runtimeEnvYAML"] = "pip: [unclosed";
  EXPECT_THAT(validateRayJobSpec(job), Optional(HasSubstr("failed to unmarshal RuntimeEnvYAML")));
}

TEST(RayJobValidationTest, DeletionRules) {
  Json job = rayJobTemplate("rules");
  job["spec"]["shutdownAfterJobFinishes"] = false;
  job["spec"]["deletionStrategy"] = {
      {"deletionRules",
       Json::array({{{"policy", "DeleteCluster"},
                     {"condition", {{"jobStatus", "FAILED"}, {"ttlSeconds", 10}}}},
                    {{"policy", "DeleteWorkers"},
                     {"condition", {{"jobStatus", "FAILED"}, {"ttlSeconds", 20}}}}})}};
  EXPECT_THAT(validateRayJobSpec(job),
              Optional(std::string("for JobStatus 'FAILED': DeleteCluster TTL (10) must be >= "
                                   "DeleteWorkers TTL (20)")));
  job["spec"]["deletionStrategy"]["deletionRules"][1]["condition"]["ttlSeconds"] = 5;
  EXPECT_EQ(validateRayJobSpec(job), std::nullopt);
  job["spec"]["shutdownAfterJobFinishes"] = true;
  EXPECT_THAT(validateRayJobSpec(job), Optional(HasSubstr("are mutually exclusive")));
  job["spec"]["shutdownAfterJobFinishes"] = false;
  job["spec"]["deletionStrategy"]["deletionRules"][0]["condition"]["jobDeploymentStatus"] =
      "Failed";
  EXPECT_THAT(validateRayJobSpec(job),
              Optional(HasSubstr("deletionRules[0]: cannot set both JobStatus and "
                                 "JobDeploymentStatus at the same time")));
}

TEST(RayJobValidationTest, LegacyDeletionPolicies) {
  Json job = rayJobTemplate("legacy");
  job["spec"]["deletionStrategy"] = {{"onSuccess", {{"policy", "DeleteCluster"}}}};
  EXPECT_THAT(validateRayJobSpec(job),
              Optional(HasSubstr("both DeletionStrategy.OnSuccess and DeletionStrategy.OnFailure "
                                 "must be set")));
  job["spec"]["deletionStrategy"]["onFailure"] = {{"policy", "DeleteNone"}};
  EXPECT_THAT(validateRayJobSpec(job),
              Optional(HasSubstr("shutdownAfterJobFinshes is set to 'true' while deletion policy "
                                 "is 'DeleteNone'")));
  job["spec"]["deletionStrategy"]["onFailure"] = {{"policy", "DeleteSelf"}};
  EXPECT_EQ(validateRayJobSpec(job), std::nullopt);
}

TEST(RayJobValidationTest, WaitingOnlyInInteractiveMode) {
  Json job = rayJobTemplate("waiting");
  job["status"] = {{"jobDeploymentStatus", "Waiting"}};
  EXPECT_THAT(validateRayJobStatus(job),
              Optional(HasSubstr("JobDeploymentStatus cannot be `Waiting` when SubmissionMode is "
                                 "not InteractiveMode")));
  job["spec"]["submissionMode"] = "InteractiveMode";
  EXPECT_EQ(validateRayJobStatus(job), std::nullopt);
}

}  // namespace
}  // namespace fakekube::ray::testing
