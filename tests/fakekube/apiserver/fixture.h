// Shared fixture of the API server tests: an ApiServer over an in-memory store whose clock is a
// SimExecutor's virtual clock (2024-01-01T00:00:00Z at start, moved only by ex.advance()), object
// builders, and a `Widget` custom resource (widgets.example.com, namespaced, v1).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/api/status.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/sim/sim_executor.h"
#include "tests/support/object_documents.h"

namespace fakekube::apitest {

inline const GroupVersionResource kWidgets{"example.com", "v1", "widgets"};

using ::fakekube::testing::configMap;
using ::fakekube::testing::pod;

inline Json namespaceObject(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
}

using ::fakekube::testing::deployment;

// A workload of apps/v1 `kind` (DaemonSet, StatefulSet) in the shape of deployment(), which
// these kinds share but for the replicas.
inline Json appsWorkload(const std::string& kind, const std::string& name) {
  Json object = deployment(name);
  object["kind"] = kind;
  object["spec"].erase("replicas");
  return object;
}

// The CustomResourceDefinition of <plural>.example.com/v1, namespaced, kind `kind`, its one
// version served and stored with the status subresource and `schema` as its openAPIV3Schema.
inline Json exampleComCrd(const std::string& plural, const std::string& singular,
                          const std::string& kind, Json schema) {
  return {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", plural + ".example.com"}}},
      {"spec",
       {{"group", "example.com"},
        {"names",
         {{"plural", plural}, {"singular", singular}, {"kind", kind}, {"listKind", kind + "List"}}},
        {"scope", "Namespaced"},
        {"versions", Json::array({{{"name", "v1"},
                                   {"served", true},
                                   {"storage", true},
                                   {"subresources", {{"status", Json::object()}}},
                                   {"schema", {{"openAPIV3Schema", std::move(schema)}}}}})}}}};
}

// The CustomResourceDefinition of widgets.example.com/v1, kind Widget, with or without the status
// subresource.
inline Json widgetCrd(bool statusSubresource = true) {
  Json crd = exampleComCrd("widgets", "widget", "Widget",
                           {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}});
  if (!statusSubresource) crd["spec"]["versions"][0].erase("subresources");
  return crd;
}

