#include "fakekube/http/internal/rest_handler.h"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/internal/protobuf.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_patch.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/merge_patch.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/yaml.h"
#include "fakekube/http/internal/discovery.h"
#include "fakekube/http/internal/media_type.h"
#include "fakekube/http/internal/openapi.h"
#include "fakekube/http/internal/partial_object_metadata.h"
#include "fakekube/http/internal/pod_log.h"
#include "fakekube/http/internal/proxy.h"
#include "fakekube/http/internal/request_parameters.h"
#include "fakekube/http/internal/reviews.h"
#include "fakekube/http/internal/table.h"
#include "fakekube/http/internal/watch_stream.h"

namespace fakekube {

namespace {

using Query = std::optional<std::string>;

// Lists of at most this many items are answered whole (with a Content-Length); longer ones are
// streamed in pieces of about kListPieceBytes.
constexpr std::size_t kWholeListItems = 500;
constexpr std::size_t kListPieceBytes = 256 * 1024;
constexpr std::size_t kTableRowsPerPiece = 100;

// --- responses ---

RestResponse jsonResponse(int status, const Json& body) {
  RestResponse response;
  response.status = status;
  response.body = toJsonText(body);
  return response;
}

RestResponse textResponse(std::string body) {
  RestResponse response;
  response.contentType = "text/plain; charset=utf-8";
  response.body = std::move(body);
  return response;
}

RestResponse methodNotAllowed() {
  return RestHandler::errorResponse(Status::generic(
      405, "MethodNotAllowed", "the server does not allow this method on the requested resource"));
}

RestResponse notFound() { return RestHandler::errorResponse(Status::resourceNotServed()); }

std::vector<std::string> pathSegments(std::string_view path) {
  std::vector<std::string> segments;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) segments.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return segments;
}

// --- query parameters ---

// dryRun=All (the only value Kubernetes knows; it may repeat).
Result<bool> dryRunParam(const RestRequest& request, std::string_view optionsKind) {
  bool dryRun = false;
  for (const auto& [k, v] : request.query) {
    if (k != "dryRun") continue;
    if (v != "All") {
      return tl::unexpected(Status::invalid(
          "meta.k8s.io", optionsKind, "",
          {FieldError::notSupported("dryRun", fmt::format("[]string{{{}}}", goQuote(v)),
                                    "supported values: \"All\"")}));
    }
    dryRun = true;
  }
  return dryRun;
}

// The fieldManager parameter, or else what kube-apiserver derives from the User-Agent
// (managerOrUserAgent): its text before the first "/", printable characters only, at most 128
// bytes ("kubectl/v1.30.0 (linux/amd64)" writes as "kubectl").
std::string fieldManagerParam(const RestRequest& request) {
  if (auto manager = request.param("fieldManager"); manager && !manager->empty()) return *manager;
  std::string prefix = request.userAgent.substr(0, request.userAgent.find('/'));
  std::string manager;
  for (unsigned char c : prefix) {
    if (c < 0x20 || c == 0x7f) continue;
    if (manager.size() + 1 > 128) break;
    manager.push_back(static_cast<char>(c));
  }
  return manager;
}

std::optional<Status> checkFieldValidation(const RestRequest& request,
                                           std::string_view optionsKind) {
  Query value = request.param("fieldValidation");
  if (!value || value->empty() || *value == "Ignore" || *value == "Warn" || *value == "Strict") {
    return std::nullopt;
  }
  return Status::invalid(
      "meta.k8s.io", optionsKind, "",
      {FieldError::notSupported("fieldValidation", goQuote(*value),
                                "supported values: \"Ignore\", \"Strict\", \"Warn\"")});
}

Result<ListOptions> listOptions(const RestRequest& request) {
  ListOptions options;
  options.labelSelector = request.param("labelSelector").value_or("");
  options.fieldSelector = request.param("fieldSelector").value_or("");
  options.continueToken = request.param("continue").value_or("");
  options.resourceVersion = request.param("resourceVersion").value_or("");
  options.resourceVersionMatch = request.param("resourceVersionMatch").value_or("");
  auto limit = intParameter(request, "limit");
  if (!limit) return tl::unexpected(limit.error());
  options.limit = limit->value_or(0);
  if (options.limit < 0) options.limit = 0;
  return options;
}

Result<WatchOptions> watchOptions(const RestRequest& request) {
  WatchOptions options;
  options.labelSelector = request.param("labelSelector").value_or("");
  options.fieldSelector = request.param("fieldSelector").value_or("");
  options.resourceVersion = request.param("resourceVersion").value_or("");
  options.resourceVersionMatch = request.param("resourceVersionMatch").value_or("");
  auto bookmarks = boolParameter(request, "allowWatchBookmarks");
  if (!bookmarks) return tl::unexpected(bookmarks.error());
  options.allowWatchBookmarks = bookmarks->value_or(false);
  auto initial = boolParameter(request, "sendInitialEvents");
  if (!initial) return tl::unexpected(initial.error());
  options.sendInitialEvents = *initial;
  auto timeout = intParameter(request, "timeoutSeconds");
  if (!timeout) return tl::unexpected(timeout.error());
  options.timeoutSeconds = *timeout;
  return options;
}

// GetOptions.resourceVersion, as the API server's storage checks it: "" and "0" read the newest
// state; "N" asks for a state not older than N, which the newest is unless N is in the future
// (504 Timeout "Too large resource version", as LIST answers); anything else is 400.
std::optional<Status> checkGetResourceVersion(const RestRequest& request, std::int64_t current) {
  Query rv = request.param("resourceVersion");
  if (!rv || rv->empty() || *rv == "0") return std::nullopt;
  std::int64_t requested = 0;
  auto [end, ec] = std::from_chars(rv->data(), rv->data() + rv->size(), requested);
  if (ec != std::errc() || end != rv->data() + rv->size() || requested < 0 || rv->front() == '-' ||
      rv->front() == '+') {
    return Status::badRequest(fmt::format("invalid resource version: {}", *rv));
  }
  if (requested <= current) return std::nullopt;
  Status s = Status::timeout(
      fmt::format("Too large resource version: {}, current: {}", requested, current), 1);
  s.details.causes.push_back({"ResourceVersionTooLarge", "Too large resource version", ""});
  return s;
}

// --- request bodies ---

Result<Json> parseJson(std::string_view text) {
  auto parsed = parseJsonText(text);  // with the decoders' nesting limit
  if (!parsed) {
    return tl::unexpected(Status::badRequest(
        fmt::format("couldn't get version/kind; json parse error: {}", parsed.error())));
  }
  return std::move(*parsed);
}

// A create/update body: JSON, YAML (which the API server also accepts), or Kubernetes protobuf
// (what kubectl's typed `create` commands send), decoded into the JSON a JSON client sends.
Result<Json> decodeBody(const RestRequest& request) {
  const std::string type = baseMediaType(request.contentType);
  if (type.empty() || type == "application/json" || type == "*/*") return parseJson(request.body);
  if (type == "application/yaml") return decodeYaml(request.body);
  if (type == kKubernetesProtobufMediaType) return decodeKubernetesProtobuf(request.body);
  return tl::unexpected(Status::unsupportedMediaType(fmt::format(
      "the body of the request was in an unknown format - accepted media types include: "
      "application/json, application/yaml, application/vnd.kubernetes.protobuf")));
}

// DeleteOptions from the query, then the body (which wins, as the API server decodes it last).
Result<DeleteOptions> deleteOptions(const RestRequest& request) {
  DeleteOptions options;
  auto dryRun = dryRunParam(request, "DeleteOptions");
  if (!dryRun) return tl::unexpected(dryRun.error());
  options.dryRun = *dryRun;
  auto grace = intParameter(request, "gracePeriodSeconds");
  if (!grace) return tl::unexpected(grace.error());
  options.gracePeriodSeconds = *grace;
  if (Query policy = request.param("propagationPolicy"); policy && !policy->empty()) {
    options.propagationPolicy = *policy;
  }
  auto orphan = boolParameter(request, "orphanDependents");
  if (!orphan) return tl::unexpected(orphan.error());
  if (*orphan && !options.propagationPolicy) {
    options.propagationPolicy = **orphan ? "Orphan" : "Background";
  }

  if (request.body.find_first_not_of(" \t\r\n") == std::string::npos) return options;
  auto body = decodeBody(request);
  if (!body) return tl::unexpected(body.error());
  if (!body->is_object()) {
    return tl::unexpected(
        Status::badRequest("the body of a DELETE must be a DeleteOptions object"));
  }
  const Json& j = *body;
  if (auto it = j.find("propagationPolicy"); it != j.end() && it->is_string()) {
    options.propagationPolicy = it->get<std::string>();
  }
  if (auto it = j.find("orphanDependents");
      it != j.end() && it->is_boolean() && !j.contains("propagationPolicy")) {
    options.propagationPolicy = it->get<bool>() ? "Orphan" : "Background";
  }
  if (auto it = j.find("gracePeriodSeconds"); it != j.end() && it->is_number_integer()) {
    options.gracePeriodSeconds = it->get<std::int64_t>();
  }
  if (auto it = j.find("preconditions"); it != j.end() && it->is_object()) {
    if (auto uid = it->find("uid"); uid != it->end() && uid->is_string()) {
      options.preconditions.uid = uid->get<std::string>();
    }
    if (auto rv = it->find("resourceVersion"); rv != it->end() && rv->is_string()) {
      options.preconditions.resourceVersion = rv->get<std::string>();
    }
  }
  if (auto it = j.find("dryRun"); it != j.end() && it->is_array()) {
    for (const auto& v : *it) {
      if (v != "All") {
        return tl::unexpected(Status::invalid(
            "meta.k8s.io", "DeleteOptions", "",
            {FieldError::notSupported("dryRun", v.dump(), "supported values: \"All\"")}));
      }
      options.dryRun = true;
    }
  }
  return options;
}

// The request's fieldValidation (checked by checkFieldValidation), and where the API server puts
// the warnings it answers.
WriteWarnings writeWarnings(const RestRequest& request, std::vector<std::string>& warnings) {
  const std::string directive = request.param("fieldValidation").value_or("Warn");
  WriteWarnings out;
  out.fieldValidation = directive == "Strict"   ? FieldValidation::Strict
                        : directive == "Ignore" ? FieldValidation::Ignore
                                                : FieldValidation::Warn;
  out.warnings = &warnings;
  return out;
}

RestResponse withWarnings(RestResponse response, const std::vector<std::string>& warnings) {
  for (const std::string& warning : warnings) {
    response.headers.emplace_back("Warning", "299 - " + goQuote(warning));
  }
  return response;
}

// The name in a PUT body must be the one on the URL.
std::optional<Status> checkBodyName(const Json& object, const std::string& name) {
  if (!object.is_object()) return std::nullopt;  // the API server reports the bad body itself
  const std::string bodyName = meta::name(object);
  if (bodyName == name) return std::nullopt;
  return Status::badRequest(fmt::format(
      "the name of the object ({}) does not match the name on the URL ({})", bodyName, name));
}

// kube-apiserver decodes a custom resource's body into an Unstructured, which takes its kind
// from the body alone (a built-in kind's decoder defaults kind and apiVersion from the URL, so
// in-process callers and built-in bodies may omit them). Without a kind the decoder fails, and
// the create/update handler reports it as it reports every decoding error; without an
// apiVersion the decoded version is empty, which does not match the URL's.
std::optional<Status> checkCustomResourceTypeMeta(const RestRequest& request,
                                                  const ResourceInfo& info,
                                                  const GroupVersionResource& gvr,
                                                  const Json& body) {
  if (!info.custom || !body.is_object()) return std::nullopt;
  const Json* kind = jsonFind(body, "kind");
  if (kind == nullptr || !kind->is_string() || kind->get_ref<const std::string&>().empty()) {
    const bool json = baseMediaType(request.contentType) != "application/yaml";
    return Status::badRequest(fmt::format(
        "{} in version {} cannot be handled as a {}: Object 'Kind' is missing in '{}'", info.kind,
        goQuote(gvr.version), info.kind, json ? request.body : toJsonText(body)));
  }
  const Json* apiVersion = jsonFind(body, "apiVersion");
  if (apiVersion == nullptr || !apiVersion->is_string() ||
      apiVersion->get_ref<const std::string&>().empty()) {
    return Status::badRequest(
        fmt::format("the API version in the data () does not match the expected API version ({})",
                    gvr.apiVersion()));
  }
  return std::nullopt;
}

// --- the resource a path addresses ---

struct Target {
  ResourceInfoPtr info;
  GroupVersionResource gvr;
  std::string ns;
  bool hasNamespace = false;  // the path had namespaces/<ns>/
  std::string name;
  std::string subresource;
};

// nullopt when the path is not a resource path this server serves.
std::optional<Target> resolveTarget(const ApiServer& server, const std::vector<std::string>& s) {
  Target t;
  std::size_t i = 0;
  if (s.size() >= 3 && s[0] == "api") {
    t.gvr.version = s[1];
    i = 2;
  } else if (s.size() >= 4 && s[0] == "apis") {
    t.gvr.group = s[1];
    t.gvr.version = s[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  std::vector<std::string> rest(s.begin() + static_cast<std::ptrdiff_t>(i), s.end());
  // namespaces/<n>/status and namespaces/<n>/finalize are the namespace's own subresources.
  if (rest.size() >= 3 && rest[0] == "namespaces" &&
      !(rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize"))) {
    t.ns = rest[1];
    t.hasNamespace = true;
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty() || rest.size() > 3) return std::nullopt;
  t.gvr.resource = rest[0];
  if (rest.size() > 1) t.name = rest[1];
  if (rest.size() > 2) t.subresource = rest[2];
  t.info = server.registry().find(t.gvr);
  if (t.info == nullptr) return std::nullopt;
  if (t.hasNamespace && !t.info->namespaced) return std::nullopt;
  if (!t.hasNamespace && t.info->namespaced && !t.name.empty()) return std::nullopt;
  if (!t.subresource.empty()) {
    const bool served = (t.subresource == "status" && t.info->hasStatus) ||
                        (t.subresource == "binding" && t.info->is("", "pods")) ||
                        (t.subresource == "finalize" && t.info->is("", "namespaces")) ||
                        (t.subresource == "scale" && t.info->hasScale);
    if (!served) return std::nullopt;
  }
  return t;
}

// --- the verbs ---

class Call {
 public:
  Call(ApiServer& server, const RestRequest& request, Target target)
      : server_(server),
        request_(request),
        t_(std::move(target)),
        form_(negotiateForm(request.accept)) {}

  RestResponse run();

 private:
  RestResponse collection();
  RestResponse item();
  RestResponse status();

  RestResponse list();
  RestResponse watch();
  RestResponse create();
  RestResponse deleteCollection();
  RestResponse get();
  RestResponse update(std::string_view subresource);
  RestResponse patch(std::string_view subresource);
  RestResponse scale();
  RestResponse remove();
  RestResponse bind();

  // An object answered in the form the request negotiated.
  RestResponse objectResponse(int code, const Json& object);
  RestResponse listResponse(const ObjectList& list);
  Json tableOfObjects(const std::vector<ObjectPtr>& objects, const std::string& rv,
                      const std::string& continueToken, bool noHeaders) const;
  TableOptions tableOptions(bool noHeaders) const;
  bool exists();

  ApiServer& server_;
  const RestRequest& request_;
  Target t_;
  NegotiatedForm form_;
};

RestResponse Call::run() {
  if (t_.subresource == "status") return status();
  if (t_.subresource == "finalize") {
    return request_.method == "PUT" ? update("finalize") : methodNotAllowed();
  }
  if (t_.subresource == "binding") return request_.method == "POST" ? bind() : methodNotAllowed();
  if (t_.subresource == "scale") return scale();
  return t_.name.empty() ? collection() : item();
}

RestResponse Call::collection() {
  // The all-namespaces path of a namespaced kind serves only reads.
  const bool writable = t_.hasNamespace || !t_.info->namespaced;
  const std::string& m = request_.method;
  if (m == "GET" || m == "HEAD") {
    auto watchParam = boolParameter(request_, "watch");
    if (!watchParam) return RestHandler::errorResponse(watchParam.error());
    return watchParam->value_or(false) ? watch() : list();
  }
  if (m == "POST" && writable) return create();
  if (m == "DELETE" && writable) return deleteCollection();
  return methodNotAllowed();
}

RestResponse Call::item() {
  const std::string& m = request_.method;
  if (m == "GET" || m == "HEAD") return get();
  if (m == "PUT") return update("");
  if (m == "PATCH") return patch("");
  if (m == "DELETE") return remove();
  return methodNotAllowed();
}

RestResponse Call::status() {
  const std::string& m = request_.method;
  if (m == "GET" || m == "HEAD") return get();
  if (m == "PUT") return update("status");
  if (m == "PATCH") return patch("status");
  return methodNotAllowed();
}

TableOptions Call::tableOptions(bool noHeaders) const {
  TableOptions options;
  options.apiVersion = form_.apiVersion;
  options.includeObject = request_.param("includeObject").value_or("Metadata");
  options.noHeaders = noHeaders;
  options.now = server_.clock().now();
  return options;
}

Json Call::tableOfObjects(const std::vector<ObjectPtr>& objects, const std::string& rv,
                          const std::string& continueToken, bool noHeaders) const {
  return tableOf(*t_.info, objects, tableOptions(noHeaders), rv, continueToken);
}

RestResponse Call::objectResponse(int code, const Json& object) {
  // Answers that are not the object (a Status from DELETE or a binding) go out as they are.
  const bool isObject = meta::kind(object) == t_.info->kind;
  if (!isObject || form_.form == ResponseForm::Object) return jsonResponse(code, object);
  if (form_.form == ResponseForm::PartialObjectMetadata) {
    return jsonResponse(code, partialObjectMetadata(object, form_.apiVersion));
  }
  auto shared = std::make_shared<const Json>(object);
  return jsonResponse(code, tableOfObjects({shared}, meta::resourceVersion(object), "", false));
}

RestResponse Call::listResponse(const ObjectList& list) {
  if (form_.form == ResponseForm::Table && list.items.size() > kWholeListItems) {
    // Streamed as the list below: the Table's head (its members sort before "rows", which is
    // last, so its text ends in `[]}`), then its rows made kTableRowsPerPiece objects at a time.
    std::string head = toJsonText(
        tableOfObjects({}, list.resourceVersion, list.continueToken, /*noHeaders=*/false));
    head.resize(head.size() - 2);
    RestResponse response;
    response.produce = [items = list.items, head = std::move(head), info = t_.info,
                        options = tableOptions(/*noHeaders=*/true),
                        next = std::size_t{0}](std::string& out) mutable {
      if (next == 0) out.append(head);
      while (next < items.size() && out.size() < kListPieceBytes) {
        const std::size_t end = std::min(items.size(), next + kTableRowsPerPiece);
        const std::vector<ObjectPtr> chunk(items.begin() + static_cast<std::ptrdiff_t>(next),
                                           items.begin() + static_cast<std::ptrdiff_t>(end));
        const Json part = tableOf(*info, chunk, options, "", "");
        for (const Json& row : part["rows"]) {
          if (next++ > 0) out.push_back(',');
          appendJson(out, row);
        }
      }
      if (next < items.size()) return true;
      out.append("]}");
      return false;
    };
    return response;
  }
  if (form_.form == ResponseForm::Table) {
    return jsonResponse(
        200, tableOfObjects(list.items, list.resourceVersion, list.continueToken, false));
  }
  if (form_.form == ResponseForm::PartialObjectMetadata) {
    return jsonResponse(200, partialObjectMetadataList(list, form_.apiVersion));
  }
  // Written item by item: a large list is never copied into one document first, and is sent as
  // it is written (a piece of about kListPieceBytes at a time), never held whole.
  std::string head;
  head.append(R"({"kind":)");
  appendJson(head, list.kind);
  head.append(R"(,"apiVersion":)");
  appendJson(head, list.apiVersion);
  head.append(R"(,"metadata":{"resourceVersion":)");
  appendJson(head, list.resourceVersion);
  if (!list.continueToken.empty()) {
    head.append(R"(,"continue":)");
    appendJson(head, list.continueToken);
  }
  head.append(R"(},"items":[)");
  RestResponse response;
  if (list.items.size() <= kWholeListItems) {
    response.body = std::move(head);
    for (std::size_t i = 0; i < list.items.size(); ++i) {
      if (i > 0) response.body.push_back(',');
      appendJson(response.body, *list.items[i]);
    }
    response.body.append("]}");
    return response;
  }
  response.produce = [items = list.items, head = std::move(head),
                      next = std::size_t{0}](std::string& out) mutable {
    if (next == 0) out.append(head);
    while (next < items.size() && out.size() < kListPieceBytes) {
      if (next > 0) out.push_back(',');
      appendJson(out, *items[next++]);
    }
    if (next < items.size()) return true;
    out.append("]}");
    return false;
  };
  return response;
}

RestResponse Call::list() {
  auto options = listOptions(request_);
  if (!options) return RestHandler::errorResponse(options.error());
  auto result = server_.list(t_.gvr, t_.ns, *options);
  if (!result) return RestHandler::errorResponse(result.error());
  return listResponse(*result);
}

RestResponse Call::watch() {
  auto options = watchOptions(request_);
  if (!options) return RestHandler::errorResponse(options.error());
  auto watch = server_.watch(t_.gvr, t_.ns, *options);
  if (!watch) return RestHandler::errorResponse(watch.error());

  WatchStream::Encoder encode;
  if (form_.form == ResponseForm::PartialObjectMetadata) {
    encode = [apiVersion = form_.apiVersion](const WatchEvent& event) {
      return partialObjectMetadata(*event.object, apiVersion);
    };
  } else if (form_.form == ResponseForm::Table) {
    // Column definitions go with the first event only, as the API server sends them.
    encode = [info = t_.info, options = tableOptions(false), &clock = server_.clock(),
              headersSent = false](const WatchEvent& event) mutable {
      if (event.type == WatchEventType::Bookmark) return *event.object;
      TableOptions now = options;
      now.now = clock.now();
      now.noHeaders = headersSent;
      headersSent = true;
      return tableOf(*info, {event.object}, now, meta::resourceVersion(*event.object));
    };
  }
  RestResponse response;
  response.stream = std::make_shared<WatchStream>(std::move(*watch), std::move(encode));
  return response;
}

RestResponse Call::create() {
  if (auto error = checkFieldValidation(request_, "CreateOptions")) {
    return RestHandler::errorResponse(*error);
  }
  auto dryRun = dryRunParam(request_, "CreateOptions");
  if (!dryRun) return RestHandler::errorResponse(dryRun.error());
  auto body = decodeBody(request_);
  if (!body) return RestHandler::errorResponse(body.error());
  if (auto error = checkCustomResourceTypeMeta(request_, *t_.info, t_.gvr, *body)) {
    return RestHandler::errorResponse(*error);
  }
  std::vector<std::string> warnings;
  CreateOptions options;
  static_cast<WriteWarnings&>(options) = writeWarnings(request_, warnings);
  options.dryRun = *dryRun;
  options.fieldManager = fieldManagerParam(request_);
  auto created = server_.create(t_.gvr, t_.ns, std::move(*body), options);
  if (!created) return RestHandler::errorResponse(created.error());
  return withWarnings(objectResponse(201, **created), warnings);
}

RestResponse Call::deleteCollection() {
  auto list = listOptions(request_);
  if (!list) return RestHandler::errorResponse(list.error());
  auto options = deleteOptions(request_);
  if (!options) return RestHandler::errorResponse(options.error());
  auto deleted = server_.deleteCollection(t_.gvr, t_.ns, *list, *options);
  if (!deleted) return RestHandler::errorResponse(deleted.error());
  return listResponse(*deleted);
}

RestResponse Call::get() {
  if (auto error = checkGetResourceVersion(request_, server_.revision())) {
    return RestHandler::errorResponse(*error);
  }
  auto object = server_.get(t_.gvr, t_.ns, t_.name);
  if (!object) return RestHandler::errorResponse(object.error());
  return objectResponse(200, **object);
}

bool Call::exists() { return server_.get(t_.gvr, t_.ns, t_.name).has_value(); }

RestResponse Call::update(std::string_view subresource) {
  if (auto error = checkFieldValidation(request_, "UpdateOptions")) {
    return RestHandler::errorResponse(*error);
  }
  auto dryRun = dryRunParam(request_, "UpdateOptions");
  if (!dryRun) return RestHandler::errorResponse(dryRun.error());
  auto body = decodeBody(request_);
  if (!body) return RestHandler::errorResponse(body.error());
  if (auto error = checkCustomResourceTypeMeta(request_, *t_.info, t_.gvr, *body)) {
    return RestHandler::errorResponse(*error);
  }
  if (auto error = checkBodyName(*body, t_.name)) return RestHandler::errorResponse(*error);
  std::vector<std::string> warnings;
  UpdateOptions options;
  static_cast<WriteWarnings&>(options) = writeWarnings(request_, warnings);
  options.dryRun = *dryRun;
  options.fieldManager = fieldManagerParam(request_);
  // Kinds that PUT may create answer 201 when it did.
  const bool creates = subresource.empty() && t_.info->allowCreateOnUpdate && !exists();
  Result<ObjectPtr> updated =
      subresource.empty()
          ? server_.update(t_.gvr, t_.ns, std::move(*body), options)
          : server_.updateSubresource(t_.gvr, t_.ns, std::move(*body), subresource, options);
  if (!updated) return RestHandler::errorResponse(updated.error());
  return withWarnings(objectResponse(creates ? 201 : 200, **updated), warnings);
}

RestResponse Call::patch(std::string_view subresource) {
  auto type = patchTypeFor(request_.contentType);
  if (!type || (*type == PatchType::StrategicMerge && t_.info->custom)) {
    std::string accepted =
        "application/json-patch+json, application/merge-patch+json, "
        "application/apply-patch+yaml";
    if (!t_.info->custom) accepted += ", application/strategic-merge-patch+json";
    return RestHandler::errorResponse(Status::unsupportedMediaType(
        "the body of the request was in an unknown format - accepted media types include: " +
        accepted));
  }
  if (auto error = checkFieldValidation(request_, "PatchOptions")) {
    return RestHandler::errorResponse(*error);
  }
  auto dryRun = dryRunParam(request_, "PatchOptions");
  if (!dryRun) return RestHandler::errorResponse(dryRun.error());
  auto force = boolParameter(request_, "force");
  if (!force) return RestHandler::errorResponse(force.error());
  std::vector<std::string> warnings;
  PatchOptions options;
  static_cast<WriteWarnings&>(options) = writeWarnings(request_, warnings);
  options.dryRun = *dryRun;
  // Apply names its manager itself (required); the other patches default to the User-Agent's.
  options.fieldManager = *type == PatchType::Apply ? request_.param("fieldManager").value_or("")
                                                   : fieldManagerParam(request_);
  options.force = force->value_or(false);

  // Apply bodies are YAML or JSON; the API server reads them (parseAppliedConfiguration).
  bool creates = false;
  auto patched =
      server_.patch(t_.gvr, t_.ns, t_.name, *type, request_.body, options, subresource, &creates);
  if (!patched) return RestHandler::errorResponse(patched.error());
  return withWarnings(objectResponse(creates ? 201 : 200, **patched), warnings);
}

// --- the scale subresource (autoscaling/v1 Scale of a Deployment or ReplicaSet) ---

namespace {

// spec.selector as the label-selector string Scale.status.selector carries ("app=web,tier=db").
std::string selectorString(const Json& object) {
  const Json& selector = jsonAt(object, {"spec", "selector"});
  std::string out;
  auto append = [&out](const std::string& term) {
    if (!out.empty()) out += ",";
    out += term;
  };
  // A ReplicationController's selector is a plain map of labels.
  const bool plainMap = selector.is_object() && !selector.contains("matchLabels") &&
                        !selector.contains("matchExpressions");
  if (const Json& labels = plainMap ? selector : jsonAt(selector, {"matchLabels"});
      labels.is_object()) {
    for (const auto& [key, value] : labels.items()) {
      if (value.is_string()) append(key + "=" + value.get<std::string>());
    }
  }
  if (const Json& expressions = jsonAt(selector, {"matchExpressions"}); expressions.is_array()) {
    for (const auto& e : expressions) {
      const std::string key = e.value("key", ""), op = e.value("operator", "");
      std::vector<std::string> values;
      if (auto v = e.find("values"); v != e.end() && v->is_array()) {
        for (const auto& item : *v) {
          if (item.is_string()) values.push_back(item.get<std::string>());
        }
      }
      if (op == "In" || op == "NotIn") {
        append(fmt::format("{} {} ({})", key, op == "In" ? "in" : "notin", fmt::join(values, ",")));
      } else if (op == "Exists") {
        append(key);
      } else if (op == "DoesNotExist") {
        append("!" + key);
      }
    }
  }
  return out;
}

Json scaleOf(const Json& object) {
  const Json& metadata = object.at("metadata");
  Json scaleMetadata = Json::object();
  for (const char* key : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    if (auto it = metadata.find(key); it != metadata.end()) scaleMetadata[key] = *it;
  }
  const Json& specReplicas = jsonAt(object, {"spec", "replicas"});
  const Json& statusReplicas = jsonAt(object, {"status", "replicas"});
  return {{"apiVersion", "autoscaling/v1"},
          {"kind", "Scale"},
          {"metadata", std::move(scaleMetadata)},
          {"spec", {{"replicas", specReplicas.is_number_integer() ? specReplicas : Json(1)}}},
          {"status",
           {{"replicas", statusReplicas.is_number_integer() ? statusReplicas : Json(0)},
            {"selector", selectorString(object)}}}};
}

}  // namespace

RestResponse Call::scale() {
  const std::string& m = request_.method;
  if (m != "GET" && m != "HEAD" && m != "PUT" && m != "PATCH") return methodNotAllowed();
  auto current = server_.get(t_.gvr, t_.ns, t_.name);
  if (!current) return RestHandler::errorResponse(current.error());
  if (m == "GET" || m == "HEAD") return objectResponse(200, scaleOf(**current));

  // The Scale the client wants: the body (PUT), or the current Scale patched (PATCH).
  Result<Json> wanted = tl::unexpected(Status::badRequest("no body"));
  if (m == "PUT") {
    wanted = decodeBody(request_);
  } else {
    const Json currentScale = scaleOf(**current);
    auto type = patchTypeFor(request_.contentType);
    if (!type || *type == PatchType::Apply) {
      return RestHandler::errorResponse(Status::unsupportedMediaType(
          "the body of the request was in an unknown format - accepted media types include: "
          "application/json-patch+json, application/merge-patch+json, "
          "application/strategic-merge-patch+json"));
    }
    // A Scale has no lists: a strategic merge patch of it is a merge patch.
    wanted = *type == PatchType::Json ? applyJsonPatch(currentScale, request_.body)
                                      : applyMergePatch(currentScale, request_.body);
  }
  if (!wanted) return RestHandler::errorResponse(wanted.error());
  const Json& replicas = jsonAt(*wanted, {"spec", "replicas"});
  if (!replicas.is_number_integer() || replicas.get<std::int64_t>() < 0 ||
      replicas.get<std::int64_t>() > INT32_MAX) {
    return RestHandler::errorResponse(
        Status::invalid("autoscaling", "Scale", t_.name,
                        {FieldError::invalid("spec.replicas", replicas.dump(),
                                             "must be greater than or equal to 0")}));
  }
  Json object = **current;
  object["spec"]["replicas"] = replicas;
  // A resourceVersion in the Scale is a precondition, as on the object itself.
  if (std::string rv = jsonAt(*wanted, {"metadata", "resourceVersion"}).is_string()
                           ? jsonAt(*wanted, {"metadata", "resourceVersion"}).get<std::string>()
                           : std::string();
      !rv.empty()) {
    object["metadata"]["resourceVersion"] = rv;
  }
  UpdateOptions options;
  auto dryRun = dryRunParam(request_, "UpdateOptions");
  if (!dryRun) return RestHandler::errorResponse(dryRun.error());
  options.dryRun = *dryRun;
  options.fieldManager = fieldManagerParam(request_);
  auto updated = server_.update(t_.gvr, t_.ns, std::move(object), options);
  if (!updated) return RestHandler::errorResponse(updated.error());
  return objectResponse(200, scaleOf(**updated));
}

RestResponse Call::remove() {
  auto options = deleteOptions(request_);
  if (!options) return RestHandler::errorResponse(options.error());
  auto deleted = server_.deleteObject(t_.gvr, t_.ns, t_.name, *options);
  if (!deleted) return RestHandler::errorResponse(deleted.error());
  return objectResponse(200, server_.deleteResponse(t_.gvr, *deleted));
}

RestResponse Call::bind() {
  auto dryRun = dryRunParam(request_, "CreateOptions");
  if (!dryRun) return RestHandler::errorResponse(dryRun.error());
  auto body = decodeBody(request_);
  if (!body) return RestHandler::errorResponse(body.error());
  CreateOptions options;
  options.dryRun = *dryRun;
  options.fieldManager = fieldManagerParam(request_);
  auto bound =
      server_.createSubresource(t_.gvr, t_.ns, t_.name, "binding", std::move(*body), options);
  if (!bound) return RestHandler::errorResponse(bound.error());
  const int code =
      bound->is_object() && bound->value("code", 0) > 0 ? bound->value("code", 0) : 201;
  return jsonResponse(code, *bound);
}

// The CRD objects, whose schemas the OpenAPI documents publish.
CustomResourceDefinitions customResourceDefinitions(ApiServer& server) {
  auto list = server.list({"apiextensions.k8s.io", "v1", "customresourcedefinitions"}, "");
  if (!list) return {};
  return CustomResourceDefinitions(list->items.begin(), list->items.end());
}

Json versionDocument() {
  return {{"major", "1"},
          {"minor", "32"},
          {"gitVersion", "v1.32.0-fakekube"},
          {"gitCommit", "0000000000000000000000000000000000000000"},
          {"gitTreeState", "clean"},
          {"buildDate", "2024-01-01T00:00:00Z"},
          {"goVersion", "go1.23.0"},
          {"compiler", "gc"},
          {"platform", "linux/amd64"}};
}

}  // namespace

RestHandler::RestHandler(ApiServer& server, std::string serverAddress, ProxyTransport* network,
                         ContainerLogSource* containerLogs)
    : server_(server),
      serverAddress_(std::move(serverAddress)),
      network_(network),
      containerLogs_(containerLogs) {}

RestResponse RestHandler::errorResponse(const Status& status) {
  RestResponse response = jsonResponse(status.code, status.toJson());
  if (status.details.retryAfterSeconds > 0 || status.code == 429) {
    response.headers.emplace_back("Retry-After",
                                  std::to_string(std::max(1, status.details.retryAfterSeconds)));
  }
  return response;
}

RestResponse RestHandler::handle(const RestRequest& request) {
  const std::vector<std::string> s = pathSegments(request.path);
  const bool read = request.method == "GET" || request.method == "HEAD";
  const ResourceRegistry& registry = server_.registry();

  if (s.empty()) return notFound();
  if (s.size() == 1 && s[0] == "version") {
    return read ? jsonResponse(200, versionDocument()) : methodNotAllowed();
  }
  if (s[0] == "healthz" || s[0] == "readyz" || s[0] == "livez") {
    return read ? textResponse("ok") : methodNotAllowed();
  }
  if (s[0] == "openapi") {
    if (s.size() == 2 && s[1] == "v2") {
      if (!read) return methodNotAllowed();
      // client-go asks for the protobuf form only; it falls back to its compiled-in types.
      if (!acceptsJson(request.accept)) {
        return errorResponse(Status::generic(406, "NotAcceptable",
                                             "only application/json is served for /openapi/v2"));
      }
      return jsonResponse(200, openApiV2Document(registry, customResourceDefinitions(server_)));
    }
    if (s.size() < 2 || s[1] != "v3") return notFound();
    if (!read) return methodNotAllowed();
    if (s.size() == 2) {
      return jsonResponse(200, openApiIndexDocument(registry, customResourceDefinitions(server_)));
    }
    std::string gvPath = s[2];
    for (std::size_t i = 3; i < s.size(); ++i) gvPath += "/" + s[i];
    auto document =
        openApiGroupVersionDocument(registry, gvPath, customResourceDefinitions(server_));
    if (!document) return notFound();
    RestResponse response = jsonResponse(200, *document);
    return response;
  }
  // Discovery.
  if (s.size() == 1 && (s[0] == "api" || s[0] == "apis")) {
    if (!read) return methodNotAllowed();
    if (auto version = negotiateAggregatedDiscovery(request.accept)) {
      RestResponse response =
          jsonResponse(200, aggregatedDiscoveryDocument(registry, s[0] == "api", *version));
      response.contentType = aggregatedDiscoveryContentType(*version);
      return response;
    }
    return jsonResponse(
        200, s[0] == "api" ? apiVersionsDocument(serverAddress_) : apiGroupListDocument(registry));
  }
  if (s.size() == 2 && s[0] == "apis") {
    auto group = apiGroupDocument(registry, s[1]);
    if (!group) return notFound();
    return read ? jsonResponse(200, *group) : methodNotAllowed();
  }
  if ((s.size() == 2 && s[0] == "api") || (s.size() == 3 && s[0] == "apis")) {
    auto resources = s[0] == "api" ? apiResourceListDocument(registry, "", s[1])
                                   : apiResourceListDocument(registry, s[1], s[2]);
    if (!resources) return notFound();
    return read ? jsonResponse(200, *resources) : methodNotAllowed();
  }
  if (isProxyPath(s)) return proxyRequest(server_, network_, request);
  if (isPodLogPath(s)) return podLogRequest(server_, containerLogs_, request, s);
  if (auto review = handleReview(server_, request, s)) return std::move(*review);
  auto target = resolveTarget(server_, s);
  if (!target) return notFound();
  return Call(server_, request, std::move(*target)).run();
}

}  // namespace fakekube
