#include "fakekube/apiserver/api_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/internal/patch_schema.h"
#include "fakekube/api/internal/server_side_apply.h"
#include "fakekube/api/internal/structural_schema.h"
#include "fakekube/api/internal/typed_decoding.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/validation.h"
#include "fakekube/apiserver/internal/api_server_impl.h"
#include "fakekube/apiserver/internal/field_validation.h"
#include "fakekube/apiserver/internal/patching.h"
#include "fakekube/apiserver/internal/pod_validation.h"
#include "fakekube/apiserver/internal/strategy.h"

namespace fakekube {

namespace {

constexpr int kGenerateNameAttempts = 8;
constexpr std::size_t kMaxGeneratedPrefix = 58;  // 63 - 5 random characters
constexpr std::string_view kNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";

// Objects nest no deeper than the decoders allow (json_decode.h) whoever built them, in-process
// callers and patches included: every walk over a stored object relies on it.
std::optional<Status> checkNesting(const Json& object) {
  auto tooDeep = checkJsonDepth(object);
  if (!tooDeep) return std::nullopt;
  return Status::badRequest("couldn't get version/kind; json parse error: " + *tooDeep);
}

// Whether a status write's body holds exactly the stored object's members besides .status, with
// the same values (numbers of the same kind: the body becomes the stored text).
bool sameOutsideStatus(const Json& body, const Json& stored) {
  // A body of other members (the usual metadata-and-status body) is told apart by its size.
  const bool bodyHasStatus = body.find(std::string_view("status")) != body.end();
  const bool storedHasStatus = stored.find(std::string_view("status")) != stored.end();
  if (body.size() - (bodyHasStatus ? 1 : 0) != stored.size() - (storedHasStatus ? 1 : 0)) {
    return false;
  }
  // As many members on both sides: each stored one found in the body means no other is there.
  for (auto it = stored.begin(); it != stored.end(); ++it) {
    if (it.key() == "status") continue;
    auto member = body.find(it.key());
    if (member == body.end() || !sameJson(*member, *it)) return false;
  }
  return true;
}

// A built-in object whose fields have the JSON types of its Go struct (typed_decoding.h).
std::optional<Status> checkTypes(const ResourceInfo& info, const Json& object) {
  if (info.custom || !object.is_object()) return std::nullopt;
  auto apiVersion = object.find(std::string_view("apiVersion"));
  const std::string version = apiVersion != object.end() && apiVersion->is_string()
                                  ? apiVersion->get_ref<const std::string&>()
                                  : info.apiVersion();
  if (auto error = checkFieldTypes(version, info.kind, object)) return error;
  return strategy::checkQuantities(version, info.kind, object);
}

// Checks the object's apiVersion/kind against what the request addresses and fills them in when
// absent (in-process callers may omit them; kubectl always sends them).
std::optional<Status> checkTypeMeta(const ResourceInfo& info, const GroupVersionResource& gvr,
                                    Json& object) {
  if (!object.is_object()) {
    return Status::badRequest("the body of the request must be a JSON object");
  }
  auto apiVersion = object.find(std::string_view("apiVersion"));
  if (apiVersion != object.end() && !apiVersion->is_string()) {
    return Status::badRequest("apiVersion must be a string");
  }
  const std::string requestedVersion = gvr.apiVersion();
  if (apiVersion != object.end()) {
    const std::string& sent = apiVersion->get_ref<const std::string&>();
    GroupVersion gv = GroupVersion::parse(sent);
    if (gv.group != info.group || !info.serves(gv.version)) {
      return Status::badRequest(fmt::format(
          "the API version in the data ({}) does not match the expected API version ({})", sent,
          requestedVersion));
    }
  }
  auto kind = object.find(std::string_view("kind"));
  if (kind != object.end() &&
      (!kind->is_string() || kind->get_ref<const std::string&>() != info.kind)) {
    return Status::badRequest(
        fmt::format("the kind in the data ({}) does not match the expected "
                    "kind ({})",
                    kind->is_string() ? kind->get<std::string>() : "", info.kind));
  }
  // The object is served in the version it was sent to; most requests already say so.
  if (apiVersion == object.end() || *apiVersion != requestedVersion) {
    object["apiVersion"] = requestedVersion;
  }
  if (kind == object.end()) object["kind"] = info.kind;
  auto metadata = object.find(std::string_view("metadata"));
  if (metadata != object.end() && !metadata->is_object() && !metadata->is_null()) {
    return Status::badRequest("metadata must be a JSON object");
  }
  meta::metadata(object);
  return std::nullopt;
}

// What every document a request writes must be, whoever built it: nested no deeper than the
// decoders allow, of the addressed apiVersion and kind (filled in when absent), with its Go
// struct's JSON types.
std::optional<Status> checkDocument(const ResourceInfo& info, const GroupVersionResource& gvr,
                                    Json& object) {
  if (auto error = checkNesting(object)) return error;
  if (auto error = checkTypeMeta(info, gvr, object)) return error;
  return checkTypes(info, object);
}

// A create, update or status body: checkDocument, then decoded (pruned) by the kind's fields.
std::optional<Status> checkBody(const ResourceInfo& info, const GroupVersionResource& gvr,
                                Json& object, const WriteWarnings& options) {
  if (auto error = checkDocument(info, gvr, object)) return error;
  return fieldvalidation::decodeBody(info, object, options);
}

// Reconciles the request namespace with the object's
// (EnsureObjectNamespaceMatchesRequestNamespace).
Result<std::string> reconcileNamespace(const ResourceInfo& info, std::string_view requestNs,
                                       Json& object) {
  Json& metadata = meta::metadata(object);
  if (!info.namespaced) {
    metadata.erase("namespace");
    return std::string();
  }
  auto it = metadata.find("namespace");
  if (it != metadata.end() && !it->is_string() && !it->is_null()) {
    return tl::unexpected(Status::badRequest("metadata.namespace must be a string"));
  }
  std::string objectNs = (it != metadata.end() && it->is_string()) ? it->get<std::string>() : "";
  std::string ns = requestNs.empty() ? objectNs : std::string(requestNs);
  if (!objectNs.empty() && objectNs != ns) {
    return tl::unexpected(Status::badRequest(
        "the namespace of the provided object does not match the namespace sent on the request"));
  }
  if (ns.empty()) {
    return tl::unexpected(Status::badRequest(fmt::format(
        "an empty namespace may not be set for a namespaced resource ({})", info.resource)));
  }
  if (objectNs != ns) metadata["namespace"] = ns;
  return ns;
}

// A metav1.Time as a field error shows it: Go's time.Time.String() in the server's zone (UTC),
// "2024-01-01 00:00:00 +0000 UTC". Anything that is not a timestamp is shown as JSON.
std::string goTimeString(const Json& value) {
  TimePoint t;
  if (!value.is_string() || !parseRfc3339(value.get<std::string>(), &t)) return toJsonText(value);
  std::string s = formatRfc3339(t);  // "2024-01-01T00:00:00Z"
  s[10] = ' ';
  s.pop_back();
  const auto subNanos = (t.time_since_epoch() % std::chrono::seconds(1)).count();
  if (subNanos > 0) {
    std::string fraction = fmt::format(".{:09d}", subNanos);
    while (fraction.back() == '0') fraction.pop_back();
    s += fraction;
  }
  return s + " +0000 UTC";
}

// The schema that decodes and validates a custom resource: its own version's.
const StructuralSchema* schemaOf(const ResourceInfo& info, const Json& object) {
  if (!info.custom || info.schemas.empty()) return nullptr;
  return info.schemaFor(GroupVersion::parse(meta::apiVersion(object)).version);
}

// A custom resource is decoded as kube-apiserver decodes a request body: pruned and defaulted by
// its schema (which the answer is, null for other kinds). Create never sets the status of a kind
// with the status subresource.
const StructuralSchema* decodeCustomResourceForCreate(const ResourceInfo& info, Json& object) {
  const StructuralSchema* schema = schemaOf(info, object);
  if (schema != nullptr) {
    if (info.hasStatus) object.erase("status");
    schema->decode(object);
  }
  return schema;
}

// The metadata fields that are the server's to set, dropped from a created object.
void eraseServerSetMetadata(Json& object) {
  Json& metadata = meta::metadata(object);
  for (std::string_view field : {"uid", "creationTimestamp", "deletionTimestamp",
                                 "deletionGracePeriodSeconds", "selfLink", "resourceVersion"}) {
    metadata.erase(field);
  }
}

// What a patch may not be: of a subresource other than status (or of status where the kind has
// none), a strategic merge of a custom resource, or with options its type does not take.
std::optional<Status> checkPatchRequest(const ResourceInfo& info, PatchType type,
                                        std::string_view subresource, const PatchOptions& options) {
  if (!subresource.empty() && subresource != "status") return Status::resourceNotServed();
  if (subresource == "status" && !info.hasStatus) return Status::resourceNotServed();
  if (type == PatchType::StrategicMerge && info.custom) {
    return Status::unsupportedMediaType(fmt::format(
        "the body of the request was in an unknown format - accepted media types include: "
        "application/json-patch+json, application/merge-patch+json, "
        "application/apply-patch+yaml"));
  }
  return patching::validateOptions(type, options);
}

std::string objectNameMismatchMessage(std::string_view objectName, std::string_view urlName) {
  return fmt::format("the name of the object ({}) does not match the name on the URL ({})",
                     objectName, urlName);
}

// The node a Binding names (target.name), or why the Binding is refused: its body is not an
// object, names another pod than the URL, or a target that is not a Node.
Result<std::string> bindingTargetNode(const Json& binding, std::string_view name) {
  if (!binding.is_object()) {
    return tl::unexpected(Status::badRequest("the body of the request must be a JSON object"));
  }
  if (meta::name(binding) != name) {
    return tl::unexpected(Status::badRequest("name in URL does not match name in Binding object"));
  }
  const Json& targetJson = jsonAt(binding, {"target"});
  const std::string targetKind =
      targetJson.is_object() ? targetJson.value("kind", std::string()) : "";
  const std::string node = targetJson.is_object() ? targetJson.value("name", std::string()) : "";
  FieldErrors errors;
  if (!targetKind.empty() && targetKind != "Node") {
    errors.push_back(
        FieldError::notSupported("target.kind", goQuote(targetKind), "supported values: \"Node\""));
  }
  if (node.empty()) errors.push_back(FieldError::required("target.name"));
  if (!errors.empty()) {
    return tl::unexpected(Status::invalid("", "Binding", name, errors));
  }
  return node;
}

// The revision an object was written at (its resourceVersion), 0 when it has none.
std::int64_t writtenAt(const Json& object) {
  const std::string rv = meta::resourceVersion(object);
  std::int64_t revision = 0;
  std::from_chars(rv.data(), rv.data() + rv.size(), revision);
  return revision;
}

std::string quotedList(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const auto& i : items) quoted.push_back(goQuote(i));
  return fmt::format("[]string{{{}}}", fmt::join(quoted, ", "));
}

}  // namespace