inline Json widget(const std::string& name, const std::string& ns = "default") {
  return {{"apiVersion", "example.com/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"size", 1}}}};
}

// The value of a Result, or a test failure (thrown: GoogleTest reports it with the Status).
template <class T>
T must(Result<T> result, std::string_view what = "request") {
  if (!result) {
    ADD_FAILURE() << what << " failed: " << result.error().str();
    throw std::runtime_error(std::string(what) + " failed: " + result.error().str());
  }
  return std::move(*result);
}

// Whether `result` is the error with exactly this code, reason and message.
// The server answers shared documents and lists; tests read them as the JSON a client sees.
inline Json must(Result<ObjectPtr> result, std::string_view what = "request") {
  return *must<ObjectPtr>(std::move(result), what);
}
inline Json must(Result<ObjectList> result, std::string_view what = "request") {
  return must<ObjectList>(std::move(result), what).toJson();
}

inline std::string describeValue(const ObjectPtr& object) {
  return object ? object->dump() : "null";
}
inline std::string describeValue(const ObjectList& list) { return list.toJson().dump(); }
inline std::string describeValue(const DeleteResult& result) {
  return describeValue(result.object);
}
inline std::string describeValue(const Json& json) { return json.dump(); }
inline std::string describeValue(const std::shared_ptr<Watch>&) { return "a watch"; }

// Whether `result` is the error with this code and reason, and the message `message` (all of it,
// or, with `wholeMessage` false, its beginning).
template <class T>
::testing::AssertionResult failsWithStatus(const Result<T>& result, int code,
                                           std::string_view reason, std::string_view message,
                                           bool wholeMessage) {
  if (result) {
    return ::testing::AssertionFailure()
           << "expected " << code << " " << reason << ", but the request succeeded with "
           << describeValue(*result);
  }
  const Status& s = result.error();
  const bool messageMatches = wholeMessage ? s.message == message : s.message.starts_with(message);
  if (s.code != code || s.reason != reason || !messageMatches || s.status != "Failure") {
    return ::testing::AssertionFailure()
           << "expected\n  " << code << " " << reason << ": " << message
           << (wholeMessage ? "" : "...") << "\nbut got\n  " << s.code << " " << s.reason << ": "
           << s.message << " (status " << s.status << ")";
  }
  return ::testing::AssertionSuccess();
}

template <class T>
::testing::AssertionResult failsWith(const Result<T>& result, int code, std::string_view reason,
                                     std::string_view message) {
  return failsWithStatus(result, code, reason, message, /*wholeMessage=*/true);
}

// The same where only the beginning of the message is kube-apiserver's (the rest is a decoder's
// words, which the test does not pin).
template <class T>
::testing::AssertionResult failsWithMessageStarting(const Result<T>& result, int code,
                                                    std::string_view reason,
                                                    std::string_view messagePrefix) {
  return failsWithStatus(result, code, reason, messagePrefix, /*wholeMessage=*/false);
}

inline StatusCause cause(std::string reason, std::string message, std::string field) {
  return {std::move(reason), std::move(message), std::move(field)};
}

// An ApiServer on `ex`'s clock whose uids and generated names are drawn from `seed` (a failure,
// thrown, when it does not open).
inline std::unique_ptr<ApiServer> openSeededServer(SimExecutor& ex, std::uint64_t seed) {
  ApiServerOptions options;
  options.seed = seed;
  return must(ApiServer::open(ex.clock(), options), "open");
}

class ApiServerTest : public ::testing::Test {
 protected:
  void SetUp() override { server = openServer(); }

  std::unique_ptr<ApiServer> openServer(std::optional<std::uint64_t> seed = 42) {
    ApiServerOptions options;
    options.seed = seed;
    auto opened = ApiServer::open(ex.clock(), options);
    if (!opened) {
      ADD_FAILURE() << "ApiServer::open: " << opened.error().str();
      throw std::runtime_error("ApiServer::open failed");
    }
    return std::move(*opened);
  }

  Json create(const GroupVersionResource& gvr, Json object, std::string_view ns = "") {
    return must(server->create(gvr, ns, std::move(object)), "create");
  }
  Json get(const GroupVersionResource& gvr, std::string_view ns, std::string_view name) {
    return must(server->get(gvr, ns, name), "get");
  }
  Json update(const GroupVersionResource& gvr, Json object) {
    return must(server->update(gvr, "", std::move(object)), "update");
  }
  Json updateStatus(const GroupVersionResource& gvr, Json object) {
    return must(server->updateStatus(gvr, "", std::move(object)), "updateStatus");
  }
  Json mergePatch(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
                  const Json& patch) {
    return must(server->patch(gvr, ns, name, PatchType::Merge, patch.dump()), "patch");
  }
  Json remove(const GroupVersionResource& gvr, std::string_view ns, std::string_view name,
              const DeleteOptions& options = {}) {
    // The body a DELETE answers: the object, or a Success Status once it is gone.
    return server->deleteResponse(gvr,
                                  must(server->deleteObject(gvr, ns, name, options), "delete"));
  }

  // Registers the Widget kind.
  Json installWidgetCrd(bool statusSubresource = true) {
    return create(kCustomResourceDefinitions, widgetCrd(statusSubresource));
  }

  // A LIST as the wire shows it.
  Json list(const GroupVersionResource& gvr, std::string_view ns, const ListOptions& options = {}) {
    return must(server->list(gvr, ns, options), "list");
  }

  SimExecutor ex;
  std::unique_ptr<ApiServer> server;
};

// The fixture of the tests of fieldValidation (Ignore, Warn, Strict): options that ask for it and
// collect the server's warnings in `warnings`.
class FieldValidationTest : public ApiServerTest {
 protected:
  template <class Options>
  Options withValidation(FieldValidation validation) {
    Options options;
    options.fieldValidation = validation;
    options.warnings = &warnings;
    return options;
  }

  std::vector<std::string> warnings;
};

inline std::string rv(const Json& object) { return meta::resourceVersion(object); }
inline std::int64_t rvNumber(const Json& object) {
  return std::stoll(meta::resourceVersion(object));
}

}  // namespace fakekube::apitest
