// Shared fixture of the HTTP facade tests: an ApiServer on a manual clock, an HttpServer on a free
// loopback port over it, and an httplib client. The HTTP threads are real; nothing waits for time
// to pass: tests wait for conditions (a line on a watch stream, a count reaching a value) with a
// generous bound that only stops a broken build from hanging.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "fakekube/apiserver/api_server.h"
#include "fakekube/http/http_server.h"
#include "fakekube/sim/clock.h"
#include "tests/support/object_documents.h"

namespace fakekube::httptest {

// A clock the test moves by hand; safe to read from the server's threads.
class ManualClock final : public Clock {
 public:
  TimePoint now() const override { return TimePoint(Duration(nanos_.load())); }
  void advance(Duration d) { nanos_ += d.count(); }

 private:
  std::atomic<std::int64_t> nanos_{kSimulatedEpoch.time_since_epoch().count()};
};

// The REST path of the ConfigMaps in "default", which most of the tests write to.
inline const std::string kConfigMapsPath = "/api/v1/namespaces/default/configmaps";

// Bounds a wait for a condition that the server's threads make true.
constexpr auto kHangGuard = std::chrono::seconds(30);

template <class Predicate>
bool eventually(Predicate predicate) {
  const auto deadline = std::chrono::steady_clock::now() + kHangGuard;
  while (!predicate()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

inline Json parse(const std::string& body) {
  Json j = Json::parse(body, nullptr, false);
  return j;
}

using ::fakekube::testing::configMap;
using ::fakekube::testing::pod;

// A Deployment of three replicas.
inline Json deployment(const std::string& name, const std::string& ns = "default") {
  return ::fakekube::testing::deployment(name, ns, 3);
}

// widgets.example.com/v1 Widget, with the status subresource and optional printer columns.
inline Json widgetCrd(Json printerColumns = nullptr) {
  Json version = {{"name", "v1"},
                  {"served", true},
                  {"storage", true},
                  {"subresources", {{"status", Json::object()}}},
                  {"schema",
                   {{"openAPIV3Schema",
                     {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}};
  if (!printerColumns.is_null()) version["additionalPrinterColumns"] = printerColumns;
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "widgets.example.com"}}},
          {"spec",
           {{"group", "example.com"},
            {"names",
             {{"plural", "widgets"},
              {"singular", "widget"},
              {"kind", "Widget"},
              {"shortNames", Json::array({"wd"})}}},
            {"scope", "Namespaced"},
            {"versions", Json::array({version})}}}};
}

inline Json widget(const std::string& name, int size = 1) {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec", {{"size", size}}}};
}

// Reads a streamed response body on a thread of its own: its status, its Content-Type and the
// body as far as it arrived.
class StreamReader {
 public:
  StreamReader(int port, std::string path, httplib::Headers headers = {})
      : client_("127.0.0.1", port) {
    client_.set_read_timeout(std::chrono::seconds(60));
    thread_ = std::thread([this, path = std::move(path), headers = std::move(headers)] {
      client_.Get(
          path, headers,
          [this](const httplib::Response& response) {
            std::lock_guard lock(mu_);
            status_ = response.status;
            contentType_ = response.get_header_value("Content-Type");
            return true;
          },
          [this](const char* data, std::size_t length) {
            std::lock_guard lock(mu_);
            body_.append(data, length);
            cv_.notify_all();
            return !disconnect_;
          });
      std::lock_guard lock(mu_);
      finished_ = true;
      cv_.notify_all();
    });
  }
  ~StreamReader() {
    disconnect();
    thread_.join();
  }

  // Waits until `arrived(body)` holds (or the stream ended); returns the body.
  template <class Predicate>
  std::string waitFor(Predicate arrived) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, kHangGuard, [&] { return arrived(body_) || finished_; });
    return body_;
  }
  // Waits until the body is `text` (or the stream ended); returns the body.
  std::string waitForBody(const std::string& text) {
    return waitFor([&](const std::string& body) { return body == text; });
  }
  // Waits until the server ended the stream.
  bool waitForEnd() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kHangGuard, [&] { return finished_; });
  }
  // The client goes away: the next chunk is refused and the socket closed.
  void disconnect() {
    {
      std::lock_guard lock(mu_);
      disconnect_ = true;
    }
    client_.stop();
  }
  bool finished() {
    std::lock_guard lock(mu_);
    return finished_;
  }
  int status() {
    std::lock_guard lock(mu_);
    return status_;
  }
  std::string contentType() {
    std::lock_guard lock(mu_);
    return contentType_;
  }
  std::string body() {
    std::lock_guard lock(mu_);
    return body_;
  }

 private:
  httplib::Client client_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string body_;
  std::string contentType_;
  int status_ = 0;
  bool finished_ = false;
  bool disconnect_ = false;
};

