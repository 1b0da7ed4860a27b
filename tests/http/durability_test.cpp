// Durability of `fakekube serve --db FILE` under kill -9: concurrent writers, the server killed
// with SIGKILL mid-stream again and again and restarted on the same file. Every write the server
// acknowledged must be there after the restart, and the store's revision never goes back.
//
// Writers are threads of this process, each with a keep-alive raw HTTP connection: they create
// ConfigMaps, and each also updates a counter ConfigMap of its own with its last resourceVersion
// as precondition. A write counts as acknowledged once its 201/200 answer was read whole. Each
// round kills the server once enough writes were acknowledged in it (waiting on a condition
// variable with a deadline, not sleeping), so the kill lands while every writer is mid-request.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fakekube/api/json.h"
#include "fixtures/raw_http.h"
#include "tests/http/serve_fixture.h"

namespace fakekube::e2e {
namespace {

constexpr int kWriters = 4;
constexpr int kRounds = 10;
constexpr int kAcknowledgedPerRound = 600;  // before the kill

std::string durabilityConfigMap(const std::string& name, const std::string& value,
                                const std::string& resourceVersion = "") {
  std::string metadata = R"({"name":")" + name + "\"";
  if (!resourceVersion.empty()) metadata += R"(,"resourceVersion":")" + resourceVersion + "\"";
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":)" + metadata +
         R"(},"data":{"value":")" + value + "\"}}";
}

// What the writers were told was stored.
struct Acknowledged {
  std::mutex mu;
  std::condition_variable changed;
  std::set<std::string> created;
  std::map<std::string, long> counters;  // counter name -> its last acknowledged value
  std::int64_t highestRevision = 0;
  int inRound = 0;

  void record(const Json& object, bool isCounter) {
    std::lock_guard lock(mu);
    const std::string name = object["metadata"]["name"];
    if (isCounter) {
      counters[name] = std::stol(object["data"]["value"].get<std::string>());
    } else {
      created.insert(name);
    }
    highestRevision = std::max<std::int64_t>(
        highestRevision, std::stoll(object["metadata"]["resourceVersion"].get<std::string>()));
    ++inRound;
    changed.notify_all();
  }
};

// One writer until its connection fails (the server was killed).
void write(const std::string& url, int writer, int round, Acknowledged& acknowledged,
           std::atomic<long>& sequence) {
  try {
    RawConnection connection(url);
    const std::string counter = "counter-" + std::to_string(writer);
    // The counter as the server has it now (created in the first round).
    std::string counterRv;
    long counterValue = 0;
    {
      connection.send(rawRequest("GET", kConfigMapsPath + "/" + counter));
      auto r = connection.read();
      if (!r) return;
      if (r->status == 200) {
        Json object = Json::parse(r->body);
        counterRv = object["metadata"]["resourceVersion"];
        counterValue = std::stol(object["data"]["value"].get<std::string>());
      } else {
        connection.send(rawRequest("POST", kConfigMapsPath, {"Content-Type: application/json"},
                                   durabilityConfigMap(counter, "0")));
        r = connection.read();
        if (!r || r->status != 201) return;
        Json object = Json::parse(r->body);
        acknowledged.record(object, true);
        counterRv = object["metadata"]["resourceVersion"];
      }
    }
    for (long i = 0;; ++i) {
      const bool update = i % 2 == 1;
      std::string request;
      if (update) {
        request =
            rawRequest("PUT", kConfigMapsPath + "/" + counter, {"Content-Type: application/json"},
                       durabilityConfigMap(counter, std::to_string(counterValue + 1), counterRv));
      } else {
        const std::string name = "w" + std::to_string(writer) + "-r" + std::to_string(round) + "-" +
                                 std::to_string(sequence.fetch_add(1));
        request = rawRequest("POST", kConfigMapsPath, {"Content-Type: application/json"},
                             durabilityConfigMap(name, std::to_string(i)));
      }
      if (!connection.send(request)) return;
      auto r = connection.read();
      if (!r) return;  // killed: this write may or may not have been stored
      if (r->status != (update ? 200 : 201)) {
        ADD_FAILURE() << "writer " << writer << ": " << r->status << " " << r->body;
        return;
      }
      Json object = Json::parse(r->body);
      acknowledged.record(object, update);
      if (update) {
        counterRv = object["metadata"]["resourceVersion"];
        ++counterValue;
      }
    }
  } catch (const std::exception&) {
    // The server went away between connecting and sending.
  }
}

TEST(DurabilityTest, EveryAcknowledgedWriteSurvivesRepeatedKillNine) {
  TemporaryDirectory dir;
  const std::string db = dir.path() + "/fakekube.db";
  const std::vector<std::string> args = {"--db", db, "--controllers", "gc", "--nodes", "0"};
  Acknowledged acknowledged;
  std::atomic<long> sequence{0};
  std::int64_t lastRevision = 0;

  for (int round = 0; round <= kRounds; ++round) {
    Serve serve(dir.path(), args);
    // After a restart: every acknowledged write is there, and the revision did not go back.
    {
      RawConnection connection(serve.url());
      ASSERT_TRUE(connection.send(rawRequest("GET", kConfigMapsPath)));
      auto list = connection.read(std::chrono::seconds(30));
      ASSERT_TRUE(list.has_value());
      ASSERT_EQ(list->status, 200);
      Json body = Json::parse(list->body);
      const std::int64_t revision =
          std::stoll(body["metadata"]["resourceVersion"].get<std::string>());
      std::set<std::string> present;
      std::map<std::string, long> counters;
      for (const auto& item : body["items"]) {
        const std::string name = item["metadata"]["name"];
        present.insert(name);
        if (name.rfind("counter-", 0) == 0) {
          counters[name] = std::stol(item["data"]["value"].get<std::string>());
        }
      }
      std::lock_guard lock(acknowledged.mu);
      std::size_t missing = 0;
      for (const auto& name : acknowledged.created) missing += present.count(name) == 0;
      EXPECT_EQ(missing, 0u) << "of " << acknowledged.created.size()
                             << " acknowledged creates, after round " << round;
      for (const auto& [name, value] : acknowledged.counters) {
        EXPECT_GE(counters[name], value) << name << " lost an acknowledged update";
      }
      EXPECT_GE(revision, acknowledged.highestRevision);
      EXPECT_GE(revision, lastRevision) << "the revision went back";
      lastRevision = revision;
      acknowledged.inRound = 0;
    }
    if (round == kRounds) {
      EXPECT_EQ(serve.stop(), 0);
      break;
    }

    std::vector<std::thread> writers;
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back(write, serve.url(), w, round, std::ref(acknowledged),
                           std::ref(sequence));
    }
    {
      std::unique_lock lock(acknowledged.mu);
      const bool enough = acknowledged.changed.wait_for(lock, std::chrono::seconds(10), [&] {
        return acknowledged.inRound >= kAcknowledgedPerRound;
      });
      EXPECT_TRUE(enough) << "only " << acknowledged.inRound << " writes in round " << round;
    }
    serve.kill();
    for (auto& t : writers) t.join();
  }
  std::lock_guard lock(acknowledged.mu);
  EXPECT_GE(acknowledged.created.size(),
            static_cast<std::size_t>(kRounds * kAcknowledgedPerRound / 2));
}

}  // namespace
}  // namespace fakekube::e2e
