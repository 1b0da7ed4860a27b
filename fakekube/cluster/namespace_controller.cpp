#include "fakekube/cluster/namespace_controller.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>

#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/cluster/kind_watch.h"

namespace fakekube {

namespace {

constexpr std::string_view kKubernetesFinalizer = "kubernetes";
const GroupVersionResource kNamespaces{"", "v1", "namespaces"};

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

// What became of one pass over a namespace.
enum class Outcome { Done, Retry, Waiting };

Outcome outcomeOf(const Status& error) {
  if (isNotFound(error)) return Outcome::Done;
  if (isConflict(error) || error.code == 429 || error.code >= 500) return Outcome::Retry;
  return Outcome::Done;
}

}  // namespace

class NamespaceController::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(Executor& executor, ApiServer& server, Options options)
      : ex_(executor), server_(server), options_(options) {}

  void start() {
    std::lock_guard lock(mu_);
    if (running_) return;
    ResourceInfoPtr info = server_.registry().find(kNamespaces);
    if (info == nullptr) return;
    running_ = true;
    std::weak_ptr<Impl> weak = weak_from_this();
    Executor* ex = &ex_;
    watch_ = std::make_unique<KindWatch>(server_, info, [weak, ex] {
      auto self = weak.lock();
      if (!self) return;
      self->pumpsPending_.fetch_add(1);
      ex->post([weak] {
        if (auto s = weak.lock()) s->pump();
      });
    });
    (void)watch_->open();
  }

  void stop() {
    std::lock_guard lock(mu_);
    if (!running_) return;
    running_ = false;
    ++generation_;
    watch_.reset();
    queue_.clear();
    queued_.clear();
    waiting_.clear();
    retriesPending_ = 0;
    workerScheduled_ = false;
  }

  bool idle() const {
    std::lock_guard lock(mu_);
    return pumpsPending_.load() == 0 && queue_.empty() && retriesPending_ == 0 && !workerScheduled_;
  }

  std::size_t terminating() const {
    std::lock_guard lock(mu_);
    return waiting_.size();
  }

 private:
  void pump() {
    std::lock_guard lock(mu_);
    pumpsPending_.fetch_sub(1);
    if (!running_ || watch_ == nullptr) return;
    (void)watch_->drain(
        [&](WatchEventType type, const ObjectPtr& object) {
          if (type == WatchEventType::Deleted) return;
          if (meta::isDeleting(*object) && hasSpecFinalizer(*object, kKubernetesFinalizer)) {
            enqueue(meta::name(*object));
          }
        },
        [](const std::unordered_set<std::string>&) {});
    scheduleWorker();
  }

  void enqueue(const std::string& name) {
    if (queued_.insert(name).second) queue_.push_back(name);
  }

  void scheduleWorker() {
    if (workerScheduled_ || queue_.empty() || !running_) return;
    workerScheduled_ = true;
    std::weak_ptr<Impl> weak = weak_from_this();
    const std::uint64_t generation = generation_;
    ex_.post([weak, generation] {
      if (auto self = weak.lock()) self->work(generation);
    });
  }

  void work(std::uint64_t generation) {
    std::lock_guard lock(mu_);
    if (generation != generation_) return;
    workerScheduled_ = false;
    if (!running_ || queue_.empty()) return;
    std::string name = std::move(queue_.front());
    queue_.pop_front();
    queued_.erase(name);
    switch (sync(name)) {
      case Outcome::Done:
        waiting_.erase(name);
        break;
      case Outcome::Retry:
        later(name, options_.retryDelay, /*retry=*/true);
        break;
      case Outcome::Waiting:
        if (waiting_.insert(name).second) later(name, options_.recheckDelay, /*retry=*/false);
        break;
    }
    scheduleWorker();
  }

  // Looks at `name` again after `delay`. Retries count against idle(); rechecks of a namespace
  // whose contents are still going do not (one recheck timer per namespace).
  void later(const std::string& name, Duration delay, bool retry) {
    if (retry) ++retriesPending_;
    std::weak_ptr<Impl> weak = weak_from_this();
    const std::uint64_t generation = generation_;
    ex_.postAfter(delay, [weak, generation, name, retry] {
      auto self = weak.lock();
      if (!self) return;
      std::lock_guard lock(self->mu_);
      if (generation != self->generation_) return;
      if (retry) {
        --self->retriesPending_;
      } else {
        self->waiting_.erase(name);
      }
      self->enqueue(name);
      self->scheduleWorker();
    });
  }

  // One pass of the namespace deletion: delete what is left, finalize when nothing is.
  Outcome sync(const std::string& name) {
    auto current = server_.get(kNamespaces, "", name);
    if (!current) return outcomeOf(current.error());
    const Json& ns = **current;
    if (!meta::isDeleting(ns) || !hasSpecFinalizer(ns, kKubernetesFinalizer)) return Outcome::Done;

    bool remaining = false;
    bool retry = false;
    for (const auto& info : server_.registry().all()) {
      if (!info->namespaced) continue;
      DeleteOptions options;
      options.propagationPolicy = "Background";
      auto deleted = server_.deleteCollection(info->gvr(), name, ListOptions{}, options);
      if (!deleted) {
        // A kind whose definition went away meanwhile took its objects with it.
        if (outcomeOf(deleted.error()) == Outcome::Retry) retry = true;
        continue;
      }
      // What is still there after the DELETE waits for finalizers or a graceful shutdown.
      for (const auto& item : deleted->items) {
        auto left = server_.get(info->gvr(), name, meta::name(*item));
        if (left) {
          remaining = true;
          break;
        }
        if (!isNotFound(left.error())) retry = true;
      }
    }
    if (retry) return Outcome::Retry;
    if (remaining) return Outcome::Waiting;

    Json finalized = ns;
    Json kept = Json::array();
    for (const auto& f : finalized["spec"]["finalizers"]) {
      if (!(f.is_string() && f.get<std::string>() == kKubernetesFinalizer)) kept.push_back(f);
    }
    finalized["spec"]["finalizers"] = std::move(kept);
    auto done = server_.updateSubresource(kNamespaces, "", std::move(finalized), "finalize");
    if (!done) return outcomeOf(done.error());
    return Outcome::Done;
  }

  Executor& ex_;
  ApiServer& server_;
  const Options options_;

  mutable std::mutex mu_;
  bool running_ = false;
  std::uint64_t generation_ = 0;
  std::unique_ptr<KindWatch> watch_;
  std::deque<std::string> queue_;
  std::unordered_set<std::string> queued_;
  std::unordered_set<std::string> waiting_;  // namespaces with a recheck timer set
  std::size_t retriesPending_ = 0;
  bool workerScheduled_ = false;
  std::atomic<std::size_t> pumpsPending_{0};
};

NamespaceController::NamespaceController(Executor& executor, ApiServer& server)
    : NamespaceController(executor, server, Options{}) {}

NamespaceController::NamespaceController(Executor& executor, ApiServer& server, Options options)
    : impl_(std::make_shared<Impl>(executor, server, options)) {}

NamespaceController::~NamespaceController() { impl_->stop(); }

void NamespaceController::start() { impl_->start(); }
void NamespaceController::stop() { impl_->stop(); }
bool NamespaceController::idle() const { return impl_->idle(); }
std::size_t NamespaceController::terminating() const { return impl_->terminating(); }

}  // namespace fakekube
