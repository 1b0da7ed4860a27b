#include "fakekube/api/status.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace fakekube {

namespace {

const char* typeString(FieldError::Type t) {
  switch (t) {
    case FieldError::Type::NotFound:
      return "Not found";
    case FieldError::Type::Required:
      return "Required value";
    case FieldError::Type::Duplicate:
      return "Duplicate value";
    case FieldError::Type::Invalid:
      return "Invalid value";
    case FieldError::Type::NotSupported:
      return "Unsupported value";
    case FieldError::Type::Forbidden:
      return "Forbidden";
    case FieldError::Type::TooLong:
      return "Too long";
    case FieldError::Type::TooMany:
      return "Too many";
    case FieldError::Type::Internal:
      return "Internal error";
    case FieldError::Type::TypeInvalid:
      return "Invalid value";
  }
  return "Invalid value";
}

bool showsValue(FieldError::Type t) {
  switch (t) {
    case FieldError::Type::Required:
    case FieldError::Type::Forbidden:
    case FieldError::Type::TooLong:
    case FieldError::Type::TooMany:
    case FieldError::Type::Internal:
      return false;
    default:
      return true;
  }
}

}  // namespace

std::string goQuote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

FieldError FieldError::required(std::string field, std::string detail) {
  return {Type::Required, std::move(field), "", std::move(detail)};
}
FieldError FieldError::invalid(std::string field, std::string renderedValue, std::string detail) {
  return {Type::Invalid, std::move(field), std::move(renderedValue), std::move(detail)};
}
FieldError FieldError::invalidString(std::string field, std::string_view value,
                                     std::string detail) {
  return {Type::Invalid, std::move(field), goQuote(value), std::move(detail)};
}
FieldError FieldError::forbidden(std::string field, std::string detail) {
  return {Type::Forbidden, std::move(field), "", std::move(detail)};
}
FieldError FieldError::tooLong(std::string field, std::string detail) {
  return {Type::TooLong, std::move(field), "", std::move(detail)};
}
FieldError FieldError::duplicate(std::string field, std::string renderedValue) {
  return {Type::Duplicate, std::move(field), std::move(renderedValue), ""};
}
FieldError FieldError::notSupported(std::string field, std::string renderedValue,
                                    std::string detail) {
  return {Type::NotSupported, std::move(field), std::move(renderedValue), std::move(detail)};
}

FieldError FieldError::typeInvalid(std::string field, std::string renderedValue,
                                   std::string detail) {
  return {Type::TypeInvalid, std::move(field), std::move(renderedValue), std::move(detail)};
}
FieldError FieldError::tooMany(std::string field, std::string renderedActual, std::int64_t max) {
  return {Type::TooMany, std::move(field), std::move(renderedActual),
          fmt::format("must have at most {} items", max)};
}

std::string FieldError::reason() const {
  switch (type) {
    case Type::NotFound:
      return "FieldValueNotFound";
    case Type::Required:
      return "FieldValueRequired";
    case Type::Duplicate:
      return "FieldValueDuplicate";
    case Type::Invalid:
      return "FieldValueInvalid";
    case Type::NotSupported:
      return "FieldValueNotSupported";
    case Type::Forbidden:
      return "FieldValueForbidden";
    case Type::TooLong:
      return "FieldValueTooLong";
    case Type::TooMany:
      return "FieldValueTooMany";
    case Type::Internal:
      return "InternalError";
    case Type::TypeInvalid:
      return "FieldValueTypeInvalid";
  }
  return "FieldValueInvalid";
}

std::string FieldError::body() const {
  std::string s = typeString(type);
  // A Too many error shows the actual count when it is known (field.TooMany).
  if (showsValue(type) || (type == Type::TooMany && !badValue.empty())) s += ": " + badValue;
  if (!detail.empty()) s += ": " + detail;
  return s;
}

std::string FieldError::message() const { return field + ": " + body(); }

Status Status::notFound(const GroupResource& gr, std::string_view name) {
  Status s;
  s.code = 404;
  s.reason = "NotFound";
  s.message = fmt::format("{} {} not found", gr.str(), goQuote(name));
  s.details.name = name;
  s.details.group = gr.group;
  s.details.kind = gr.resource;
  return s;
}

Status Status::alreadyExists(const GroupResource& gr, std::string_view name) {
  Status s;
  s.code = 409;
  s.reason = "AlreadyExists";
  s.message = fmt::format("{} {} already exists", gr.str(), goQuote(name));
  s.details.name = name;
  s.details.group = gr.group;
  s.details.kind = gr.resource;
  return s;
}

