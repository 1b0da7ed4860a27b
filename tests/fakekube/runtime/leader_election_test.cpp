#include "fakekube/runtime/leader_election.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fakekube/api/resources.h"
#include "fakekube/apiserver/fixture.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube {
namespace {

using apitest::must;
using std::chrono::seconds;
using ::testing::ElementsAre;

// One replica's view of the API server: forwards to the shared client, and lets a test make this
// replica's reads stale (scripted answers to its next gets) or its writes fail, and see what its
// writes answered.
class ReplicaClient final : public Client {
 public:
  explicit ReplicaClient(Client& inner) : inner_(inner) {}

  // The next get answers this instead of asking the server (a lagging read).
  void scriptGet(Result<Json> answer) { scripted_.push_back(std::move(answer)); }
  // While set, creates and updates fail with 503 without reaching the server (a partition).
  bool failWrites = false;
  // The reason of every failed create/update, in order ("Conflict", "AlreadyExists", ...).
  std::vector<std::string> writeErrors;

  Result<Json> get(const GroupVersionResource& gvr, std::string_view ns,
                   std::string_view name) override {
    if (!scripted_.empty()) {
      Result<Json> answer = std::move(scripted_.front());
      scripted_.pop_front();
      return answer;
    }
    return inner_.get(gvr, ns, name);
  }
  Result<Json> list(const GroupVersionResource& gvr, std::string_view ns,
                    const ListOptions& options) override {
    return inner_.list(gvr, ns, options);
  }
  Result<Json> create(const GroupVersionResource& gvr, Json object,
                      const CreateOptions& options) override {
    return recorded(failWrites ? unavailable() : inner_.create(gvr, std::move(object), options));
  }
  Result<Json> update(const GroupVersionResource& gvr, Json object,
                      const UpdateOptions& options) override {
    return recorded(failWrites ? unavailable() : inner_.update(gvr, std::move(object), options));
  }
  Result<Json> updateStatus(const GroupVersionResource& gvr, Json object,
                            const UpdateOptions& options) override {
    return inner_.updateStatus(gvr, std::move(object), options);
  }
  Result<Json> patch(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
                     PatchType type, std::string patch, const PatchOptions& options,
                     std::string subresource) override {
    return inner_.patch(gvr, ns, name, type, std::move(patch), options, std::move(subresource));
  }
  Result<Json> deleteObject(const GroupVersionResource& gvr, std::string_view ns,
                            std::string_view name, const DeleteOptions& options) override {
    return inner_.deleteObject(gvr, ns, name, options);
  }
  Result<void> deleteAllOf(const GroupVersionResource& gvr, std::string_view ns,
                           const ListOptions& listOptions,
                           const DeleteOptions& deleteOptions) override {
    return inner_.deleteAllOf(gvr, ns, listOptions, deleteOptions);
  }
  Result<std::shared_ptr<Watch>> watch(const GroupVersionResource& gvr, std::string_view ns,
                                       const WatchOptions& options) override {
    return inner_.watch(gvr, ns, options);
  }

 private:
  static Result<Json> unavailable() {
    return tl::unexpected(Status::serviceUnavailable("partitioned"));
  }
  Result<Json> recorded(Result<Json> r) {
    if (!r) writeErrors.push_back(r.error().reason);
    return r;
  }

  Client& inner_;
  std::deque<Result<Json>> scripted_;
};

// One replica of a controller manager: its client, its elector and what its callbacks saw.
struct Replica {
  Replica(Client& shared, SimExecutor& ex, const std::string& identity) : client(shared), ex(ex) {
    LeaderElectionConfig config;
    config.leaseNamespace = "kube-system";
    config.leaseName = "my-controller";
    config.identity = identity;
    config.onStartedLeading = [this] { started.push_back(this->ex.now()); };
    config.onStoppedLeading = [this] { stopped.push_back(this->ex.now()); };
    config.onNewLeader = [this](const std::string& who) { leaders.push_back(who); };
    elector = std::make_unique<LeaderElector>(client, ex, std::move(config));
  }

