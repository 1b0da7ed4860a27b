// Shared fixture of the HTTP facade tests: an ApiServer on a manual clock, an HttpServer on a free
// loopback port over it, and an httplib client. The HTTP threads are real; nothing waits for time
// to pass: tests wait for conditions (a line on a watch stream, a count reaching a value) with a
// generous bound that only stops a broken build from hanging.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "fakekube/apiserver/api_server.h"
#include "fakekube/http/http_server.h"
#include "fakekube/sim/clock.h"

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

inline Json configMap(const std::string& name, const std::string& ns = "default") {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"data", {{"key", "value"}}}};
}

inline Json pod(const std::string& name, const std::string& ns = "default") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"containers", Json::array({{{"name", "main"}, {"image", "nginx:1.27"}}})}}}};
}

inline Json deployment(const std::string& name, const std::string& ns = "default") {
  Json labels = {{"app", name}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"replicas", 3},
            {"selector", {{"matchLabels", labels}}},
            {"template",
             {{"metadata", {{"labels", labels}}},
              {"spec",
               {{"containers", Json::array({{{"name", "main"}, {"image", "nginx:1.27"}}})}}}}}}}};
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

// Reads a watch stream on a thread of its own, line by line.
class WatchReader {
 public:
  WatchReader(int port, std::string path, httplib::Headers headers = {})
      : client_("127.0.0.1", port) {
    client_.set_read_timeout(std::chrono::seconds(60));
    thread_ = std::thread([this, path = std::move(path), headers = std::move(headers)] {
      auto result = client_.Get(
          path, headers,
          [this](const httplib::Response& response) {
            std::lock_guard lock(mu_);
            status_ = response.status;
            return true;
          },
          [this](const char* data, std::size_t length) {
            std::lock_guard lock(mu_);
            buffer_.append(data, length);
            for (auto nl = buffer_.find('\n'); nl != std::string::npos; nl = buffer_.find('\n')) {
              lines_.push_back(Json::parse(buffer_.substr(0, nl), nullptr, false));
              buffer_.erase(0, nl + 1);
            }
            cv_.notify_all();
            return !disconnect_;
          });
      std::lock_guard lock(mu_);
      finished_ = true;
      cv_.notify_all();
    });
  }
  ~WatchReader() {
    disconnect();
    thread_.join();
  }

  // Waits until `count` events arrived (or the stream ended); returns what arrived.
  std::vector<Json> waitForEvents(std::size_t count) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, kHangGuard, [&] { return lines_.size() >= count || finished_; });
    return lines_;
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
  int status() {
    std::lock_guard lock(mu_);
    return status_;
  }
  std::vector<Json> events() {
    std::lock_guard lock(mu_);
    return lines_;
  }

 private:
  httplib::Client client_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string buffer_;
  std::vector<Json> lines_;
  int status_ = 0;
  bool finished_ = false;
  bool disconnect_ = false;
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
