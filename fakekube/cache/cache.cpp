#include "fakekube/cache/cache.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/field_selector.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/api/object_meta.h"

namespace fakekube {
namespace {

// The message controller-runtime gives for a read outside a namespace-restricted cache.
Status unknownNamespace(std::string_view what, std::string_view ns) {
  return Status::badRequest(std::string("unable to ") + std::string(what) + " in namespace \"" +
                            std::string(ns) + "\": unknown namespace for the cache");
}

}  // namespace

Cache::Cache(Client& client, Executor& executor, CacheOptions options)
    : client_(client), executor_(executor), options_(std::move(options)) {}

Cache::~Cache() { stop(); }

std::string Cache::keyOf(const GroupVersionResource& gvr) {
  return gvr.group + "/" + gvr.version + "/" + gvr.resource;
}

bool Cache::setResourceOptions(const GroupVersionResource& gvr, InformerOptions options) {
  std::lock_guard lock(mu_);
  const std::string key = keyOf(gvr);
  if (informers_.count(key) != 0) return false;
  resourceOptions_.insert_or_assign(key, std::move(options));
  return true;
}

Informer& Cache::informerFor(const GroupVersionResource& gvr) {
  Informer* informer = nullptr;
  bool start = false;
  {
    std::lock_guard lock(mu_);
    const std::string key = keyOf(gvr);
    auto& slot = informers_[key];
    if (!slot) {
      auto custom = resourceOptions_.find(key);
      slot = std::make_unique<Informer>(
          client_, executor_, gvr,
          custom != resourceOptions_.end() ? custom->second : options_.defaults);
      start = started_;
    }
    informer = slot.get();
  }
  if (start) informer->start();
  return *informer;
}

void Cache::start() {
  std::vector<Informer*> toStart;
  {
    std::lock_guard lock(mu_);
    started_ = true;
    for (auto& [key, informer] : informers_) toStart.push_back(informer.get());
  }
  for (auto* informer : toStart) informer->start();
}

void Cache::stop() {
  std::lock_guard lock(mu_);
  for (auto& [key, informer] : informers_) informer->stop();
}

bool Cache::synced() const {
  std::lock_guard lock(mu_);
  for (const auto& [key, informer] : informers_) {
    if (!informer->hasSynced()) return false;
  }
  return true;
}

bool Cache::hasPendingEvents() const {
  std::lock_guard lock(mu_);
  for (const auto& [key, informer] : informers_) {
    if (informer->hasPendingEvents()) return true;
  }
  return false;
}

Result<Informer*> Cache::syncedInformer(const GroupVersionResource& gvr) {
  Informer& informer = informerFor(gvr);
  auto synced = informer.syncNow();
  if (!synced) return tl::unexpected(std::move(synced.error()));
  return &informer;
}

Result<ObjectPtr> Cache::getShared(const GroupVersionResource& gvr, std::string_view ns,
                                   std::string_view name) {
  auto informer = syncedInformer(gvr);
  if (!informer) return tl::unexpected(std::move(informer.error()));
  const std::string& restrictedTo = (*informer)->options().namespace_;
  if (!restrictedTo.empty() && !ns.empty() && ns != restrictedTo) {
    return tl::unexpected(unknownNamespace("get " + std::string(name), ns));
  }
  if (!ns.empty()) {
    std::string key = std::string(ns) + "/" + std::string(name);
    if (auto object = (*informer)->get(key)) return object;
  }
  // A cluster-scoped object is filed under its bare name, whatever namespace the caller passed.
  if (auto object = (*informer)->get(name); object && meta::namespace_(*object).empty()) {
    return object;
  }
  return tl::unexpected(Status::notFound(gvr.groupResource(), name));
}

Result<Json> Cache::get(const GroupVersionResource& gvr, std::string_view ns,
                        std::string_view name) {
  auto object = getShared(gvr, ns, name);
  if (!object) return tl::unexpected(std::move(object.error()));
  return Json(**object);
}

Result<Json> Cache::list(const GroupVersionResource& gvr, std::string_view ns,
                         const ListOptions& options) {
  auto informer = syncedInformer(gvr);
  if (!informer) return tl::unexpected(std::move(informer.error()));
  const std::string& restrictedTo = (*informer)->options().namespace_;
  if (!restrictedTo.empty() && !ns.empty() && ns != restrictedTo) {
    return tl::unexpected(unknownNamespace("list " + gvr.groupResource().str(), ns));
  }
  auto labels = LabelSelector::parse(options.labelSelector);
  if (!labels) return tl::unexpected(std::move(labels.error()));
  auto fields = FieldSelector::parse(options.fieldSelector);
  if (!fields) return tl::unexpected(std::move(fields.error()));

  // An equality requirement of the selector narrows the scan through the label index (the
  // requirement with the fewest objects); otherwise a namespace narrows it through the
  // namespace index. Either way the candidates come ordered by key, and every requirement is
  // still checked below. Without this, a list by label (a Service's endpoints, a controller's
  // pods) costs every object of the namespace.
  std::vector<ObjectPtr> candidates;
  bool narrowed = false;
  std::string narrowest;
  std::size_t fewest = 0;
  for (const auto& requirement : labels->requirements()) {
    const bool equality =
        requirement.op == LabelSelector::Operator::Equals ||
        requirement.op == LabelSelector::Operator::DoubleEquals ||
        (requirement.op == LabelSelector::Operator::In && requirement.values.size() == 1);
    if (!equality) continue;
    std::string value = requirement.key + "=" + requirement.values[0];
    const std::size_t count = (*informer)->countByIndex(kLabelIndex, value);
    if (!narrowed || count < fewest) {
      narrowest = std::move(value);
      fewest = count;
    }
    narrowed = true;
  }
  if (narrowed) candidates = (*informer)->byIndex(kLabelIndex, narrowest);
  if (!narrowed) {
    candidates = ns.empty() ? (*informer)->list() : (*informer)->byIndex(kNamespaceIndex, ns);
  }

  Json items = Json::array();
  for (const auto& object : candidates) {
    if (options.limit > 0 && static_cast<std::int64_t>(items.size()) >= options.limit) break;
    if (narrowed && !ns.empty() && meta::namespace_(*object) != ns) continue;
    if (!labels->matches(meta::labels(*object))) continue;
    if (!fields->empty() && !fields->matchesObject(*object)) continue;
    items.push_back(*object);
  }
  std::string kind = (*informer)->listKind();
  if (kind.empty() && !items.empty()) kind = meta::kind(items.front()) + "List";
  return Json{{"apiVersion", gvr.apiVersion()},
              {"kind", kind},
              {"metadata", {{"resourceVersion", (*informer)->lastSyncResourceVersion()}}},
              {"items", std::move(items)}};
}

}  // namespace fakekube