  ReplicaClient client;
  SimExecutor& ex;
  std::vector<TimePoint> started;
  std::vector<TimePoint> stopped;
  std::vector<std::string> leaders;
  std::unique_ptr<LeaderElector> elector;
};

TimePoint parsed(const std::string& text) {
  TimePoint t;
  EXPECT_TRUE(parseRfc3339(text, &t)) << text;
  return t;
}

class LeaderElectionTest : public apitest::ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    client = std::make_unique<InProcessClient>(*server);
  }

  std::unique_ptr<Replica> replica(const std::string& identity) {
    return std::make_unique<Replica>(*client, ex, identity);
  }
  Json lease() { return get(kLeases, "kube-system", "my-controller"); }
  Json spec() { return lease()["spec"]; }
  TimePoint at(Duration d) const { return kSimulatedEpoch + d; }

  std::unique_ptr<InProcessClient> client;
};

TEST_F(LeaderElectionTest, OfTwoCandidatesOneLeads) {
  auto a = replica("a");
  auto b = replica("b");
  a->elector->start();
  b->elector->start();
  ex.runUntilIdle();

  EXPECT_TRUE(a->elector->isLeader());
  EXPECT_FALSE(b->elector->isLeader());
  EXPECT_THAT(a->started, ElementsAre(at(seconds(0))));
  EXPECT_TRUE(b->started.empty());
  EXPECT_THAT(a->leaders, ElementsAre("a"));
  EXPECT_THAT(b->leaders, ElementsAre("a"));
  EXPECT_EQ(b->elector->leader(), "a");

  // The lease as client-go writes it on acquiring a lease nobody held.
  Json s = spec();
  EXPECT_EQ(s["holderIdentity"], "a");
  EXPECT_EQ(s["leaseDurationSeconds"], 15);
  EXPECT_EQ(s["acquireTime"], "2024-01-01T00:00:00.000000Z");
  EXPECT_EQ(s["renewTime"], "2024-01-01T00:00:00.000000Z");
  EXPECT_EQ(s["leaseTransitions"], 0);
}

TEST_F(LeaderElectionTest, FollowerDoesNotTakeOverWhileTheLeaderRenews) {
  auto a = replica("a");
  auto b = replica("b");
  a->elector->start();
  b->elector->start();
  ex.advance(seconds(61));

  EXPECT_TRUE(a->elector->isLeader());
  EXPECT_FALSE(b->elector->isLeader());
  EXPECT_TRUE(b->started.empty());
  EXPECT_TRUE(a->stopped.empty());
  EXPECT_THAT(b->leaders, ElementsAre("a"));
  // Renewed every RetryPeriod; acquired once.
  Json s = spec();
  EXPECT_EQ(s["renewTime"], formatRfc3339Micro(at(seconds(60))));
  EXPECT_EQ(s["acquireTime"], formatRfc3339Micro(at(seconds(0))));
  EXPECT_EQ(s["leaseTransitions"], 0);
}

TEST_F(LeaderElectionTest, WhenTheLeaderCrashesTheOtherTakesOverOnceTheLeaseExpires) {
  auto a = replica("a");
  auto b = replica("b");
  a->elector->start();
  b->elector->start();
  ex.advance(seconds(61));
  ASSERT_TRUE(a->elector->isLeader());
  const TimePoint lastRenew = parsed(spec()["renewTime"]);
  ASSERT_EQ(lastRenew, at(seconds(60)));

  a->elector->crash();
  EXPECT_FALSE(a->elector->isLeader());
  // Killed: the lease still names it, and no callback ran.
  EXPECT_EQ(spec()["holderIdentity"], "a");
  EXPECT_TRUE(a->stopped.empty());

  ASSERT_TRUE(ex.runUntil([&] { return b->elector->isLeader(); }, seconds(60)));
  const TimePoint takeover = ex.now();
  EXPECT_GE(takeover - lastRenew, seconds(15));
  EXPECT_LE(takeover - lastRenew, seconds(15) + seconds(2));
  EXPECT_THAT(b->started, ElementsAre(takeover));
  EXPECT_THAT(b->leaders, ElementsAre("a", "b"));

  Json s = spec();
  EXPECT_EQ(s["holderIdentity"], "b");
  EXPECT_EQ(s["leaseTransitions"], 1);
  EXPECT_EQ(s["acquireTime"], formatRfc3339Micro(takeover));
  EXPECT_EQ(s["renewTime"], formatRfc3339Micro(takeover));

  // A crashed elector does nothing more.
  ex.advance(seconds(60));
  EXPECT_EQ(spec()["holderIdentity"], "b");
  EXPECT_TRUE(a->started.size() == 1 && a->stopped.empty());
}

