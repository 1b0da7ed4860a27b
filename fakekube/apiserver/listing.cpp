// LIST: label and field selectors, resourceVersion semantics, limit/continue.
//
// The continue token pins the list's revision: later pages, and Exact reads of an older revision,
// come from the store's revision history (a consistent snapshot, as from etcd) and expire with
// 410 once compacted. Reads at the newest revision come from memory.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/field_selector.h"
#include "fakekube/api/internal/base64.h"
#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/apiserver/internal/api_server_impl.h"
#include "fakekube/apiserver/internal/selection.h"

namespace fakekube {

namespace {

struct ContinueToken {
  std::int64_t revision = 0;
  std::string start;  // the last key returned, relative to the resource prefix
};

// A token is URL-safe base64 without padding (Go's base64.RawURLEncoding, as kube-apiserver
// encodes it): it goes into a query string as it is, with no '+', '/' or '=' to escape.
std::string encodeContinue(const ContinueToken& token) {
  Json j = {{"v", "meta.k8s.io/v1"}, {"rv", token.revision}, {"start", token.start}};
  std::string text = base64Encode(j.dump());
  while (!text.empty() && text.back() == '=') text.pop_back();
  for (char& c : text) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return text;
}

Result<ContinueToken> decodeContinue(std::string_view token) {
  auto bad = [](std::string_view why) {
    return tl::unexpected(Status::badRequest(fmt::format("continue key is not valid: {}", why)));
  };
  // Also the standard alphabet and padding, which tokens of earlier versions used.
  std::string text(token);
  for (char& c : text) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (text.size() % 4 != 0) text.push_back('=');
  auto raw = base64Decode(text);
  if (!raw) return bad("illegal base64 data");
  if (checkJsonTextDepth(*raw)) return bad("not a continue token");
  Json j = Json::parse(*raw, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad("not a continue token");
  if (j.value("v", "") != "meta.k8s.io/v1")
    return bad("incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  auto rv = j.find("rv");
  auto start = j.find("start");
  if (rv == j.end() || !rv->is_number_integer() || start == j.end() || !start->is_string()) {
    return bad("not a continue token");
  }
  return ContinueToken{rv->get<std::int64_t>(), start->get<std::string>()};
}

Status listOptionsInvalid(FieldError error) {
  return Status::invalid("meta.k8s.io", "ListOptions", "", {std::move(error)});
}

// resourceVersion and resourceVersionMatch, as metainternalversion's validation checks them.
std::optional<Status> validateResourceVersionOptions(const ListOptions& options) {
  const std::string& match = options.resourceVersionMatch;
  if (!match.empty() && match != "NotOlderThan" && match != "Exact") {
    return listOptionsInvalid(
        FieldError::notSupported("resourceVersionMatch", goQuote(match),
                                 "supported values: \"Exact\", \"NotOlderThan\", \"\""));
  }
  if (!match.empty() && options.resourceVersion.empty()) {
    return listOptionsInvalid(FieldError::forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch is forbidden unless resourceVersion is provided"));
  }
  if (!options.continueToken.empty() && !options.resourceVersion.empty() &&
      options.resourceVersion != "0") {
    return listOptionsInvalid(FieldError::forbidden(
        "resourceVersion", "specifying resource version is not allowed when using continue"));
  }
  if (match == "Exact" && options.resourceVersion == "0") {
    return listOptionsInvalid(FieldError::forbidden(
        "resourceVersionMatch",
        "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
  }
  return std::nullopt;
}

// The revision a list reads without a continue token: the newest, or an Exact older one; a
// resourceVersion beyond the newest times out as the watch cache does when it cannot catch up.
Result<std::int64_t> listRevisionFor(const ListOptions& options, std::int64_t current) {
  if (options.resourceVersion.empty() || options.resourceVersion == "0") return current;
  auto requested = parseResourceVersion(options.resourceVersion);
  if (!requested) return tl::unexpected(requested.error());
  if (*requested > current) {
    Status s = Status::timeout(
        fmt::format("Too large resource version: {}, current: {}", *requested, current), 1);
    s.details.causes.push_back({"ResourceVersionTooLarge", "Too large resource version", ""});
    return tl::unexpected(s);
  }
  return options.resourceVersionMatch == "Exact" ? *requested : current;
}

// A later page's token, refused with 410 once its revision is compacted.
Result<ContinueToken> continueTokenFor(std::string_view token, std::int64_t compactedRevision) {
  auto decoded = decodeContinue(token);
  if (!decoded) return tl::unexpected(decoded.error());
  if (decoded->revision < compactedRevision) {
    return tl::unexpected(Status::expired(
        "The provided continue parameter is too old to display a consistent list result. You "
        "can start a new list without the continue parameter, or use the continue token in "
        "this response to retrieve the remainder of the results. Continuing with the provided "
        "token results in an inconsistent list - objects that were created, modified, or "
        "deleted between the time the first chunk was returned and now may show up in the "
        "list."));
  }
  return decoded;
}

}  // namespace

Result<ObjectList> ApiServer::Impl::list(const GroupVersionResource& gvr, std::string_view ns,
                                         const ListOptions& options) {
  Request request{Verb::List, gvr, "", std::string(ns), ""};
  return intercepted<ObjectList>(request, [&]() -> Result<ObjectList> {
    auto t = target(gvr, ns);
    if (!t) return tl::unexpected(t.error());
    std::lock_guard lock(mu_);
    auto result = listLocked(*t->info, t->ns, options);
    if (result && (t->info->custom || t->info->conversion != nullptr)) {
      for (auto& item : result->items) item = inRequestedVersion(*t->info, gvr, std::move(item));
      result->apiVersion = gvr.apiVersion();
    }
    return result;
  });
}

Result<ObjectList> ApiServer::Impl::listLocked(const ResourceInfo& info, const std::string& ns,
                                               const ListOptions& options) {
  auto selection = Selection::parse(info, options.labelSelector, options.fieldSelector);
  if (!selection) return tl::unexpected(selection.error());
  if (auto invalid = validateResourceVersionOptions(options)) return tl::unexpected(*invalid);
  const std::int64_t current = store_->revision();
  auto listRevision = listRevisionFor(options, current);
  if (!listRevision) return tl::unexpected(listRevision.error());

  const std::string resourcePrefix = prefix(info, "");
  std::string startAfter;
  if (!options.continueToken.empty()) {
    auto token = continueTokenFor(options.continueToken, store_->compactedRevision());
    if (!token) return tl::unexpected(token.error());
    *listRevision = token->revision;
    startAfter = resourcePrefix + token->start;
  }

  // resourceVersion=0 is served from the watch cache, which ignores limit.
  const std::int64_t limit = options.resourceVersion == "0" ? 0 : options.limit;
  ObjectList result{info.apiVersion(), info.listKind, std::to_string(*listRevision), "", {}};
  std::string lastKey;
  bool more = false;
  auto visit = [&](const std::string& k, const ObjectPtr& object) {
    if (!startAfter.empty() && k <= startAfter) return true;
    if (!selection->matches(*object)) return true;
    if (limit > 0 && static_cast<std::int64_t>(result.items.size()) >= limit) {
      more = true;
      return false;
    }
    result.items.push_back(object);
    lastKey = k;
    return true;
  };
  if (*listRevision == current) {
    store_->scan(prefix(info, ns), startAfter, visit);
  } else {
    // An older revision (an Exact read, or a later page of a list): read it from the revision
    // history, which keeps every state back to the compaction mark, as etcd does.
    if (auto r = store_->scanAt(prefix(info, ns), *listRevision, startAfter, visit); !r) {
      return tl::unexpected(r.error());
    }
  }
  if (more) {
    result.continueToken = encodeContinue({*listRevision, lastKey.substr(resourcePrefix.size())});
  }
  return result;
}

}  // namespace fakekube
