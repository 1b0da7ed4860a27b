#include "fakekube/auth/authorizer.h"

#include <fmt/format.h>

namespace fakekube {
namespace {

// responsewriters' sanitizer: the message must not read as HTML. Quotes are left alone.
std::string sanitizeForbiddenMessage(std::string message) {
  if (message.find_first_of("&<>") == std::string::npos) return message;
  std::string out;
  out.reserve(message.size() + 16);
  for (char c : message) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string forbiddenMessage(const AuthorizationAttributes& attributes) {
  std::string_view username;
  if (attributes.user != nullptr) username = attributes.user->name;
  if (!attributes.resourceRequest) {
    return fmt::format("User {} cannot {} path {}", goQuote(username), attributes.verb,
                       goQuote(attributes.path));
  }
  std::string resource = attributes.resource;
  if (!attributes.subresource.empty()) resource.append("/").append(attributes.subresource);
  if (!attributes.ns.empty()) {
    return fmt::format("User {} cannot {} resource {} in API group {} in the namespace {}",
                       goQuote(username), attributes.verb, goQuote(resource),
                       goQuote(attributes.apiGroup), goQuote(attributes.ns));
  }
  return fmt::format("User {} cannot {} resource {} in API group {} at the cluster scope",
                     goQuote(username), attributes.verb, goQuote(resource),
                     goQuote(attributes.apiGroup));
}

Status forbidden(const AuthorizationAttributes& attributes, std::string_view reason) {
  std::string why = sanitizeForbiddenMessage(forbiddenMessage(attributes));
  if (!reason.empty()) why.append(": ").append(reason);
  // A non-resource request has no group and resource: errors.NewForbidden then says just
  // "forbidden: ...".
  if (!attributes.resourceRequest || (attributes.resource.empty() && attributes.apiGroup.empty())) {
    Status status;
    status.code = 403;
    status.reason = "Forbidden";
    status.message = "forbidden: " + why;
    status.details.name = attributes.resourceRequest ? attributes.name : "";
    return status;
  }
  return Status::forbidden(GroupResource{attributes.apiGroup, attributes.resource}, attributes.name,
                           why);
}

}  // namespace fakekube