TEST_F(LeaderElectionTest, LeaseTransitionsCountEveryChangeOfHands) {
  auto a = replica("a");
  auto b = replica("b");
  a->elector->start();
  b->elector->start();
  ex.runUntilIdle();
  a->elector->crash();
  ASSERT_TRUE(ex.runUntil([&] { return b->elector->isLeader(); }, seconds(30)));
  EXPECT_EQ(spec()["leaseTransitions"], 1);

  a->elector->start();  // the restarted process, same identity
  b->elector->crash();
  ASSERT_TRUE(ex.runUntil([&] { return a->elector->isLeader(); }, seconds(30)));
  EXPECT_EQ(spec()["leaseTransitions"], 2);
  EXPECT_EQ(spec()["holderIdentity"], "a");
}

TEST_F(LeaderElectionTest, ACleanStopReleasesTheLeaseAndTheOtherTakesItAtItsNextRetry) {
  auto a = replica("a");
  auto b = replica("b");
  a->elector->start();
  b->elector->start();
  ex.advance(seconds(5));
  ASSERT_TRUE(a->elector->isLeader());

  a->elector->stop();
  const TimePoint stoppedAt = ex.now();
  EXPECT_FALSE(a->elector->isLeader());
  EXPECT_FALSE(a->elector->running());
  EXPECT_THAT(a->stopped, ElementsAre(stoppedAt));
  // ReleaseOnCancel, as client-go writes it.
  Json s = spec();
  EXPECT_EQ(s["holderIdentity"], "");
  EXPECT_EQ(s["leaseDurationSeconds"], 1);
  EXPECT_EQ(s["renewTime"], formatRfc3339Micro(stoppedAt));
  EXPECT_EQ(s["leaseTransitions"], 0);

  ASSERT_TRUE(ex.runUntil([&] { return b->elector->isLeader(); }, seconds(2)));
  EXPECT_LE(ex.now() - stoppedAt, seconds(2));
  EXPECT_EQ(spec()["holderIdentity"], "b");
  EXPECT_EQ(spec()["leaseTransitions"], 1);

  // Stopping again, or stopping a follower, does nothing.
  a->elector->stop();
  EXPECT_EQ(a->stopped.size(), 1u);
}

TEST_F(LeaderElectionTest, ALeaderThatCannotRenewStepsDownWithinTheRenewDeadline) {
  auto a = replica("a");
  auto b = replica("b");
  a->elector->start();
  b->elector->start();
  ex.advance(seconds(21));
  const TimePoint lastRenew = at(seconds(20));
  a->client.failWrites = true;

  ASSERT_TRUE(ex.runUntil([&] { return !a->elector->isLeader(); }, seconds(30)));
  EXPECT_THAT(a->stopped, ElementsAre(lastRenew + seconds(10)));
  EXPECT_FALSE(a->elector->running());
  EXPECT_FALSE(a->client.writeErrors.empty());

  // The follower waits for the lease to expire, so the two never lead at once.
  ASSERT_TRUE(ex.runUntil([&] { return b->elector->isLeader(); }, seconds(30)));
  ASSERT_EQ(b->started.size(), 1u);
  EXPECT_GE(b->started[0] - lastRenew, seconds(15));
  EXPECT_LT(a->stopped[0], b->started[0]);
}

