#include "fakekube/cluster/namespace_controller.h"

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>
#include <vector>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/discovery.h"
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/runtime/rate_limiter.h"

namespace fakekube {

namespace {

constexpr std::string_view kKubernetesFinalizer = "kubernetes";

bool hasSpecFinalizer(const Json& ns, std::string_view finalizer) {
  auto spec = ns.find("spec");
  if (spec == ns.end() || !spec->is_object()) return false;
  auto finalizers = spec->find("finalizers");
  if (finalizers == spec->end() || !finalizers->is_array()) return false;
  for (const auto& f : *finalizers) {
    if (f.is_string() && f.get<std::string>() == finalizer) return true;
  }
  return false;
}

bool isTerminating(const Json& ns) {
  return meta::isDeleting(ns) && hasSpecFinalizer(ns, kKubernetesFinalizer);
}

// What became of one pass over a namespace.
enum class StepOutcome { Done, Retry, Waiting };

// 404: the world moved on. A conflict or server-side trouble is worth another try; any other
// client error would fail the same way again.
StepOutcome outcomeOf(const Status& error) {
  if (isNotFound(error)) return StepOutcome::Done;
  if (isConflict(error) || error.code == 429 || error.code >= 500) return StepOutcome::Retry;
  return StepOutcome::Done;
}

bool hasItems(const Json& list) {
  auto items = list.find("items");
  return items != list.end() && items->is_array() && !items->empty();
}

}  // namespace

// The reconciler's state. Shared with the reconcile closure, which the manager owns and may keep
// after the NamespaceController is gone (until the manager is). Outside the anonymous namespace
// because Impl holds it (a -Wsubobject-linkage warning inside a unity batch otherwise).
struct NamespaceReconcile {
  // A constructor, not aggregate initialisation: make_shared of an aggregate needs clang 16.
  NamespaceReconcile(Manager& manager, NamespaceControllerOptions options)
      : manager(manager), options(std::move(options)) {}

  Manager& manager;
  NamespaceControllerOptions options;
  mutable std::mutex mu;
  std::unordered_set<std::string> waiting;  // namespaces whose contents are still going

  ReconcileOutcome operator()(const ReconcileRequest& request) {
    Status error;
    StepOutcome outcome = sync(request.name, error);
    std::lock_guard lock(mu);
    switch (outcome) {
      case StepOutcome::Done:
        waiting.erase(request.name);
        return ReconcileResult{};
      case StepOutcome::Retry:
        return reconcileError(error);
      case StepOutcome::Waiting:
        waiting.insert(request.name);
        return ReconcileResult{.requeueAfter = options.recheckDelay};
    }
    return ReconcileResult{};
  }

  // One pass of the namespace deletion: delete what is left, finalize when nothing is.
  StepOutcome sync(const std::string& name, Status& error) {
    Reader& reader = manager.apiReader();  // the live state, never a lagging cache
    Client& writer = manager.client();
    auto fail = [&](const Status& status) {
      error = status;
      return outcomeOf(status);
    };
    auto current = reader.get(kNamespaces, "", name);
    if (!current) return fail(current.error());
    const Json& ns = *current;
    if (!isTerminating(ns)) return StepOutcome::Done;

    auto resources = servedResources(reader);
    if (!resources) return fail(resources.error());
    bool remaining = false;
    bool retry = false;
    for (const auto& resource : *resources) {
      if (!resource.namespaced) continue;
      // A kind whose definition went away meanwhile took its objects with it (404).
      auto before = reader.list(resource.gvr, name);
      if (!before) {
        if (fail(before.error()) == StepOutcome::Retry) retry = true;
        continue;
      }
      if (!hasItems(*before)) continue;
      DeleteOptions options;
      options.propagationPolicy = "Background";
      auto deleted = writer.deleteAllOf(resource.gvr, name, ListOptions{}, options);
      if (!deleted) {
        if (fail(deleted.error()) == StepOutcome::Retry) retry = true;
        continue;
      }
      // What is still there after the DELETE waits for finalizers or a graceful shutdown.
      auto after = reader.list(resource.gvr, name);
      if (!after) {
        if (fail(after.error()) == StepOutcome::Retry) retry = true;
        continue;
      }
      if (hasItems(*after)) remaining = true;
    }
    if (retry) return StepOutcome::Retry;
    if (remaining) return StepOutcome::Waiting;

    Json finalized = ns;
    Json kept = Json::array();
    for (const auto& f : finalized["spec"]["finalizers"]) {
      if (!(f.is_string() && f.get<std::string>() == kKubernetesFinalizer)) kept.push_back(f);
    }
    finalized["spec"]["finalizers"] = std::move(kept);
    auto done = finalizeNamespace(reader, std::move(finalized));
    if (!done) return fail(done.error());
    return StepOutcome::Done;
  }
};

class NamespaceController::Impl {
 public:
  Impl(Manager& manager, NamespaceControllerOptions options)
      : executor_(manager.executor()), manager_(&manager), options_(options) {}