const char* patchTypeName(PatchType type) {
  switch (type) {
    case PatchType::Json:
      return "application/json-patch+json";
    case PatchType::Merge:
      return "application/merge-patch+json";
    case PatchType::StrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::Apply:
      return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

const char* verbName(Verb verb) {
  switch (verb) {
    case Verb::Create:
      return "create";
    case Verb::Get:
      return "get";
    case Verb::List:
      return "list";
    case Verb::Update:
      return "update";
    case Verb::Patch:
      return "patch";
    case Verb::Delete:
      return "delete";
    case Verb::DeleteCollection:
      return "deletecollection";
    case Verb::Watch:
      return "watch";
  }
  return "get";
}

Result<std::unique_ptr<ApiServer::Impl>> ApiServer::Impl::open(Clock& clock,
                                                               ApiServerOptions options) {
  auto store = Store::open(options.store);
  if (!store) return tl::unexpected(store.error());
  auto server = std::make_unique<Impl>(clock, std::move(options), std::move(*store));
  // Custom kinds persisted in a file-backed store are served again after a restart.
  std::vector<ObjectPtr> crds;
  server->store_->scan("apiextensions.k8s.io/customresourcedefinitions/", "",
                       [&](const std::string&, const ObjectPtr& crd) {
                         crds.push_back(crd);
                         return true;
                       });
  for (const auto& crd : crds) server->onCustomResourceDefinition(*crd, false);
  server->store_->scan("/services/", "", [&](const std::string&, const ObjectPtr& service) {
    const Json& spec = jsonAt(*service, {"spec"});
    if (spec.is_object()) server->clusterIps_.allocate(spec.value("clusterIP", std::string()));
    return true;
  });
  server->loadRbacPolicy();
  if (auto r = server->ensureSystemNamespaces(); !r) return tl::unexpected(r.error());
  if (auto r = server->ensureBootstrapPolicy(); !r) return tl::unexpected(r.error());
  return server;
}

ApiServer::Impl::Impl(Clock& clock, ApiServerOptions options, std::unique_ptr<Store> store)
    : clock_(clock),
      options_(std::move(options)),
      store_(std::move(store)),
      hub_(options_.watchBacklog, options_.watchRing) {
  random_.seed(options_.seed ? *options_.seed : std::random_device{}());
  // Every committed write fans out to the watches; the store calls this under mu_. A deleted
  // Service gives its cluster IP back, whichever path removed it.
  store_->setObserver([this](const StoredEvent& event) {
    if (event.type == EventType::Deleted && event.key.starts_with("/services/")) {
      const Json& spec = jsonAt(*event.object, {"spec"});
      if (spec.is_object()) clusterIps_.release(spec.value("clusterIP", std::string()));
    }
    observeRbacEvent(event);
    hub_.onEvent(event);
  });
}

std::optional<Status> ApiServer::Impl::assignClusterIp(Json& service, bool dryRun) {
  Json& spec = service["spec"];
  if (!spec.is_object()) spec = Json::object();
  if (spec.value("type", std::string("ClusterIP")) == "ExternalName") return std::nullopt;
  std::string ip = spec.value("clusterIP", std::string());
  if (ip == "None") {  // headless
    spec["clusterIPs"] = Json::array({"None"});
    return std::nullopt;
  }
  auto refuse = [&](const std::string& why) {
    return Status::invalid(
        "", "Service", meta::name(service),
        {FieldError::invalidString("spec.clusterIPs[0]", ip,
                                   fmt::format("failed to allocate IP {}: {}", ip, why))});
  };
  if (ip.empty()) {
    auto next = clusterIps_.allocateNext();
    if (!next) return Status::internal("failed to allocate a serviceIP: range is full");
    ip = *next;
    if (dryRun) clusterIps_.release(ip);
  } else {
    auto outcome = dryRun ? clusterIps_.check(ip) : clusterIps_.allocate(ip);
    switch (outcome) {
      case ClusterIpAllocator::Outcome::Allocated:
        break;
      case ClusterIpAllocator::Outcome::InUse:
        return refuse("provided IP is already allocated");
      case ClusterIpAllocator::Outcome::NotInRange:
        return refuse(
            fmt::format("the provided IP ({}) is not in the valid range. The range of "
                        "valid IPs is {}",
                        ip, ClusterIpAllocator::kRange));
      case ClusterIpAllocator::Outcome::Malformed:
        return Status::invalid("", "Service", meta::name(service),
                               {FieldError::invalidString("spec.clusterIPs[0]", ip,
                                                          "must be a valid IP address, (e.g. "
                                                          "10.9.8.7 or 2001:db8::ffff)")});
    }
  }
  spec["clusterIP"] = ip;
  spec["clusterIPs"] = Json::array({ip});
  spec["ipFamilies"] = Json::array({"IPv4"});
  spec["ipFamilyPolicy"] = "SingleStack";
  return std::nullopt;
}

ApiServer::Impl::~Impl() {
  std::lock_guard lock(mu_);
  hub_.closeAll();
}

Result<std::shared_ptr<Watch>> ApiServer::Impl::watch(const GroupVersionResource& gvr,
                                                      std::string_view ns,
                                                      const WatchOptions& options) {
  Request request{Verb::Watch, gvr, "", std::string(ns), ""};
  return intercepted<std::shared_ptr<Watch>>(request, [&]() -> Result<std::shared_ptr<Watch>> {
    auto t = target(gvr, ns);
    if (!t) return tl::unexpected(t.error());
    if (options.timeoutSeconds && *options.timeoutSeconds < 0) {
      return tl::unexpected(Status::badRequest("timeoutSeconds must not be negative"));
    }
    Result<std::shared_ptr<Watch>> watch;
    {
      std::lock_guard lock(mu_);
      // The initial state is read from storage, so custom resources are decoded as a GET
      // decodes them.
      const ResourceInfo& info = *t->info;
      watch = hub_.watch(info, t->ns, options, *store_, [&](ObjectPtr object) {
        return inRequestedVersion(info, gvr, std::move(object));
      });
    }
    if (watch && options.timeoutSeconds) {
      const auto timeout = std::chrono::seconds(*options.timeoutSeconds);
      (*watch)->setDeadline(&clock_, clock_.now() + timeout);
      if (options_.executor != nullptr) {
        std::weak_ptr<Watch> weak = *watch;
        options_.executor->postAfter(timeout, [weak] {
          if (auto w = weak.lock()) w->expire();
        });
      }
    }
    return watch;
  });
}

void ApiServer::Impl::sendBookmarks() {
  std::lock_guard lock(mu_);
  hub_.sendBookmarks(store_->revision());
}

Result<std::size_t> ApiServer::Impl::closeWatches(const GroupVersionResource& gvr,
                                                  std::optional<Status> error) {
  auto t = target(gvr, "");
  if (!t) return tl::unexpected(t.error());
  std::lock_guard lock(mu_);
  return hub_.closeWatches(*t->info, error ? &*error : nullptr);
}

ObjectPtr ApiServer::Impl::inRequestedVersion(const ResourceInfo& info,
                                              const GroupVersionResource& gvr,
                                              ObjectPtr object) const {
  // Custom resources are served in every version with the "None" conversion: only apiVersion
  // changes. A built-in is served in the version it is stored in, or converted from another
  // kind's storage.
  if (info.conversion != nullptr) return toServed(info, std::move(object));
  if (!info.custom) return object;
  const std::string apiVersion = gvr.apiVersion();
  const bool sameVersion = meta::apiVersion(*object) == apiVersion;
  const StructuralSchema* schema = info.schemaFor(gvr.version);
  const bool stale =
      schema != nullptr && (!sameVersion || writtenAt(*object) < info.schemaRevision);
  if (sameVersion && !stale) return object;
  Json copy = *object;
  copy["apiVersion"] = apiVersion;
  if (stale) schema->decode(copy);
  return std::make_shared<const Json>(std::move(copy));
}

Json ApiServer::Impl::toStorage(const ResourceInfo& info, Json served) {
  if (info.conversion == nullptr) return served;
  return info.conversion->toStorage(served);
}

ObjectPtr ApiServer::Impl::toServed(const ResourceInfo& info, ObjectPtr stored) {
  if (info.conversion == nullptr || stored == nullptr) return stored;
  return std::make_shared<const Json>(info.conversion->fromStorage(*stored));
}

ObjectPtr ApiServer::Impl::fromStorage(const ResourceInfo& info, ObjectPtr object) const {
  if (info.conversion != nullptr) return toServed(info, std::move(object));
  if (object == nullptr || !info.custom) return object;
  const StructuralSchema* schema = schemaOf(info, *object);
  if (schema == nullptr || writtenAt(*object) >= info.schemaRevision) return object;
  Json copy = *object;
  if (!schema->decode(copy)) return object;
  return std::make_shared<const Json>(std::move(copy));
}

Result<void> ApiServer::Impl::ensureSystemNamespaces() {
  auto info = registry_.find("", "namespaces");
  std::lock_guard lock(mu_);
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    if (store_->get(key(*info, "", name)) != nullptr) continue;
    Json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
    auto r = createLocked(*info, "", std::move(ns), false, {.manager = "kube-apiserver"});
    if (!r) return tl::unexpected(r.error());
  }
  return {};
}

std::int64_t ApiServer::Impl::revision() const {
  std::lock_guard lock(mu_);
  return store_->revision();
}

std::int64_t ApiServer::Impl::compactedRevision() const {
  std::lock_guard lock(mu_);
  return store_->compactedRevision();
}

Result<std::int64_t> ApiServer::Impl::compact(std::int64_t revision) {
  std::lock_guard lock(mu_);
  return store_->compact(revision);
}

void ApiServer::Impl::addInterceptor(std::shared_ptr<Interceptor> interceptor) {
  std::lock_guard lock(interceptorsMu_);
  interceptors_.push_back(std::move(interceptor));
}

void ApiServer::Impl::removeInterceptor(const Interceptor* interceptor) {
  std::lock_guard lock(interceptorsMu_);
  std::erase_if(interceptors_, [&](const auto& i) { return i.get() == interceptor; });
}

Result<GroupVersionResource> ApiServer::Impl::resourceFor(std::string_view apiVersion,
                                                          std::string_view kind) const {
  auto info = registry_.findKind(apiVersion, kind);
  if (info == nullptr) {
    return tl::unexpected(Status::generic(
        404, "NotFound",
        fmt::format("no matches for kind {} in version {}", goQuote(kind), goQuote(apiVersion))));
  }
  GroupVersion gv = GroupVersion::parse(apiVersion);
  return GroupVersionResource{info->group, gv.version, info->resource};
}

Result<ApiServer::Impl::Target> ApiServer::Impl::target(const GroupVersionResource& gvr,
                                                        std::string_view ns) const {
  auto info = registry_.find(gvr);
  if (info == nullptr) return tl::unexpected(Status::resourceNotServed());
  return Target{info, info->namespaced ? std::string(ns) : std::string()};
}

std::string ApiServer::Impl::key(const ResourceInfo& info, std::string_view ns,
                                 std::string_view name) const {
  const std::string& group = info.storedGroup();
  const std::string& resource = info.storedResource();
  std::string k;
  k.reserve(group.size() + resource.size() + ns.size() + name.size() + 3);
  k.append(group).append("/").append(resource).append("/").append(ns).append("/").append(name);
  return k;
}

std::string ApiServer::Impl::prefix(const ResourceInfo& info, std::string_view ns) const {
  std::string p = info.storedGroup() + "/" + info.storedResource() + "/";
  if (!ns.empty()) p.append(ns).append("/");
  return p;
}

template <class T>
Result<T> ApiServer::Impl::intercepted(Request request, Action<T> action) {
  request.user = currentRequestUser();
  // The server's own requests (no user) pass without a lock or a string built.
  std::optional<Status> forbidden;
  if (request.user != nullptr && options_.authorization == AuthorizationMode::RBAC) {
    forbidden = authorizeRequest(request);
  }
  std::vector<std::shared_ptr<Interceptor>> chain;
  {
    std::lock_guard lock(interceptorsMu_);
    if (interceptors_.empty()) {
      if (forbidden) return tl::unexpected(std::move(*forbidden));
      return action();
    }
    chain = interceptors_;
  }
  if (forbidden) {
    // Refused by the authorizer before any interceptor acted: they see the refusal only, as an
    // audit log records a 403 (before() does not run, nothing is written). One may replace the
    // error, not turn it into success.
    std::optional<Status> error = forbidden;
    for (const auto& interceptor : chain) interceptor->after(request, error);
    return tl::unexpected(error ? std::move(*error) : std::move(*forbidden));
  }
  std::optional<Status> refused;
  for (const auto& interceptor : chain) {
    if ((refused = interceptor->before(request))) break;
  }
  Result<T> response = refused ? Result<T>(tl::unexpected(*refused)) : action();
  request.body = nullptr;  // the action may have consumed it
  std::optional<Status> error;
  if (!response) error = response.error();
  for (const auto& interceptor : chain) interceptor->after(request, error);
  // An interceptor can turn an answer into an error (or into another error), not into success.
  if (error) return tl::unexpected(*error);
  return response;
}

template Result<ObjectPtr> ApiServer::Impl::intercepted(Request, Action<ObjectPtr>);
template Result<ObjectList> ApiServer::Impl::intercepted(Request, Action<ObjectList>);
template Result<std::shared_ptr<Watch>> ApiServer::Impl::intercepted(
    Request, Action<std::shared_ptr<Watch>>);
template Result<DeleteResult> ApiServer::Impl::intercepted(Request, Action<DeleteResult>);

std::string ApiServer::Impl::newUid() {
  std::uint64_t hi = random_();
  std::uint64_t lo = random_();
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  // 8-4-4-4-12 lower-case hex digits, as fmt's "{:08x}-{:04x}-..." would write them, without a
  // format string to interpret on every create.
  std::string uid(36, '-');
  auto hex = [&uid](std::size_t at, std::uint64_t bits, int digits) {
    for (int i = digits - 1; i >= 0; --i, bits >>= 4) {
      uid[at + static_cast<std::size_t>(i)] = "0123456789abcdef"[bits & 0xf];
    }
  };
  hex(0, hi >> 32, 8);
  hex(9, hi >> 16, 4);
  hex(14, hi, 4);
  hex(19, lo >> 48, 4);
  hex(24, lo, 12);
  return uid;
}

std::string ApiServer::Impl::generateName(std::string_view prefix) {
  std::string name(prefix.substr(0, std::min(prefix.size(), kMaxGeneratedPrefix)));
  for (int i = 0; i < 5; ++i) name += kNameAlphabet[random_() % kNameAlphabet.size()];
  return name;
}

std::string ApiServer::Impl::now() const { return formatRfc3339(clock_.now()); }

Result<ObjectPtr> ApiServer::Impl::put(const std::string& key, Json object, EventType type) {
  return store_->put(key, std::move(object), type);
}

void ApiServer::Impl::onCustomResourceDefinition(const Json& crd, bool removed) {
  auto info = ResourceRegistry::fromCustomResourceDefinition(crd);
  if (!info) return;
  if (removed) {
    // The instances go with their definition (on a cluster the CRD's cleanup finalizer deletes
    // them before the definition goes), so a later definition of the kind does not resurrect them.
    std::vector<std::pair<std::string, ObjectPtr>> instances;
    store_->scan(prefix(*info, ""), "", [&](const std::string& k, const ObjectPtr& object) {
      instances.emplace_back(k, object);
      return true;
    });
    for (const auto& [k, object] : instances) (void)store_->remove(k, *object);
    registry_.remove(info->groupResource());
  } else {
    // The schemas changed with this revision of the definition, unless they are the ones
    // already served (a status or metadata write): then the compiled ones and their revision
    // stay, and objects stored since need no decoding on read.
    info->schemaRevision = writtenAt(crd);
    if (auto existing = registry_.find(info->group, info->resource);
        existing != nullptr && existing->custom &&
        existing->schemas.size() == info->schemas.size()) {
      bool same = true;
      for (std::size_t i = 0; same && i < info->schemas.size(); ++i) {
        same = existing->schemas[i].first == info->schemas[i].first &&
               existing->schemas[i].second->source() == info->schemas[i].second->source();
      }
      if (same) {
        info->schemas = existing->schemas;
        info->schemaRevision = existing->schemaRevision;
      }
    }
    registry_.add(std::move(*info));
  }
  // A request's remembered authorization assumed the scope the resource had.
  std::unique_lock policyLock(policyMu_);
  policyGeneration_.fetch_add(1, std::memory_order_release);
}

std::optional<Status> ApiServer::Impl::checkNamespaceForCreate(const ResourceInfo& info,
                                                               const std::string& ns,
                                                               const std::string& name) const {
  if (!info.namespaced) return std::nullopt;
  ObjectPtr nsObject = store_->get("/namespaces//" + ns);
  if (nsObject == nullptr) return Status::notFound({"", "namespaces"}, ns);
  const Json& phase = jsonAt(*nsObject, {"status", "phase"});
  bool terminating = meta::isDeleting(*nsObject) || phase == "Terminating";
  if (terminating) {
    Status s = Status::forbidden(
        info.groupResource(), name,
        fmt::format("unable to create new content in namespace {} because it is being terminated",
                    ns));
    s.details.causes.push_back({"NamespaceTerminating",
                                fmt::format("namespace {} is being terminated", ns),
                                "metadata.namespace"});
    return s;
  }
  return std::nullopt;
}

// --- create ---

Result<ObjectPtr> ApiServer::Impl::create(const GroupVersionResource& gvr, std::string_view ns,
                                          Json object, const CreateOptions& options) {
  Request request{Verb::Create, gvr, "", std::string(ns), meta::name(object), &object};
  request.dryRun = options.dryRun;
  return intercepted<ObjectPtr>(request, [&]() -> Result<ObjectPtr> {
    auto t = target(gvr, ns);
    if (!t) return tl::unexpected(t.error());
    if (auto error = checkBody(*t->info, gvr, object, options)) return tl::unexpected(*error);
    std::lock_guard lock(mu_);
    return createLocked(*t->info, t->ns, std::move(object), options.dryRun,
                        {.manager = options.fieldManager});
  });
}

Result<ObjectPtr> ApiServer::Impl::createLocked(const ResourceInfo& info, std::string requestNs,
                                                Json object, bool dryRun, const Writer& writer) {
  if (!object.contains("apiVersion")) object["apiVersion"] = info.apiVersion();
  if (!object.contains("kind")) object["kind"] = info.kind;
  auto ns = reconcileNamespace(info, requestNs, object);
  if (!ns) return tl::unexpected(ns.error());
  if (auto refused = checkRbacEscalation(info, *ns, object, nullptr)) {
    return tl::unexpected(std::move(*refused));
  }
  const StructuralSchema* schema = decodeCustomResourceForCreate(info, object);
  // etcd3's store.Create refuses it after validation and admission, with a plain error that the
  // API server answers as an untyped 500 (no reason, no "Internal error occurred: " prefix).
  const bool resourceVersionSet = !meta::resourceVersion(object).empty();
  eraseServerSetMetadata(object);
  auto name = nameForCreate(info, *ns, object);
  if (!name) return tl::unexpected(name.error());
  if (auto error = beforeCreate(info, object, *name, schema)) return tl::unexpected(*error);
  if (!info.is("", "namespaces")) {
    if (auto error = checkNamespaceForCreate(info, *ns, *name)) return tl::unexpected(*error);
  }
  if (resourceVersionSet) {
    return tl::unexpected(
        Status::generic(500, "", "resourceVersion should not be set on objects to be created"));
  }
  return commitCreate(info, key(info, *ns, *name), std::move(object), dryRun, writer);
}

Result<std::string> ApiServer::Impl::nameForCreate(const ResourceInfo& info, const std::string& ns,
                                                   Json& object) {
  std::string name = meta::name(object);
  const std::string prefix = meta::generateName(object);
  if (!name.empty() || prefix.empty()) return name;
  for (int attempt = 0; attempt < kGenerateNameAttempts; ++attempt) {
    name = generateName(prefix);
    if (store_->get(key(info, ns, name)) == nullptr) {
      meta::metadata(object)["name"] = name;
      return name;
    }
  }
  Status s = Status::alreadyExists(info.groupResource(), name);
  s.message += ", the server was not able to generate a unique name for the object";
  s.details.retryAfterSeconds = 1;
  return tl::unexpected(s);
}

// rest.BeforeCreate: the strategy's preparation (with the defaults the decoder fills), then
// validation of the result. The uid is drawn once the object is valid (commitCreate), so a
// refused create leaves the server's random sequence (uids, generated names) where it was.
std::optional<Status> ApiServer::Impl::beforeCreate(const ResourceInfo& info, Json& object,
                                                    const std::string& name,
                                                    const StructuralSchema* schema) {
  jsonMember(meta::metadata(object), "creationTimestamp") = now();
  strategy::prepareForCreate(info, object);
  FieldErrors errors = validateObjectMetaOnCreate(object, info.nameRule, info.namespaced);
  FieldErrors kindErrors = strategy::validateCreate(info, object);
  errors.insert(errors.end(), kindErrors.begin(), kindErrors.end());
  if (schema != nullptr) {
    FieldErrors schemaErrors = schema->validate(object);
    errors.insert(errors.end(), schemaErrors.begin(), schemaErrors.end());
  }
  // Named by the stored kind's group, as kube-apiserver names the internal type it validated (an
  // events.k8s.io Event is an invalid core Event).
  if (!errors.empty()) return Status::invalid(info.storedGroup(), info.kind, name, errors);
  if (info.is("apiextensions.k8s.io", "customresourcedefinitions")) {
    auto crd = ResourceRegistry::fromCustomResourceDefinition(object);
    if (!crd) return crd.error();
    auto existing = registry_.find(crd->group, crd->resource);
    if (existing != nullptr && !existing->custom) {
      return Status::invalid(
          info.group, info.kind, name,
          {FieldError::invalidString("metadata.name", name, "is served by a built-in kind")});
    }
  }
  return std::nullopt;
}

Result<ObjectPtr> ApiServer::Impl::commitCreate(const ResourceInfo& info,
                                                const std::string& objectKey, Json object,
                                                bool dryRun, const Writer& writer) {
  const std::string name = meta::name(object);
  // An existing object is found by the store's own lookup when it writes (AlreadyExists below),
  // except where something is reserved for the object before then: a dry run writes nothing, and
  // a Service would be refused its cluster IP (held by the existing one) instead.
  const bool isService = info.is("", "services");
  if ((dryRun || isService) && store_->get(objectKey) != nullptr) {
    return tl::unexpected(Status::alreadyExists(info.groupResource(), name));
  }

  jsonMember(meta::metadata(object), "uid") = newUid();
  strategy::prepareWithUid(info, object);
  recordUpdate(info, nullptr, object, "", writer);
  if (isService) {
    if (auto error = assignClusterIp(object, dryRun)) return tl::unexpected(*error);
  }
  if (dryRun) return std::make_shared<const Json>(std::move(object));

  std::string allocated = isService ? object["spec"].value("clusterIP", std::string()) : "";
  auto stored = put(objectKey, toStorage(info, std::move(object)), EventType::Added);
  if (!stored) {
    clusterIps_.release(allocated);  // the write failed: the address is free again
    if (isAlreadyExists(stored.error())) {
      return tl::unexpected(Status::alreadyExists(info.groupResource(), name));
    }
    return tl::unexpected(stored.error());
  }
  if (info.is("apiextensions.k8s.io", "customresourcedefinitions"))
    onCustomResourceDefinition(**stored, false);
  return toServed(info, *stored);
}

// --- get ---

Result<ObjectPtr> ApiServer::Impl::get(const GroupVersionResource& gvr, std::string_view ns,
                                       std::string_view name) {
  Request request{Verb::Get, gvr, "", std::string(ns), std::string(name)};
  return intercepted<ObjectPtr>(request, [&]() -> Result<ObjectPtr> {
    auto t = target(gvr, ns);
    if (!t) return tl::unexpected(t.error());
    ObjectPtr object;
    {
      std::lock_guard lock(mu_);
      object = store_->get(key(*t->info, t->ns, name));
    }
    if (object == nullptr) return tl::unexpected(Status::notFound(t->info->groupResource(), name));
    return inRequestedVersion(*t->info, gvr, std::move(object));
  });
}

// --- update ---

Result<ObjectPtr> ApiServer::Impl::update(const GroupVersionResource& gvr, std::string_view ns,
                                          Json object, const UpdateOptions& options) {
  Request request{Verb::Update, gvr, "", std::string(ns), meta::name(object), &object};
  request.dryRun = options.dryRun;
  return intercepted<ObjectPtr>(request, [&]() -> Result<ObjectPtr> {
    auto t = target(gvr, ns);
    if (!t) return tl::unexpected(t.error());
    if (auto error = checkBody(*t->info, gvr, object, options)) return tl::unexpected(*error);
    std::lock_guard lock(mu_);
    return updateLocked(*t->info, t->ns, std::move(object), "", options.dryRun, false,
                        {.manager = options.fieldManager});
  });
}

Result<ObjectPtr> ApiServer::Impl::updateStatus(const GroupVersionResource& gvr,
                                                std::string_view ns, Json object,
                                                const UpdateOptions& options) {
  return updateSubresource(gvr, ns, std::move(object), "status", options);
}

Result<ObjectPtr> ApiServer::Impl::updateSubresource(const GroupVersionResource& gvr,
                                                     std::string_view ns, Json object,
                                                     std::string_view subresource,
                                                     const UpdateOptions& options) {
  Request request{Verb::Update,       gvr,    std::string(subresource), std::string(ns),
                  meta::name(object), &object};
  request.dryRun = options.dryRun;
  return intercepted<ObjectPtr>(request, [&]() -> Result<ObjectPtr> {
    auto t = target(gvr, ns);
    if (!t) return tl::unexpected(t.error());
    bool served = (subresource == "status" && t->info->hasStatus) ||
                  (subresource == "finalize" && t->info->is("", "namespaces"));
    if (!served) return tl::unexpected(Status::resourceNotServed());
    if (auto error = checkBody(*t->info, gvr, object, options)) return tl::unexpected(*error);
    std::lock_guard lock(mu_);
    return updateLocked(*t->info, t->ns, std::move(object), subresource, options.dryRun, false,
                        {.manager = options.fieldManager});
  });
}

namespace {

// The storage preconditions: the uid first (checked before the update function, which compares
// resourceVersions), then the resourceVersion.
std::optional<Status> checkUpdatePreconditions(const ResourceInfo& info, const Json& old,
                                               const Json& object, const std::string& name) {
  const GroupResource gr = info.groupResource();
  const std::string uid = meta::uid(object);
  if (!uid.empty() && uid != meta::uid(old)) {
    return Status::conflict(
        gr, name,
        fmt::format("Precondition failed: UID in precondition: {}, UID in object meta: {}", uid,
                    meta::uid(old)));
  }
  const std::string rv = meta::resourceVersion(object);
  if (rv.empty()) {
    if (!info.allowUnconditionalUpdate) {
      return Status::invalid(info.group, info.kind, name,
                             {FieldError::invalid("metadata.resourceVersion", "0x0",
                                                  "must be specified for an update")});
    }
  } else if (rv != meta::resourceVersion(old)) {
    if (rv.find_first_not_of("0123456789") != std::string::npos) {
      return Status::badRequest(fmt::format("invalid resource version: {}", rv));
    }
    return Status::conflictModified(gr, name);
  }
  return std::nullopt;
}

// PUT .../status: the stored object with the request's status.
Json statusUpdated(const Json& old, Json& object) {
  // The body is the stored object with a new status (a client's read-modify-write): it is the
  // result as it is, and neither the stored members nor the body's are copied.
  if (sameOutsideStatus(object, old)) return std::move(object);
  // Every member but the old status comes from the stored object: the request's status replaces
  // it. A member the body carries with the stored value (the metadata of a metadata-and-status
  // body, whose precondition just matched) is moved from the body instead: comparing allocates
  // nothing, and copying a document allocates every string and object in it (and frees the
  // body's afterwards).
  Json updated = Json::object();
  auto& members = updated.get_ref<Json::object_t&>();
  members.reserve(old.size());
  for (auto it = old.begin(); it != old.end(); ++it) {
    if (it.key() == "status") continue;
    auto mine = object.find(it.key());
    if (mine != object.end() && sameJson(*mine, *it)) {
      members.appendUnsorted(it.key(), std::move(*mine));
    } else {
      members.appendUnsorted(it.key(), *it);
    }
  }
  members.sortMembers();  // already in order (the stored object's): a check, no sort
  if (auto status = object.find("status"); status != object.end()) {
    updated.emplace("status", std::move(*status));
  }
  return updated;
}

// PUT namespaces/<name>/finalize: the stored namespace with the request's spec.finalizers.
Json finalizeUpdated(const Json& old, const Json& object) {
  Json updated = old;
  Json finalizers =
      object.contains("spec") && object["spec"].is_object() && object["spec"].contains("finalizers")
          ? object["spec"]["finalizers"]
          : Json::array();
  updated["spec"]["finalizers"] = std::move(finalizers);
  return updated;
}

// The status and finalize subresources: only .status (or a namespace's spec.finalizers) comes
// from the request.
Result<Json> subresourceUpdated(const ResourceInfo& info, const Json& old, Json& object,
                                std::string_view subresource, const std::string& name) {
  Json updated =
      subresource == "status" ? statusUpdated(old, object) : finalizeUpdated(old, object);
  if (const StructuralSchema* schema = schemaOf(info, updated)) {
    FieldErrors errors = subresource == "status" ? schema->validateStatusUpdate(updated, old)
                                                 : schema->validateUpdate(updated, old);
    if (!errors.empty())
      return tl::unexpected(Status::invalid(info.group, info.kind, name, errors));
  }
  return updated;
}

// rest.BeforeUpdate's part on metadata: the fields only the server sets come from the stored
// object, and a client may not start a deletion by writing them.
void keepServerSetMetadata(const Json& oldMeta, Json& metadata, FieldErrors& errors) {
  metadata["uid"] = oldMeta["uid"];
  metadata["creationTimestamp"] = oldMeta["creationTimestamp"];
  if (oldMeta.contains("generation")) {
    metadata["generation"] = oldMeta["generation"];
  } else {
    metadata.erase("generation");
  }
  if (oldMeta.contains("deletionTimestamp")) {
    metadata["deletionTimestamp"] = oldMeta["deletionTimestamp"];
  } else if (metadata.contains("deletionTimestamp") && !metadata["deletionTimestamp"].is_null()) {
    errors.push_back(FieldError::invalid("metadata.deletionTimestamp",
                                         goTimeString(metadata["deletionTimestamp"]),
                                         "field is immutable"));
  }
  if (oldMeta.contains("deletionGracePeriodSeconds")) {
    if (!metadata.contains("deletionGracePeriodSeconds")) {
      metadata["deletionGracePeriodSeconds"] = oldMeta["deletionGracePeriodSeconds"];
    } else if (metadata["deletionGracePeriodSeconds"] != oldMeta["deletionGracePeriodSeconds"]) {
      errors.push_back(FieldError::invalid("metadata.deletionGracePeriodSeconds",
                                           metadata["deletionGracePeriodSeconds"].dump(),
                                           "field is immutable"));
    }
  } else if (metadata.contains("deletionGracePeriodSeconds")) {
    errors.push_back(FieldError::invalid("metadata.deletionGracePeriodSeconds",
                                         metadata["deletionGracePeriodSeconds"].dump(),
                                         "field is immutable"));
  }
  metadata.erase("selfLink");
}

// Once deletion has started, finalizers may only be removed.
void checkNoFinalizerAddedWhileDeleting(const Json& old, const Json& updated, FieldErrors& errors) {
  if (!meta::isDeleting(old)) return;
  std::vector<std::string> added;
  for (const auto& f : meta::finalizers(updated)) {
    if (!meta::hasFinalizer(old, f)) added.push_back(f);
  }
  // Kubernetes lists them as a sorted set.
  std::sort(added.begin(), added.end());
  added.erase(std::unique(added.begin(), added.end()), added.end());
  if (added.empty()) return;
  errors.push_back(FieldError::forbidden(
      "metadata.finalizers",
      fmt::format("no new finalizers can be added if the object is being deleted, found new "
                  "finalizers {}",
                  quotedList(added))));
}

// An update of the main resource: the request's object, with the stored status (when the kind
// has a status subresource) and server-set metadata, prepared and validated by the kind's
// strategy, its generation bumped when its spec changed.
Result<Json> mainResourceUpdated(const ResourceInfo& info, const Json& old, Json object,
                                 const std::string& name) {
  Json updated = std::move(object);
  if (info.hasStatus) {
    if (old.contains("status")) {
      updated["status"] = old["status"];
    } else {
      updated.erase("status");
    }
  }
  FieldErrors errors;
  keepServerSetMetadata(old["metadata"], meta::metadata(updated), errors);
  checkNoFinalizerAddedWhileDeleting(old, updated, errors);
  strategy::prepareForUpdate(info, updated, old);
  FieldErrors metaErrors = validateObjectMetaOnCreate(updated, info.nameRule, info.namespaced);
  FieldErrors kindErrors = strategy::validateUpdate(info, updated, old);
  errors.insert(errors.end(), metaErrors.begin(), metaErrors.end());
  errors.insert(errors.end(), kindErrors.begin(), kindErrors.end());
  if (const StructuralSchema* schema = schemaOf(info, updated)) {
    FieldErrors schemaErrors = schema->validateUpdate(updated, old);
    errors.insert(errors.end(), schemaErrors.begin(), schemaErrors.end());
  }
  if (info.is("apiextensions.k8s.io", "customresourcedefinitions")) {
    auto crd = ResourceRegistry::fromCustomResourceDefinition(updated);
    if (!crd) return tl::unexpected(crd.error());
  }
  if (!errors.empty()) {
    return tl::unexpected(Status::invalid(info.storedGroup(), info.kind, name, errors));
  }
  if (strategy::generationChanged(info, updated, old)) {
    meta::metadata(updated)["generation"] = meta::generation(old) + 1;
  }
  return updated;
}

// What server-side apply recorded in the body's managedFields (patch() did), taken out before the
// body is decoded: a subresource write does not take managedFields from its body.
Json takeAppliedManagedFields(Json& object) {
  Json& metadata = meta::metadata(object);
  auto it = metadata.find("managedFields");
  if (it == metadata.end()) return Json();
  Json applied = std::move(*it);
  metadata.erase("managedFields");
  return applied;
}

}  // namespace

Result<ObjectPtr> ApiServer::Impl::updateLocked(const ResourceInfo& info, std::string requestNs,
                                                Json object, std::string_view subresource,
                                                bool dryRun, bool fromPatch, const Writer& writer) {
  const std::string name = meta::name(object);
  if (name.empty()) return tl::unexpected(Status::badRequest("resource name may not be empty"));
  auto ns = reconcileNamespace(info, requestNs, object);
  if (!ns) return tl::unexpected(ns.error());
  const std::string objectKey = key(info, *ns, name);
  ObjectPtr oldPtr = fromStorage(info, store_->get(objectKey));
  if (oldPtr == nullptr) {
    if (info.allowCreateOnUpdate && subresource.empty() && !fromPatch) {
      meta::metadata(object).erase("resourceVersion");
      return createLocked(info, *ns, std::move(object), dryRun, writer);
    }
    return tl::unexpected(Status::notFound(info.groupResource(), name));
  }
  const Json& old = *oldPtr;
  if (auto failed = checkUpdatePreconditions(info, old, object, name)) {
    return tl::unexpected(*failed);
  }
  Json appliedManagedFields = writer.applied ? takeAppliedManagedFields(object) : Json();
  // The body is decoded as kube-apiserver decodes it (pruned, defaulted), whichever part of it
  // the verb keeps.
  if (const StructuralSchema* bodySchema = schemaOf(info, object)) bodySchema->decode(object);

  Result<Json> updated = subresource == "status" || subresource == "finalize"
                             ? subresourceUpdated(info, old, object, subresource, name)
                             : mainResourceUpdated(info, old, std::move(object), name);
  if (!updated) return tl::unexpected(updated.error());
  if (subresource.empty()) {
    if (auto refused = checkRbacEscalation(info, *ns, *updated, &old)) {
      return tl::unexpected(std::move(*refused));
    }
  }
  if (writer.applied) {
    if (appliedManagedFields.is_null()) {
      meta::metadata(*updated).erase("managedFields");
    } else {
      meta::metadata(*updated)["managedFields"] = std::move(appliedManagedFields);
    }
  } else {
    recordUpdate(info, &old, *updated, subresource, writer);
  }
  // A status write took everything but .status from the stored object.
  return commitUpdate(info, objectKey, oldPtr, std::move(*updated), dryRun,
                      subresource == "status" ? std::string_view("status") : std::string_view());
}

Result<ObjectPtr> ApiServer::Impl::commitUpdate(const ResourceInfo& info,
                                                const std::string& objectKey,
                                                const ObjectPtr& oldPtr, Json updated, bool dryRun,
                                                std::string_view changedMember) {
  const Json& old = *oldPtr;
  meta::setResourceVersion(updated, meta::resourceVersion(old));
  // A write that changes nothing is not a write: same resourceVersion, no event.
  if (changedMember.empty()) {
    if (updated == old) return oldPtr;
  } else {
    auto before = old.find(changedMember);
    auto after = updated.find(changedMember);
    const bool hadIt = before != old.end();
    const bool hasIt = after != updated.end();
    if (hadIt == hasIt && (!hadIt || *before == *after)) return oldPtr;
  }

  // Removing the last finalizer of an object whose deletion has started deletes it
  // (ShouldDeleteDuringUpdate); a namespace also waits for its spec.finalizers.
  bool remove = meta::isDeleting(updated) && meta::finalizers(updated).empty() &&
                meta::deletionGracePeriodSeconds(updated).value_or(-1) == 0;
  if (remove && info.is("", "namespaces")) {
    const Json& spec = jsonAt(updated, {"spec"});
    remove = !spec.is_object() || !spec.contains("finalizers") || spec["finalizers"].empty();
  }
  if (dryRun) return std::make_shared<const Json>(std::move(updated));
  if (remove) {
    auto removed = store_->remove(objectKey, toStorage(info, std::move(updated)));
    if (!removed) return tl::unexpected(removed.error());
    if (info.is("apiextensions.k8s.io", "customresourcedefinitions"))
      onCustomResourceDefinition(**removed, true);
    return toServed(info, *removed);
  }
  // A status write changed that member alone (and the resourceVersion): the store bounds its
  // size from the stored document's (which a converted view's member is not).
  auto stored = changedMember.empty() || info.conversion != nullptr
                    ? put(objectKey, toStorage(info, std::move(updated)), EventType::Modified)
                    : store_->putChangingOnly(objectKey, std::move(updated), changedMember);
  if (!stored) return tl::unexpected(stored.error());
  if (info.is("apiextensions.k8s.io", "customresourcedefinitions"))
    onCustomResourceDefinition(**stored, false);
  return toServed(info, *stored);
}

// --- subresources created by POST ---

Result<Json> ApiServer::Impl::createSubresource(const GroupVersionResource& gvr,
                                                std::string_view ns, std::string_view name,
                                                std::string_view subresource, Json body,
                                                const CreateOptions& options) {
  Request request{Verb::Create,      gvr,  std::string(subresource), std::string(ns),
                  std::string(name), &body};
  request.dryRun = options.dryRun;
  if (gvr.group.empty() && gvr.resource == "serviceaccounts" && subresource == "token") {
    auto issued = intercepted<ObjectPtr>(request, [&]() -> Result<ObjectPtr> {
      return issueServiceAccountToken(gvr, ns, name, std::move(body));
    });
    if (!issued) return tl::unexpected(issued.error());
    return **issued;
  }
  auto bound = intercepted<ObjectPtr>(request, [&]() -> Result<ObjectPtr> {
    auto t = target(gvr, ns);
    if (!t) return tl::unexpected(t.error());
    const ResourceInfo& info = *t->info;
    if (!(info.is("", "pods") && subresource == "binding")) {
      return tl::unexpected(Status::resourceNotServed());
    }
    auto node = bindingTargetNode(body, name);
    if (!node) return tl::unexpected(node.error());
    std::lock_guard lock(mu_);
    return bindPod(info, key(info, t->ns, name), body, *node, options.dryRun);
  });
  if (!bound) return tl::unexpected(bound.error());
  Status created = Status::success({}, "", "");
  created.code = 201;
  created.details = {};
  return created.toJson();
}

// pods/binding (BindingREST.Create, assignPod): the node, the binding's annotations, and
// PodScheduled=True.
Result<ObjectPtr> ApiServer::Impl::bindPod(const ResourceInfo& info, const std::string& podKey,
                                           const Json& binding, const std::string& node,
                                           bool dryRun) {
  const std::string& name = meta::name(binding);
  ObjectPtr pod = store_->get(podKey);
  if (pod == nullptr) return tl::unexpected(Status::notFound(info.groupResource(), name));
  if (meta::isDeleting(*pod)) {
    return tl::unexpected(Status::conflict(
        {"", "pods/binding"}, name,
        fmt::format("pod {} is being deleted, cannot be assigned to a host", name)));
  }
  const Json& spec = jsonAt(*pod, {"spec"});
  const std::string current = spec.is_object() ? spec.value("nodeName", std::string()) : "";
  if (!current.empty()) {
    return tl::unexpected(Status::conflict(
        {"", "pods/binding"}, name,
        fmt::format("pod {} is already assigned to node {}", name, goQuote(current))));
  }
  Json updated = *pod;
  updated["spec"]["nodeName"] = node;
  if (const Json& annotations = meta::annotations(binding); annotations.is_object()) {
    for (const auto& [k, v] : annotations.items()) {
      if (v.is_string()) meta::setAnnotation(updated, k, v.get<std::string>());
    }
  }
  Json& status = updated["status"];
  if (!status.is_object()) status = Json::object();
  Json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  Json scheduled = {{"type", "PodScheduled"},
                    {"status", "True"},
                    {"lastProbeTime", nullptr},
                    {"lastTransitionTime", now()}};
  bool replaced = false;
  for (auto& c : conditions) {
    if (c.is_object() && c.value("type", "") == "PodScheduled") {
      c = scheduled;
      replaced = true;
    }
  }
  if (!replaced) conditions.push_back(std::move(scheduled));
  return commitUpdate(info, podKey, pod, std::move(updated), dryRun);
}

// --- patch ---

Result<ObjectPtr> ApiServer::Impl::patch(const GroupVersionResource& gvr, std::string_view ns,
                                         std::string_view name, PatchType type,
                                         std::string_view patchText, const PatchOptions& options,
                                         std::string_view subresource, bool* created) {
  if (created != nullptr) *created = false;
  Request request{Verb::Patch, gvr, std::string(subresource), std::string(ns), std::string(name)};
  request.patch = patchText;
  request.patchType = type;
  request.dryRun = options.dryRun;
  return intercepted<ObjectPtr>(request, [&]() -> Result<ObjectPtr> {
    auto t = target(gvr, ns);
    if (!t) return tl::unexpected(t.error());
    const ResourceInfo& info = *t->info;
    if (auto error = checkPatchRequest(info, type, subresource, options)) {
      return tl::unexpected(*error);
    }
    Json applied;
    if (type == PatchType::Apply) {
      auto parsed = parseAppliedConfiguration(patchText);
      if (!parsed) return tl::unexpected(parsed.error());
      if (auto error = patching::checkAppliedConfiguration(info, gvr, *parsed)) {
        return tl::unexpected(*error);
      }
      applied = std::move(*parsed);
    }

    std::lock_guard lock(mu_);
    // A custom resource's list keys come from its stored definition, read under the lock.
    if (type == PatchType::Apply) {
      if (auto error =
              fieldvalidation::checkApplied(info, applied, patchSchema(info, gvr.version))) {
        return tl::unexpected(*error);
      }
    }
    ObjectPtr current = fromStorage(info, store_->get(key(info, t->ns, name)));
    if (current == nullptr) {
      // Only apply creates what is missing, and never through a subresource.
      if (type != PatchType::Apply || !subresource.empty()) {
        return tl::unexpected(Status::notFound(info.groupResource(), name));
      }
      auto made = createByApply(info, gvr, t->ns, name, std::move(applied), options);
      if (made && created != nullptr) *created = true;
      return made;
    }
    auto patched =
        patchedCurrent(info, gvr, *current, type, patchText, applied, subresource, options);
    if (!patched) return tl::unexpected(patched.error());
    if (meta::name(*patched) != name) {
      return tl::unexpected(
          Status::badRequest(objectNameMismatchMessage(meta::name(*patched), name)));
    }
    // A patch applies to the current object unless it names a resourceVersion itself.
    if (meta::resourceVersion(*patched).empty()) {
      meta::setResourceVersion(*patched, meta::resourceVersion(*current));
    }
    return updateLocked(info, t->ns, std::move(*patched), subresource, options.dryRun, true,
                        {.manager = options.fieldManager, .applied = type == PatchType::Apply});
  });
}

Result<ObjectPtr> ApiServer::Impl::createByApply(const ResourceInfo& info,
                                                 const GroupVersionResource& gvr,
                                                 const std::string& ns, std::string_view name,
                                                 Json applied, const PatchOptions& options) {
  const std::string uid = meta::uid(applied);
  if (!uid.empty()) {
    return tl::unexpected(Status::conflict(
        info.groupResource(), name,
        fmt::format("uid mismatch: the provided object specified uid {}, and no existing "
                    "object was found",
                    uid)));
  }
  if (auto error = checkDocument(info, gvr, applied)) return tl::unexpected(*error);
  const std::string appliedName = meta::name(applied);
  if (appliedName.empty()) {
    return tl::unexpected(Status::badRequest(fmt::format(
        "the name of the object ({} based on URL) was undeterminable: name must be provided",
        name)));
  }
  if (appliedName != name) {
    return tl::unexpected(Status::badRequest(objectNameMismatchMessage(appliedName, name)));
  }
  meta::metadata(applied).erase("resourceVersion");
  const Json configuration = applied;
  if (auto error = recordApply(info, nullptr, applied, configuration, "", options,
                               patchSchema(info, gvr.version))) {
    return tl::unexpected(*error);
  }
  return createLocked(info, ns, std::move(applied), options.dryRun,
                      {.manager = options.fieldManager, .applied = true});
}

Result<Json> ApiServer::Impl::patchedCurrent(const ResourceInfo& info,
                                             const GroupVersionResource& gvr, const Json& current,
                                             PatchType type, std::string_view patchText,
                                             const Json& applied, std::string_view subresource,
                                             const PatchOptions& options) {
  // The merge lists: the built-in table, or for a custom resource what its definition declares
  // (only apply merges custom resources by schema; strategic merge was refused before).
  PatchSchema schema = patchSchema(info, gvr.version);
  Result<Json> patched = current;
  if (type == PatchType::Apply) {
    mergeAppliedConfiguration(*patched, applied, schema);
    if (auto error = recordApply(info, &current, *patched, applied, subresource, options, schema)) {
      return tl::unexpected(*error);
    }
  } else {
    patched = patching::patchedObject(current, type, patchText, schema);
  }
  if (!patched) return tl::unexpected(patched.error());
  if (!patched->is_object()) {
    return tl::unexpected(Status::badRequest("the patch must produce a JSON object"));
  }
  if (auto error = checkDocument(info, gvr, *patched)) return tl::unexpected(*error);
  if (type != PatchType::Apply) {
    if (auto error = fieldvalidation::decodePatched(info, *patched, type, patchText, options)) {
      return tl::unexpected(*error);
    }
  }
  return patched;
}

}  // namespace fakekube