Status Status::conflict(const GroupResource& gr, std::string_view name, std::string_view why) {
  Status s;
  s.code = 409;
  s.reason = "Conflict";
  s.message =
      fmt::format("Operation cannot be fulfilled on {} {}: {}", gr.str(), goQuote(name), why);
  s.details.name = name;
  s.details.group = gr.group;
  s.details.kind = gr.resource;
  return s;
}

Status Status::conflictModified(const GroupResource& gr, std::string_view name) {
  return conflict(gr, name,
                  "the object has been modified; please apply your changes to the latest version "
                  "and try again");
}

Status Status::invalid(std::string_view group, std::string_view kind, std::string_view name,
                       const FieldErrors& errors) {
  Status s;
  s.code = 422;
  s.reason = "Invalid";
  std::vector<std::string> messages;
  for (const auto& e : errors) {
    s.details.causes.push_back({e.reason(), e.body(), e.field});
    std::string m = e.message();
    // utilerrors.NewAggregate de-duplicates identical messages.
    if (std::find(messages.begin(), messages.end(), m) == messages.end()) messages.push_back(m);
  }
  std::string aggregate;
  if (messages.size() == 1) {
    aggregate = messages[0];
  } else {
    aggregate = "[" + fmt::format("{}", fmt::join(messages, ", ")) + "]";
  }
  std::string qualifiedKind = group.empty() ? std::string(kind) : fmt::format("{}.{}", kind, group);
  s.message = fmt::format("{} {} is invalid: {}", qualifiedKind, goQuote(name), aggregate);
  s.details.name = name;
  s.details.group = group;
  s.details.kind = kind;
  return s;
}

Status Status::badRequest(std::string_view message) { return generic(400, "BadRequest", message); }

Status Status::forbidden(const GroupResource& gr, std::string_view name, std::string_view why) {
  Status s;
  s.code = 403;
  s.reason = "Forbidden";
  if (name.empty()) {
    s.message = fmt::format("{} is forbidden: {}", gr.str(), why);
  } else {
    s.message = fmt::format("{} {} is forbidden: {}", gr.str(), goQuote(name), why);
  }
  s.details.name = name;
  s.details.group = gr.group;
  s.details.kind = gr.resource;
  return s;
}

Status Status::unauthorized(std::string_view message) {
  return generic(401, "Unauthorized", message);
}

Status Status::methodNotSupported(const GroupResource& gr, std::string_view action) {
  Status s;
  s.code = 405;
  s.reason = "MethodNotAllowed";
  s.message = fmt::format("{} is not supported on resources of kind {}", action, goQuote(gr.str()));
  s.details.group = gr.group;
  s.details.kind = gr.resource;
  return s;
}

Status Status::expired(std::string_view message) { return generic(410, "Expired", message); }
Status Status::gone(std::string_view message) { return generic(410, "Gone", message); }

Status Status::timeout(std::string_view message, int retryAfterSeconds) {
  Status s = generic(504, "Timeout", fmt::format("Timeout: {}", message));
  s.details.retryAfterSeconds = retryAfterSeconds;
  return s;
}

Status Status::serverTimeout(const GroupResource& gr, std::string_view operation,
                             int retryAfterSeconds) {
  Status s;
  s.code = 500;
  s.reason = "ServerTimeout";
  s.message = fmt::format(
      "The {} operation against {} could not be completed at this time, please "
      "try again.",
      operation, gr.str());
  s.details.group = gr.group;
  s.details.kind = gr.resource;
  s.details.retryAfterSeconds = retryAfterSeconds;
  return s;
}

Status Status::tooManyRequests(std::string_view message, int retryAfterSeconds) {
  Status s = generic(429, "TooManyRequests", message);
  s.details.retryAfterSeconds = retryAfterSeconds;
  return s;
}

Status Status::internal(std::string_view message) {
  Status s = generic(500, "InternalError", fmt::format("Internal error occurred: {}", message));
  s.details.causes.push_back({"", std::string(message), ""});
  return s;
}

Status Status::unsupportedMediaType(std::string_view message) {
  return generic(415, "UnsupportedMediaType", message);
}

Status Status::requestEntityTooLarge(std::string_view message) {
  return generic(413, "RequestEntityTooLarge",
                 fmt::format("Request entity too large: {}", message));
}

Status Status::serviceUnavailable(std::string_view message) {
  return generic(503, "ServiceUnavailable", message);
}

Status Status::resourceNotServed() {
  return generic(404, "NotFound", "the server could not find the requested resource");
}