// Reads a watch stream on a thread of its own, line by line: each line one event.
class WatchReader {
 public:
  WatchReader(int port, std::string path, httplib::Headers headers = {})
      : stream_(port, std::move(path), std::move(headers)) {}

  // Waits until `count` events arrived (or the stream ended); returns what arrived.
  std::vector<Json> waitForEvents(std::size_t count) {
    return eventsOf(stream_.waitFor([&](const std::string& body) {
      return static_cast<std::size_t>(std::count(body.begin(), body.end(), '\n')) >= count;
    }));
  }
  // Waits until the server ended the stream.
  bool waitForEnd() { return stream_.waitForEnd(); }
  // The client goes away: the next chunk is refused and the socket closed.
  void disconnect() { stream_.disconnect(); }
  int status() { return stream_.status(); }
  std::vector<Json> events() { return eventsOf(stream_.body()); }

 private:
  // The complete lines of `body`, each parsed (a line that is no JSON: a discarded value).
  static std::vector<Json> eventsOf(const std::string& body) {
    std::vector<Json> events;
    std::size_t start = 0;
    for (auto nl = body.find('\n'); nl != std::string::npos; nl = body.find('\n', start)) {
      events.push_back(Json::parse(body.substr(start, nl - start), nullptr, false));
      start = nl + 1;
    }
    return events;
  }

  StreamReader stream_;
};

class HttpTest : public ::testing::Test {
 protected:
  void SetUp() override { startServer(); }
  void TearDown() override {
    if (http) http->stop();
  }

  void startServer(HttpServerOptions options = {}) {
    if (!api) {
      auto opened = ApiServer::open(clock);
      ASSERT_TRUE(opened) << opened.error().str();
      api = std::move(*opened);
    }
    http = std::make_unique<HttpServer>(*api, std::move(options));
    auto started = http->start();
    ASSERT_TRUE(started) << started.error().str();
    client = std::make_unique<httplib::Client>("127.0.0.1", http->port());
    client->set_read_timeout(std::chrono::seconds(60));
  }

  httplib::Result get(const std::string& path, httplib::Headers headers = {}) {
    return client->Get(path, headers);
  }
  // Creates widgets.example.com (widgetCrd(printerColumns)) over HTTP.
  void installWidgetCrd(Json printerColumns = nullptr) {
    ASSERT_EQ(post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                   widgetCrd(std::move(printerColumns)))
                  ->status,
              201);
  }
  httplib::Result post(const std::string& path, const Json& body) {
    return client->Post(path, body.dump(), "application/json");
  }
  httplib::Result put(const std::string& path, const Json& body) {
    return client->Put(path, body.dump(), "application/json");
  }
  httplib::Result patch(const std::string& path, const std::string& body,
                        const std::string& contentType) {
    return client->Patch(path, body, contentType);
  }
  // The Status document of an error response, checked against its HTTP code.
  // Whether `result` is the Status kube-apiserver answers with: this code, reason and message.
  static ::testing::AssertionResult answeredStatus(const httplib::Result& result, int code,
                                                   std::string_view reason,
                                                   std::string_view message) {
    if (!result) return ::testing::AssertionFailure() << "no response";
    const Json s = parse(result->body);
    if (result->status != code || s.value("kind", "") != "Status" || s.value("code", 0) != code ||
        s.value("reason", "") != reason || s.value("message", "") != message ||
        result->get_header_value("Content-Type") != "application/json") {
      return ::testing::AssertionFailure()
             << "expected a Status " << code << " " << reason << ": " << message << "\nbut got "
             << result->status << " (" << result->get_header_value("Content-Type")
             << "): " << result->body;
    }
    return ::testing::AssertionSuccess();
  }
  static Json status(const httplib::Result& result) {
    Json s = parse(result->body);
    EXPECT_EQ(s.value("kind", ""), "Status") << result->body;
    EXPECT_EQ(s.value("code", 0), result->status) << result->body;
    EXPECT_EQ(result->get_header_value("Content-Type"), "application/json");
    return s;
  }

  ManualClock clock;
  std::unique_ptr<ApiServer> api;
  std::unique_ptr<HttpServer> http;
  std::unique_ptr<httplib::Client> client;
};

}  // namespace fakekube::httptest
