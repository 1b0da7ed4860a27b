// Status: the error value of every fakekube entry point, shaped exactly like metav1.Status.
//
// Every verb returns Result<T> = tl::expected<T, Status>. The constructors below produce the codes,
// reasons and messages the real API server produces (k8s.io/apimachinery/pkg/api/errors), so code
// written against fakekube branches on errors exactly as it would against a cluster.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/api/json.h"

namespace fakekube {

// One entry of details.causes.
struct StatusCause {
  std::string reason;   // e.g. "FieldValueInvalid"
  std::string message;  // e.g. "Invalid value: \"x\": field is immutable"
  std::string field;    // e.g. "metadata.name"
  bool operator==(const StatusCause&) const = default;
};

struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;  // the plural resource, except for Invalid where it is the Kind
  std::string uid;
  std::vector<StatusCause> causes;
  int retryAfterSeconds = 0;
  bool empty() const {
    return name.empty() && group.empty() && kind.empty() && uid.empty() && causes.empty() &&
           retryAfterSeconds == 0;
  }
};

// A field.Error: what validation reports for one field.
struct FieldError {
  enum class Type {
    NotFound,
    Required,
    Duplicate,
    Invalid,
    NotSupported,
    Forbidden,
    TooLong,
    TooMany,
    Internal,
    TypeInvalid  // "Invalid value" like Invalid, reason FieldValueTypeInvalid (schema type checks)
  };
  Type type = Type::Invalid;
  std::string field;     // "metadata.labels"
  std::string badValue;  // already rendered as Kubernetes renders it: "\"Bad_Name\"", "0x0", "null"
  std::string detail;

  static FieldError required(std::string field, std::string detail = {});
  static FieldError invalid(std::string field, std::string renderedValue, std::string detail);
  // A string value, quoted the way Go's %q quotes it.
  static FieldError invalidString(std::string field, std::string_view value, std::string detail);
  static FieldError forbidden(std::string field, std::string detail);
  static FieldError tooLong(std::string field, std::string detail);
  static FieldError duplicate(std::string field, std::string renderedValue);
  static FieldError notSupported(std::string field, std::string renderedValue, std::string detail);
  static FieldError typeInvalid(std::string field, std::string renderedValue, std::string detail);
  // "Too many: <actual>: must have at most <max> items" (the actual count is left out when empty).
  static FieldError tooMany(std::string field, std::string renderedActual, std::int64_t max);

  std::string reason() const;   // "FieldValueInvalid"
  std::string body() const;     // "Invalid value: \"x\": detail"
  std::string message() const;  // "metadata.name: Invalid value: \"x\": detail"
};
using FieldErrors = std::vector<FieldError>;

// Go's %q for a string: double-quoted with Go escapes.
std::string goQuote(std::string_view s);

class Status {
 public:
  int code = 500;
  std::string status = "Failure";  // "Success" only for the delete response of most kinds
  std::string reason;
  std::string message;
  StatusDetails details;

  // --- constructors mirroring k8s.io/apimachinery/pkg/api/errors ---
  static Status notFound(const GroupResource& gr, std::string_view name);
  static Status alreadyExists(const GroupResource& gr, std::string_view name);
  static Status conflict(const GroupResource& gr, std::string_view name, std::string_view why);
  // The common conflict: "the object has been modified; please apply your changes ...".
  static Status conflictModified(const GroupResource& gr, std::string_view name);
  // kind is the Kind ("ConfigMap"); group its API group.
  static Status invalid(std::string_view group, std::string_view kind, std::string_view name,
                        const FieldErrors& errors);
  static Status badRequest(std::string_view message);
  static Status forbidden(const GroupResource& gr, std::string_view name, std::string_view why);
  static Status unauthorized(std::string_view message = "Unauthorized");
  static Status methodNotSupported(const GroupResource& gr, std::string_view action);
  static Status expired(std::string_view message);  // 410 Expired
  static Status gone(std::string_view message);     // 410 Gone
  static Status timeout(std::string_view message, int retryAfterSeconds);
  static Status serverTimeout(const GroupResource& gr, std::string_view operation,
                              int retryAfterSeconds);
  static Status tooManyRequests(std::string_view message, int retryAfterSeconds);
  static Status internal(std::string_view message);
  static Status unsupportedMediaType(std::string_view message);
  static Status requestEntityTooLarge(std::string_view message);
  static Status serviceUnavailable(std::string_view message);
  // 404 for a path or kind the server does not serve.
  static Status resourceNotServed();
  // A generic response with code and reason chosen by the caller (NewGenericServerResponse).
  static Status generic(int code, std::string_view reason, std::string_view message);
  // The {"status":"Success"} body that DELETE returns for most kinds.
  static Status success(const GroupResource& gr, std::string_view name, std::string_view uid);

  // The wire form: {"kind":"Status","apiVersion":"v1","metadata":{},...}; empty fields omitted.
  Json toJson() const;
  // Reads a wire Status (e.g. a watch ERROR event or an HTTP error body).
  static Status fromJson(const Json& j);

  std::string str() const;  // "409 Conflict: <message>" for logs and test failures
};

template <class T>
using Result = tl::expected<T, Status>;
using Error = tl::unexpected<Status>;

// Reason helpers (apimachinery's errors.IsNotFound etc.).
bool isNotFound(const Status& s);
bool isAlreadyExists(const Status& s);
bool isConflict(const Status& s);
bool isInvalid(const Status& s);
bool isBadRequest(const Status& s);
bool isForbidden(const Status& s);
bool isUnauthorized(const Status& s);
bool isGone(const Status& s);  // 410: Expired or Gone
bool isResourceExpired(const Status& s);
bool isTimeout(const Status& s);
bool isServerTimeout(const Status& s);
bool isTooManyRequests(const Status& s);
bool isInternalError(const Status& s);
bool isMethodNotSupported(const Status& s);
bool isRequestEntityTooLarge(const Status& s);
bool isServiceUnavailable(const Status& s);

template <class T>
bool isNotFound(const Result<T>& r) {
  return !r && isNotFound(r.error());
}
template <class T>
bool isConflict(const Result<T>& r) {
  return !r && isConflict(r.error());
}
template <class T>
bool isAlreadyExists(const Result<T>& r) {
  return !r && isAlreadyExists(r.error());
}

}  // namespace fakekube
