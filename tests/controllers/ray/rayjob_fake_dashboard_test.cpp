// A test's own dashboard client, installed through OperatorOptions::dashboardClients, as KubeRay's
// RayJob tests install their FakeRayDashboardClient (utils.FakeRayDashboardClient, through the
// reconciler's ClientProvider): the RayJob controller submits, watches and stops the Ray job
// through the fake alone, and the job's life is whatever the test makes the fake answer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "controllers/ray/dashboard_client.h"
#include "controllers/ray/operator_options.h"
#include "controllers/ray/ray_operator.h"
#include "controllers/ray/rayjob_types.h"
#include "ray_fixture.h"

namespace fakekube::ray::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// What the fake dashboard knows: the jobs by submission id, and the calls it was asked.
struct FakeDashboardState {
  std::map<std::string, RayJobInfo> jobs;
  std::vector<RayJobRequest> submitted;
  std::vector<std::string> stopped;
  // The dashboardURL each client was made for.
  std::vector<std::string> urls;
};

// The Jobs API as a Ray head answers it, from FakeDashboardState: an unknown job is the 400
// "Job <id> does not exist on the cluster" DashboardClient answers for the dashboard's 404.
class FakeRayDashboardClient : public RayDashboardClientInterface {
 public:
  explicit FakeRayDashboardClient(std::shared_ptr<FakeDashboardState> state)
      : state_(std::move(state)) {}

  Result<RayJobInfo> getJobInfo(std::string_view jobId) override {
    auto job = state_->jobs.find(std::string(jobId));
    if (job == state_->jobs.end()) {
      return tl::unexpected(
          Status::badRequest("Job " + std::string(jobId) + " does not exist on the cluster"));
    }
    return job->second;
  }
  Result<std::vector<RayJobInfo>> listJobs() override {
    std::vector<RayJobInfo> jobs;
    for (const auto& [id, job] : state_->jobs) jobs.push_back(job);
    return jobs;
  }
  Result<std::string> submitJobRequest(const RayJobRequest& request) override {
    state_->submitted.push_back(request);
    RayJobInfo job;
    job.jobStatus = "PENDING";
    job.entrypoint = request.entrypoint;
    job.submissionId = request.submissionId;
    state_->jobs[request.submissionId] = job;
    return request.submissionId;
  }
  Result<std::optional<std::string>> getJobLog(std::string_view) override {
    return std::optional<std::string>();
  }
  Result<void> stopJob(std::string_view jobId) override {
    state_->stopped.emplace_back(jobId);
    return {};
  }
  Result<void> deleteJob(std::string_view) override { return {}; }

 private:
  std::shared_ptr<FakeDashboardState> state_;
};

class RayJobFakeDashboardTest : public RayJobTest {
 protected:
  // The operator as a user's test starts it: its options carry the fake's factory.
  void startOperatorWithFakeDashboard() {
    OperatorOptions options;
    options.randomSeed = 7;
    options.dashboardClients = [state = fake](const Json&, const std::string& url)
        -> Result<std::unique_ptr<RayDashboardClientInterface>> {
      state->urls.push_back(url);
      return std::make_unique<FakeRayDashboardClient>(state);
    };
    manager = std::make_unique<Manager>(ex, *server);
    auto added = addRayOperator(*manager, {"raycluster", "rayjob"}, options);
    ASSERT_TRUE(added.has_value()) << added.error().message;
    manager->start();
    ex.runUntilIdle();
  }
  // Sets the status the fake reports for `jobId`.
  void fakeReports(const std::string& jobId, const std::string& status) {
    ASSERT_TRUE(fake->jobs.contains(jobId)) << jobId << " was never submitted";
    fake->jobs[jobId].jobStatus = status;
  }

  std::shared_ptr<FakeDashboardState> fake = std::make_shared<FakeDashboardState>();
};

// rayjob_controller_unit_test.go's fake-dashboard cases, end to end: in HTTPMode the controller
// submits through the fake once the RayCluster is ready, follows the status the fake reports, and
// completes the RayJob when the fake says SUCCEEDED.
TEST_F(RayJobFakeDashboardTest, TheRayJobCompletesWhenTheFakeDashboardReportsSucceeded) {
  startOperatorWithFakeDashboard();
  Json job = rayJobTemplate("faked", "python /app/train.py", 1);
  job["spec"]["submissionMode"] = "HTTPMode";
  create(kRayJobs, job);

  ASSERT_TRUE(runUntil([&] { return !fake->submitted.empty(); }, seconds(120)));
  const std::string jobId = statusOf("faked", "jobId");
  ASSERT_FALSE(jobId.empty());
  ASSERT_EQ(fake->submitted.size(), 1u);
  EXPECT_EQ(fake->submitted[0].submissionId, jobId);
  EXPECT_EQ(fake->submitted[0].entrypoint, "python /app/train.py");
  EXPECT_EQ(fake->urls.back(), statusOf("faked", "dashboardURL"));
  // The simulated head itself never saw the job: the submission went to the fake alone.
  auto headJobs = dashboardOf("faked").listJobs();
  ASSERT_TRUE(headJobs.has_value()) << headJobs.error().str();
  EXPECT_THAT(*headJobs, IsEmpty());

  fakeReports(jobId, "RUNNING");
  ASSERT_TRUE(runUntil([&] { return statusOf("faked", "jobStatus") == "RUNNING"; }, seconds(30)));
  EXPECT_EQ(deploymentStatus("faked"), kJobDeploymentStatusRunning);

  fakeReports(jobId, "SUCCEEDED");
  ASSERT_TRUE(runUntilDeploymentStatus("faked", kJobDeploymentStatusComplete, seconds(30)));
  EXPECT_EQ(statusOf("faked", "jobStatus"), "SUCCEEDED");
  EXPECT_EQ(counterOf("faked", "succeeded"), 1);
  EXPECT_THAT(fake->stopped, IsEmpty());
}

// The finalizer's StopJob of a running job reaches the fake too ("Delete a running RayJob").
TEST_F(RayJobFakeDashboardTest, DeletingARunningRayJobStopsItThroughTheFakeDashboard) {
  startOperatorWithFakeDashboard();
  Json job = rayJobTemplate("faked-delete", "python /app/train.py", 1);
  job["spec"]["submissionMode"] = "HTTPMode";
  create(kRayJobs, job);
  ASSERT_TRUE(runUntil([&] { return !fake->submitted.empty(); }, seconds(120)));
  const std::string jobId = statusOf("faked-delete", "jobId");
  fakeReports(jobId, "RUNNING");
  ASSERT_TRUE(
      runUntil([&] { return statusOf("faked-delete", "jobStatus") == "RUNNING"; }, seconds(30)));

  ASSERT_TRUE(client->deleteObject(kRayJobs, "default", "faked-delete").has_value());
  ASSERT_TRUE(runUntil([&] { return !exists(kRayJobs, "default", "faked-delete"); }, seconds(30)));
  EXPECT_THAT(fake->stopped, ElementsAre(jobId));
}

}  // namespace
}  // namespace fakekube::ray::testing
