#include "fakekube/runtime/builder.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace fakekube {

ControllerBuilder& ControllerBuilder::named(std::string name) {
  name_ = std::move(name);
  return *this;
}

ControllerBuilder& ControllerBuilder::forResourceWith(const GroupVersionResource& gvr,
                                                      std::vector<Predicate> predicates) {
  for_ = gvr;
  watches_.push_back({gvr, Watch::Type::For, enqueueRequestForObject(), std::move(predicates)});
  return *this;
}

ControllerBuilder& ControllerBuilder::forKind(std::string kind) {
  forKind_ = std::move(kind);
  return *this;
}

ControllerBuilder& ControllerBuilder::ownsWith(const GroupVersionResource& gvr,
                                               std::vector<Predicate> predicates) {
  // The handler needs the For kind, known only at complete().
  watches_.push_back({gvr, Watch::Type::Owns, {}, std::move(predicates)});
  return *this;
}

ControllerBuilder& ControllerBuilder::watchesWith(const GroupVersionResource& gvr,
                                                  EventHandler handler,
                                                  std::vector<Predicate> predicates) {
  watches_.push_back({gvr, Watch::Type::Handler, std::move(handler), std::move(predicates)});
  return *this;
}

ControllerBuilder& ControllerBuilder::withEventFilter(Predicate predicate) {
  globalPredicates_.push_back(std::move(predicate));
  return *this;
}

ControllerBuilder& ControllerBuilder::withOptions(ControllerOptions options) {
  options_ = std::move(options);
  return *this;
}

Result<ControllerOptions> ControllerBuilder::resolvedOptions() {
  if (!for_) {
    return tl::unexpected(
        Status::badRequest("a controller needs a primary resource: call forResource()"));
  }
  if (forKind_.empty()) {
    if (auto info = manager_.kindFor(*for_)) forKind_ = info->kind;
  }
  ControllerOptions options = std::move(options_);
  options_ = {};
  options.name = name_;
  if (options.name.empty()) {
    options.name = forKind_.empty() ? for_->resource : forKind_;
    std::transform(options.name.begin(), options.name.end(), options.name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  return options;
}

Result<Controller*> ControllerBuilder::complete(Reconciler reconciler) {
  auto options = resolvedOptions();
  if (!options) return tl::unexpected(options.error());
  return build(std::make_unique<Controller>(manager_.executor(), std::move(*options),
                                            std::move(reconciler)));
}

Result<Controller*> ControllerBuilder::completeAsync(AsyncReconciler reconciler) {
  auto options = resolvedOptions();
  if (!options) return tl::unexpected(options.error());
  return build(std::make_unique<Controller>(manager_.executor(), std::move(*options),
                                            std::move(reconciler)));
}

Result<Controller*> ControllerBuilder::build(std::unique_ptr<Controller> controller) {
  // Resolve every handler before touching the cache, so that an error registers nothing.
  for (auto& w : watches_) {
    if (w.type != Watch::Type::Owns) continue;
    if (forKind_.empty()) {
      return tl::unexpected(
          Status::badRequest("owns(" + w.gvr.resource + "): the kind of " + for_->resource +
                             " is unknown to the manager; name it with forKind()"));
    }
    bool namespaced = true;
    if (auto info = manager_.kindFor(*for_)) namespaced = info->namespaced;
    w.handler = enqueueRequestForOwner(for_->group, forKind_, true, namespaced);
  }
  for (auto& w : watches_) {
    std::vector<Predicate> predicates = globalPredicates_;
    for (auto& p : w.predicates) predicates.push_back(std::move(p));
    controller->watch(manager_.cache().informerFor(w.gvr), std::move(w.handler),
                      std::move(predicates));
  }
  watches_.clear();
  return &manager_.add(std::move(controller));
}

}  // namespace fakekube
