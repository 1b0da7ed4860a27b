#include "controllers/volcano/internal/volcano_scheduler.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "controllers/volcano/internal/volcano_api.h"
#include "fakekube/api/conditions.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/runtime/builder.h"
#include "fakekube/runtime/manager.h"

namespace fakekube::volcano {
namespace {

class VolcanoScheduler : public std::enable_shared_from_this<VolcanoScheduler> {
 public:
  VolcanoScheduler(Manager& manager, VolcanoSchedulerOptions options)
      : manager_(manager), options_(std::move(options)) {}

  Result<void> start() {
    for (const auto& gvr : {kNodes, kPods, kPodGroups, kQueues, kPriorityClasses}) {
      manager_.cache().informerFor(gvr);
    }
    auto self = shared_from_this();
    auto defaultQueueOnly =
        predicate::fromFilter([](const Json& queue) { return meta::name(queue) == kDefaultQueue; });
    auto controller = ControllerBuilder(manager_)
                          .named("volcano-scheduler")
                          .forResource(kQueues, defaultQueueOnly)
                          .complete([self](const ReconcileRequest&) { return self->session(); });
    if (!controller) return tl::unexpected(controller.error());
    return {};
  }

 private:
  ReconcileOutcome session() {
    auto queue = manager_.cache().getShared(kQueues, "", kDefaultQueue);
    if (!queue && isNotFound(queue.error())) {
      auto created = manager_.client().create(kQueues, defaultQueue());
      if (!created && !isAlreadyExists(created.error())) return reconcileError(created.error());
    }
    SessionInput input;
    input.nodes = manager_.cache().informerFor(kNodes).list();
    input.pods = manager_.cache().informerFor(kPods).list();
    input.podGroups = manager_.cache().informerFor(kPodGroups).list();
    input.queues = manager_.cache().informerFor(kQueues).list();
    input.priorityClasses = manager_.cache().informerFor(kPriorityClasses).list();
    forgetSeenBindings(input.pods);
    input.assumed = assumed_;
    const std::string sessionId = fmt::format("volcano-session-{}", ++sessions_);
    SessionResult result =
        runSession(input, options_.session, manager_.executor().now(), sessionId);
    for (const auto& binding : result.bindings) bind(binding);
    for (const auto& update : result.podGroupUpdates) writeStatus(kPodGroups, update);
    for (const auto& update : result.queueUpdates) writeStatus(kQueues, update);
    for (const auto& event : result.events) record(event);
    for (const auto& pod : result.unschedulablePods) markUnschedulable(pod);
    forgetGoneGroups(input.podGroups);
    return ReconcileResult{options_.schedulePeriod};
  }

  // The assumed pods the cache now shows bound, or no longer holds, are forgotten.
  void forgetSeenBindings(const std::vector<ObjectPtr>& pods) {
    if (assumed_.empty()) return;
    std::map<std::string, std::string> still;
    for (const auto& pod : pods) {
      auto it = assumed_.find(meta::uid(*pod));
      if (it != assumed_.end() && podNodeName(*pod).empty()) still.insert(*it);
    }
    assumed_ = std::move(still);
  }

  void bind(const SessionBinding& binding) {
    const Json& pod = *binding.pod;
    Json body = {{"apiVersion", "v1"},
                 {"kind", "Binding"},
                 {"metadata", {{"name", meta::name(pod)}, {"namespace", meta::namespace_(pod)}}},
                 {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", binding.node}}}};
    auto bound = manager_.client().createSubresource(kPods, meta::namespace_(pod), meta::name(pod),
                                                     "binding", std::move(body));
    // 409 (bound meanwhile, being deleted) or 404 (gone): the next session reads what happened.
    if (!bound) return;
    assumed_[meta::uid(pod)] = binding.node;
    (void)manager_.eventRecorder(std::string(kSchedulerName))
        .event(pod, "Normal", "Scheduled",
               fmt::format("Successfully assigned {}/{} to {}", meta::namespace_(pod),
                           meta::name(pod), binding.node));
  }

  // Through the status subresource; where the definition has none (Volcano's own PodGroup
  // definition, which Volcano's scheduler updates whole), a 404 from it falls back to an update
  // of the object. A 409 means the cache was stale: the next session computes the status again.
  void writeStatus(const GroupVersionResource& gvr, const StatusUpdate& update) {
    Json object = *update.object;
    object["status"] = update.status;
    auto written = manager_.client().updateStatus(gvr, object);
    if (!written && isNotFound(written.error())) {
      (void)manager_.client().update(gvr, std::move(object));
    }
  }

  // taskUnschedulable: the pod's PodScheduled condition, and a Warning FailedScheduling event.
  void markUnschedulable(const PodUnschedulable& unschedulable) {
    Json pod = *unschedulable.pod;
    Json& status = pod["status"];
    if (!status.is_object()) status = Json::object();
    setCondition(status,
                 {{"type", "PodScheduled"},
                  {"status", "False"},
                  {"reason", unschedulable.reason},
                  {"message", unschedulable.message}},
                 manager_.executor().now());
    // 409 (a stale cache) or 404 (gone): the next session looks again.
    if (!manager_.client().updateStatus(kPods, std::move(pod))) return;
    (void)manager_.eventRecorder(std::string(kSchedulerName))
        .event(*unschedulable.pod, "Warning", "FailedScheduling", unschedulable.message);
  }

  void record(const SessionEvent& event) {
    std::string& last = lastEvents_[meta::uid(*event.podGroup) + "/" + event.reason];
    const std::string text = event.type + " " + event.message;
    if (last == text) return;
    last = text;
    (void)manager_.eventRecorder(std::string(kSchedulerName))
        .event(*event.podGroup, event.type, event.reason, event.message);
  }

  // The last events of PodGroups that no longer exist are dropped.
  void forgetGoneGroups(const std::vector<ObjectPtr>& groups) {
    std::set<std::string> uids;
    for (const auto& group : groups) uids.insert(meta::uid(*group));
    std::erase_if(lastEvents_, [&](const auto& entry) {
      return !uids.count(entry.first.substr(0, entry.first.find('/')));
    });
  }

  Manager& manager_;
  const VolcanoSchedulerOptions options_;
  // Sessions run one at a time (the controller has one worker): no lock needed for these.
  std::map<std::string, std::string> assumed_;  // pod uid -> node
  std::map<std::string, std::string> lastEvents_;
  std::uint64_t sessions_ = 0;
};

}  // namespace

Result<void> addVolcanoScheduler(Manager& manager, VolcanoSchedulerOptions options) {
  if (auto installed = installVolcanoApi(manager.client().underlyingClient()); !installed) {
    return installed;
  }
  auto scheduler = std::make_shared<VolcanoScheduler>(manager, std::move(options));
  return scheduler->start();
}

}  // namespace fakekube::volcano