  ~Impl() { stop(); }

  Result<void> start() {
    if (controller_ != nullptr) return {};
    reconcile_ = std::make_shared<NamespaceReconcile>(*manager_, options_);
    ControllerOptions controllerOptions;
    std::vector<std::unique_ptr<RateLimiter>> limiters;
    limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(options_.retryDelay,
                                                                           options_.maxRetryDelay));
    limiters.push_back(std::make_unique<BucketRateLimiter>(executor_.clock()));
    controllerOptions.rateLimiter = std::make_unique<MaxOfRateLimiter>(std::move(limiters));
    auto controller = ControllerBuilder(*manager_)
                          .named("namespace")
                          .forResource(kNamespaces, predicate::fromFilter(isTerminating))
                          .withOptions(std::move(controllerOptions))
                          .complete([reconcile = reconcile_](const ReconcileRequest& request) {
                            return (*reconcile)(request);
                          });
    if (!controller) {  // the builder fails only without a For resource
      reconcile_.reset();
      return tl::unexpected(controller.error());
    }
    controller_ = *controller;
    return {};
  }

  void stop() {
    if (controller_ == nullptr) return;
    if (manager_->crashed()) {
      // The manager dropped the controller with everything else.
    } else {
      controller_->shutDown();
    }
    controller_ = nullptr;
    reconcile_.reset();
  }

  bool idle() const {
    if (controller_ == nullptr || manager_->crashed()) return true;
    if (manager_->cache().hasPendingEvents()) return false;
    PriorityQueue& queue = controller_->queue();
    // Every waiting item beyond the namespaces' rechecks is a retry.
    return queue.len() == 0 && queue.numProcessing() == 0 && queue.numWaiting() <= terminating();
  }

  std::size_t terminating() const {
    if (reconcile_ == nullptr) return 0;
    std::lock_guard lock(reconcile_->mu);
    return reconcile_->waiting.size();
  }

 private:
  Executor& executor_;
  Manager* manager_;
  const NamespaceControllerOptions options_;
  std::shared_ptr<NamespaceReconcile> reconcile_;
  Controller* controller_ = nullptr;  // owned by the manager
};

NamespaceController::NamespaceController(Manager& manager, NamespaceControllerOptions options)
    : impl_(std::make_unique<Impl>(manager, options)) {}

Result<std::unique_ptr<NamespaceController>> addNamespaceController(
    Manager& manager, NamespaceControllerOptions options) {
  std::unique_ptr<NamespaceController> controller(new NamespaceController(manager, options));
  if (auto started = controller->start(); !started) return tl::unexpected(started.error());
  return controller;
}

NamespaceController::~NamespaceController() = default;

Result<void> NamespaceController::start() { return impl_->start(); }
void NamespaceController::stop() { impl_->stop(); }
bool NamespaceController::idle() const { return impl_->idle(); }
std::size_t NamespaceController::terminating() const { return impl_->terminating(); }

}  // namespace fakekube