Status Status::generic(int code, std::string_view reason, std::string_view message) {
  Status s;
  s.code = code;
  s.reason = reason;
  s.message = message;
  return s;
}

Status Status::success(const GroupResource& gr, std::string_view name, std::string_view uid) {
  Status s;
  s.code = 200;
  s.status = "Success";
  s.details.name = name;
  s.details.group = gr.group;
  s.details.kind = gr.resource;
  s.details.uid = uid;
  return s;
}

Json Status::toJson() const {
  Json j = {
      {"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", Json::object()}, {"status", status}};
  if (!message.empty()) j["message"] = message;
  if (!reason.empty()) j["reason"] = reason;
  if (!details.empty()) {
    Json d = Json::object();
    if (!details.name.empty()) d["name"] = details.name;
    if (!details.group.empty()) d["group"] = details.group;
    if (!details.kind.empty()) d["kind"] = details.kind;
    if (!details.uid.empty()) d["uid"] = details.uid;
    if (!details.causes.empty()) {
      Json causes = Json::array();
      for (const auto& c : details.causes) {
        Json cj = Json::object();
        if (!c.reason.empty()) cj["reason"] = c.reason;
        if (!c.message.empty()) cj["message"] = c.message;
        if (!c.field.empty()) cj["field"] = c.field;
        causes.push_back(std::move(cj));
      }
      d["causes"] = std::move(causes);
    }
    if (details.retryAfterSeconds > 0) d["retryAfterSeconds"] = details.retryAfterSeconds;
    j["details"] = std::move(d);
  }
  j["code"] = code;
  return j;
}

Status Status::fromJson(const Json& j) {
  Status s;
  if (!j.is_object()) return internal("malformed Status");
  s.code = j.value("code", 500);
  s.status = j.value("status", "Failure");
  s.reason = j.value("reason", "");
  s.message = j.value("message", "");
  if (auto it = j.find("details"); it != j.end() && it->is_object()) {
    const Json& d = *it;
    s.details.name = d.value("name", "");
    s.details.group = d.value("group", "");
    s.details.kind = d.value("kind", "");
    s.details.uid = d.value("uid", "");
    s.details.retryAfterSeconds = d.value("retryAfterSeconds", 0);
    if (auto c = d.find("causes"); c != d.end() && c->is_array()) {
      for (const auto& cj : *c) {
        if (!cj.is_object()) continue;
        s.details.causes.push_back(
            {cj.value("reason", ""), cj.value("message", ""), cj.value("field", "")});
      }
    }
  }
  return s;
}

std::string Status::str() const { return fmt::format("{} {}: {}", code, reason, message); }

bool isNotFound(const Status& s) {
  return s.reason == "NotFound" || (s.reason.empty() && s.code == 404);
}
bool isAlreadyExists(const Status& s) { return s.reason == "AlreadyExists"; }
bool isConflict(const Status& s) {
  return s.reason == "Conflict" || (s.reason.empty() && s.code == 409);
}
bool isInvalid(const Status& s) {
  return s.reason == "Invalid" || (s.reason.empty() && s.code == 422);
}
bool isBadRequest(const Status& s) {
  return s.reason == "BadRequest" || (s.reason.empty() && s.code == 400);
}
bool isForbidden(const Status& s) {
  return s.reason == "Forbidden" || (s.reason.empty() && s.code == 403);
}
bool isUnauthorized(const Status& s) {
  return s.reason == "Unauthorized" || (s.reason.empty() && s.code == 401);
}
bool isGone(const Status& s) {
  return s.code == 410 || s.reason == "Gone" || s.reason == "Expired";
}
bool isResourceExpired(const Status& s) { return s.reason == "Expired" || s.reason == "Gone"; }
bool isTimeout(const Status& s) {
  return s.reason == "Timeout" || (s.reason.empty() && s.code == 504);
}
bool isServerTimeout(const Status& s) { return s.reason == "ServerTimeout"; }
bool isTooManyRequests(const Status& s) { return s.reason == "TooManyRequests" || s.code == 429; }
bool isInternalError(const Status& s) {
  return s.reason == "InternalError" || (s.reason.empty() && s.code == 500);
}
bool isMethodNotSupported(const Status& s) {
  return s.reason == "MethodNotAllowed" || s.code == 405;
}
bool isRequestEntityTooLarge(const Status& s) {
  return s.reason == "RequestEntityTooLarge" || s.code == 413;
}
bool isServiceUnavailable(const Status& s) {
  return s.reason == "ServiceUnavailable" || s.code == 503;
}

}  // namespace fakekube