TEST_F(LeaderElectionTest, ALeaderThatFindsTheLeaseTakenStepsDownAtOnce) {
  auto a = replica("a");
  a->elector->start();
  ex.runUntilIdle();
  // Someone else holds a fresh lease (as if `a` had stalled past its expiry).
  Json taken = lease();
  taken["spec"]["holderIdentity"] = "intruder";
  must(client->update(kLeases, taken));

  ex.advance(seconds(2));
  EXPECT_FALSE(a->elector->isLeader());
  EXPECT_THAT(a->stopped, ElementsAre(at(seconds(2))));
  EXPECT_THAT(a->leaders, ElementsAre("a", "intruder"));
}

TEST_F(LeaderElectionTest, TwoCandidatesRacingToCreateTheLeaseExactlyOneWins) {
  // Both read "no lease" before either creates it; whichever writes second gets AlreadyExists.
  // Seeds vary which of the two runs first.
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(seed);
    SimExecutor sim(SimExecutor::Options{seed});
    ApiServerOptions options;
    options.seed = 42;
    auto opened = ApiServer::open(sim.clock(), options);
    ASSERT_TRUE(opened.has_value());
    InProcessClient shared(**opened);
    Replica a(shared, sim, "a");
    Replica b(shared, sim, "b");
    const auto notFound = Status::notFound({"coordination.k8s.io", "leases"}, "my-controller");
    a.client.scriptGet(tl::unexpected(notFound));
    b.client.scriptGet(tl::unexpected(notFound));
    a.elector->start();
    b.elector->start();
    sim.runUntilIdle();

    ASSERT_NE(a.elector->isLeader(), b.elector->isLeader());
    Replica& winner = a.elector->isLeader() ? a : b;
    Replica& loser = a.elector->isLeader() ? b : a;
    EXPECT_TRUE(winner.client.writeErrors.empty());
    EXPECT_THAT(loser.client.writeErrors, ElementsAre("AlreadyExists"));

    sim.advance(seconds(30));
    EXPECT_TRUE(winner.elector->isLeader());
    EXPECT_FALSE(loser.elector->isLeader());
    EXPECT_THAT(loser.leaders, ElementsAre(winner.elector->config().identity));
  }
}

TEST_F(LeaderElectionTest, TwoCandidatesRacingForAReleasedLeaseExactlyOneWins) {
  auto a = replica("a");
  auto b = replica("b");
  auto c = replica("c");
  a->elector->start();
  b->elector->start();
  c->elector->start();
  ex.advance(seconds(1));
  a->elector->stop();
  // `c` reads the released lease too, but only after `b` has written it: its update carries a
  // resourceVersion that is no longer current.
  c->client.scriptGet(lease());

  ex.advance(seconds(1));
  EXPECT_TRUE(b->elector->isLeader());
  EXPECT_FALSE(c->elector->isLeader());
  EXPECT_THAT(c->client.writeErrors, ElementsAre("Conflict"));
  EXPECT_EQ(spec()["holderIdentity"], "b");

  ex.advance(seconds(30));
  EXPECT_TRUE(b->elector->isLeader());
  EXPECT_FALSE(c->elector->isLeader());
  EXPECT_THAT(c->leaders, ElementsAre("a", "b"));
}

TEST_F(LeaderElectionTest, RejectsConfigsClientGoRejects) {
  auto make = [&](auto edit) {
    LeaderElectionConfig config;
    config.leaseName = "l";
    config.identity = "a";
    edit(config);
    return LeaderElector(*client, ex, std::move(config));
  };
  EXPECT_NO_THROW(make([](LeaderElectionConfig&) {}));
  EXPECT_THROW(make([](LeaderElectionConfig& c) { c.identity = ""; }), std::invalid_argument);
  EXPECT_THROW(make([](LeaderElectionConfig& c) { c.leaseName = ""; }), std::invalid_argument);
  EXPECT_THROW(make([](LeaderElectionConfig& c) { c.renewDeadline = seconds(15); }),
               std::invalid_argument);
  EXPECT_THROW(make([](LeaderElectionConfig& c) { c.retryPeriod = seconds(9); }),
               std::invalid_argument);
  EXPECT_THROW(make([](LeaderElectionConfig& c) { c.retryPeriod = Duration::zero(); }),
               std::invalid_argument);
}

}  // namespace
}  // namespace fakekube
