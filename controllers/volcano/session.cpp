#include "controllers/volcano/internal/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "controllers/volcano/internal/session_state.h"
#include "controllers/volcano/internal/volcano_api.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/quantity.h"

namespace fakekube::volcano {

// --- tasks, jobs, queues ---

const char* taskStatusName(TaskStatus status) {
  switch (status) {
    case TaskStatus::Pending:
      return "Pending";
    case TaskStatus::Allocated:
      return "Allocated";
    case TaskStatus::Binding:
      return "Binding";
    case TaskStatus::Bound:
      return "Bound";
    case TaskStatus::Running:
      return "Running";
    case TaskStatus::Releasing:
      return "Releasing";
    case TaskStatus::Succeeded:
      return "Succeeded";
    case TaskStatus::Failed:
      return "Failed";
  }
  return "Unknown";
}

bool isAllocatedStatus(TaskStatus status) {
  return status == TaskStatus::Bound || status == TaskStatus::Binding ||
         status == TaskStatus::Running || status == TaskStatus::Allocated;
}

int Job::count(TaskStatus status) const {
  return static_cast<int>(
      std::count_if(tasks.begin(), tasks.end(), [&](const Task& t) { return t.status == status; }));
}

int Job::readyTaskNum() const {
  int ready = 0;
  for (const Task& task : tasks) {
    if (isAllocatedStatus(task.status) || task.status == TaskStatus::Succeeded) ++ready;
  }
  return ready;
}

int Job::validTaskNum() const { return readyTaskNum() + count(TaskStatus::Pending); }

ResourceList Job::allocated() const {
  ResourceList sum;
  for (const Task& task : tasks) {
    if (isAllocatedStatus(task.status)) addTo(sum, task.request);
  }
  return sum;
}

double QueueState::share() const {
  double share = 0;
  ResourceList names = allocated;
  addTo(names, deserved);
  for (const auto& [name, unused] : names) {
    auto have = allocated.find(name);
    auto due = deserved.find(name);
    const double l = have == allocated.end() ? 0 : static_cast<double>(have->second);
    const double r = due == deserved.end() ? 0 : static_cast<double>(due->second);
    share = std::max(share, r == 0 ? (l == 0 ? 0.0 : 1.0) : l / r);
  }
  return share;
}

bool QueueState::overused() const {
  ResourceList names = allocated;
  addTo(names, deserved);
  for (const auto& [name, unused] : names) {
    auto have = allocated.find(name);
    auto due = deserved.find(name);
    if ((due == deserved.end() ? 0 : due->second) > (have == allocated.end() ? 0 : have->second)) {
      return false;
    }
  }
  return true;
}

// --- resources ---

void addTo(ResourceList& into, const ResourceList& more) {
  for (const auto& [name, amount] : more) into[name] += amount;
}

std::vector<std::string> exceeding(const ResourceList& used, const ResourceList& limit,
                                   const ResourceList& request, bool missingIsUnlimited) {
  std::vector<std::string> names;
  for (const auto& [name, amount] : request) {
    if (amount <= 0) continue;
    auto cap = limit.find(name);
    if (cap == limit.end() && missingIsUnlimited) continue;
    const std::int64_t bound = cap == limit.end() ? 0 : cap->second;
    auto have = used.find(name);
    if (have != used.end() && have->second > bound) names.push_back(name);
  }
  return names;
}

std::string formatResourceNames(const std::string& prefix, const std::string& verb,
                                const std::vector<std::string>& names) {
  if (names.empty()) return prefix;
  std::vector<std::string> parts;
  for (const auto& name : names) parts.push_back(fmt::format("{} {}", verb, name));
  return fmt::format("{}: {}", prefix, fmt::join(parts, ", "));
}

namespace {

// A map of quantities (minResources, capability); absent when `value` is not an object. A
// quantity that does not parse is left out (the schema's pattern refuses it at the API server).
std::optional<ResourceList> parseResources(const Json& value) {
  if (!value.is_object()) return std::nullopt;
  ResourceList resources;
  for (const auto& [name, quantity] : value.items()) {
    if (quantity.is_number_integer()) {
      const std::int64_t units = quantity.get<std::int64_t>();
      resources[name] = isMilliResource(name) ? units * 1000 : units;
    } else if (quantity.is_string()) {
      if (auto parsed = parseResourceQuantity(name, quantity.get<std::string>())) {
        resources[name] = *parsed;
      }
    }
  }
  return resources;
}

std::string formatQuantity(const std::string& name, std::int64_t amount) {
  if (!isMilliResource(name)) return std::to_string(amount);
  return amount % 1000 == 0 ? std::to_string(amount / 1000) : fmt::format("{}m", amount);
}

Json resourcesToJson(const ResourceList& resources) {
  Json out = Json::object();
  for (const auto& [name, amount] : resources) {
    if (amount != 0) out[name] = formatQuantity(name, amount);
  }
  return out;
}

std::string stringAt(const Json& object, std::initializer_list<std::string_view> path) {
  const Json& v = jsonAt(object, path);
  return v.is_string() ? v.get<std::string>() : std::string();
}

// getTaskStatus over a pod, with this scheduler's bindings the input does not show yet.
TaskStatus taskStatusOf(const Json& pod, bool assumed) {
  const std::string phase = stringAt(pod, {"status", "phase"});
  const bool deleting = meta::isDeleting(pod);
  const bool bound = !podNodeName(pod).empty();
  if (phase == "Succeeded") return TaskStatus::Succeeded;
  if (phase == "Failed") return TaskStatus::Failed;
  if (deleting) return TaskStatus::Releasing;
  if (phase == "Running") return TaskStatus::Running;
  if (bound) return TaskStatus::Bound;
  return assumed ? TaskStatus::Binding : TaskStatus::Pending;
}

class SessionBuilder {
 public:
  SessionBuilder(const SessionInput& input, SessionState& state) : input_(input), state_(state) {}

  void build() {
    readPriorityClasses();
    readQueues();
    readNodes();
    readJobs();
    readPods();
    orderJobs();
  }

 private:
  void readPriorityClasses() {
    for (const auto& pc : input_.priorityClasses) {
      const Json& value = jsonAt(*pc, {"value"});
      if (value.is_number_integer()) priorities_[meta::name(*pc)] = value.get<std::int64_t>();
    }
  }

  std::int64_t priorityOf(const std::string& className) const {
    auto it = priorities_.find(className);
    return it == priorities_.end() ? 0 : it->second;
  }

  void readQueues() {
    for (const auto& queue : input_.queues) {
      QueueState& q = state_.queues[meta::name(*queue)];
      q.queue = queue;
      q.name = meta::name(*queue);
      const std::string stateName = stringAt(*queue, {"status", "state"});
      q.open = stateName.empty() || stateName == "Open";
      q.capability = parseResources(jsonAt(*queue, {"spec", "capability"}));
      const Json& weight = jsonAt(*queue, {"spec", "weight"});
      if (weight.is_number_integer() && weight.get<std::int64_t>() > 0) {
        q.weight = weight.get<std::int64_t>();
      }
    }
  }

  void readNodes() {
    std::vector<ObjectPtr> nodes = input_.nodes;
    std::sort(nodes.begin(), nodes.end(), [](const ObjectPtr& a, const ObjectPtr& b) {
      return meta::name(*a) < meta::name(*b);
    });
    state_.snapshot.setNodes(nodes);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      NodeState node;
      node.info = state_.snapshot.nodes()[i];
      node.capacity = scheduling::NodeCapacity::parse(nodes[i]);
      if (!node.info->unschedulable) addTo(state_.total, node.capacity.allocatable);
      state_.nodeIndex[node.capacity.name] = i;
      state_.nodes.push_back(std::move(node));
    }
  }

  void readJobs() {
    for (const auto& group : input_.podGroups) {
      auto job = std::make_unique<Job>();
      job->podGroup = group;
      job->key = meta::namespacedName(*group);
      job->uid = meta::uid(*group);
      job->queue = stringAt(*group, {"spec", "queue"});
      if (job->queue.empty()) job->queue = kDefaultQueue;
      // A job whose queue does not exist is not part of the session.
      if (!state_.queues.count(job->queue)) continue;
      job->phase = stringAt(*group, {"status", "phase"});
      if (job->phase.empty()) job->phase = kPhasePending;
      const Json& minMember = jsonAt(*group, {"spec", "minMember"});
      job->minMember = minMember.is_number_integer() ? minMember.get<std::int32_t>() : 0;
      job->minResources = parseResources(jsonAt(*group, {"spec", "minResources"}));
      job->priority = priorityOf(stringAt(*group, {"spec", "priorityClassName"}));
      job->created = meta::creationTimestamp(*group);
      jobsByKey_[job->key] = job.get();
      state_.jobs.push_back(std::move(job));
    }
  }

  void readPods() {
    for (const auto& pod : input_.pods) {
      const std::string uid = meta::uid(*pod);
      std::string node = podNodeName(*pod);
      auto assumed = input_.assumed.find(uid);
      const bool isAssumed = node.empty() && assumed != input_.assumed.end();
      if (isAssumed) node = assumed->second;
      const TaskStatus status = taskStatusOf(*pod, isAssumed);
      ResourceList request;
      if (auto parsed = podRequests(*pod)) request = std::move(*parsed);
      countOnNode(pod, node, status, request);
      if (stringAt(*pod, {"spec", "schedulerName"}) != state_.options->schedulerName) continue;
      const std::string group(meta::annotation(*pod, kGroupNameAnnotation));
      auto job = jobsByKey_.find(meta::namespace_(*pod) + "/" + group);
      if (group.empty() || job == jobsByKey_.end()) continue;
      Task task;
      task.pod = pod;
      task.uid = uid;
      task.name = meta::name(*pod);
      task.status = status;
      task.node = node;
      task.request = std::move(request);
      const Json& priority = jsonAt(*pod, {"spec", "priority"});
      task.priority = priority.is_number_integer()
                          ? priority.get<std::int64_t>()
                          : priorityOf(stringAt(*pod, {"spec", "priorityClassName"}));
      task.created = meta::creationTimestamp(*pod);
      job->second->tasks.push_back(std::move(task));
    }
  }

  // A pod on a node uses its resources until it finishes, whoever scheduled it.
  void countOnNode(const ObjectPtr& pod, const std::string& node, TaskStatus status,
                   const ResourceList& request) {
    if (node.empty() || status == TaskStatus::Succeeded || status == TaskStatus::Failed) return;
    auto index = state_.nodeIndex.find(node);
    if (index == state_.nodeIndex.end()) return;
    state_.nodes[index->second].used.add(request);
    state_.snapshot.addPod(pod, node);
  }

  void orderJobs() {
    for (auto& job : state_.jobs) {
      std::sort(job->tasks.begin(), job->tasks.end(), [](const Task& a, const Task& b) {
        if (a.priority != b.priority) return a.priority > b.priority;
        if (a.created != b.created) return a.created < b.created;
        return a.name < b.name;
      });
    }
    std::sort(state_.jobs.begin(), state_.jobs.end(), [](const auto& a, const auto& b) {
      if (a->priority != b->priority) return a->priority > b->priority;
      if (a->ready() != b->ready()) return !a->ready();
      if (a->created != b->created) return a->created < b->created;
      return a->uid < b->uid;
    });
    for (auto& job : state_.jobs) {
      QueueState& queue = state_.queues[job->queue];
      queue.jobs.push_back(job.get());
      addTo(queue.allocated, job->allocated());
      if (job->phase == kPhaseInqueue && job->minResources)
        addTo(queue.inqueue, *job->minResources);
    }
  }

  const SessionInput& input_;
  SessionState& state_;
  std::map<std::string, std::int64_t> priorities_;
  std::map<std::string, Job*> jobsByKey_;
};

// --- close ---

std::string histogram(const std::map<std::string, int>& counts) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : counts) parts.push_back(fmt::format("{} {}", count, reason));
  std::sort(parts.begin(), parts.end());  // sort.Strings
  return fmt::format("{}", fmt::join(parts, ", "));
}

// JobInfo.FitError.
std::string fitError(const Job& job) {
  std::map<std::string, int> statuses;
  for (const Task& task : job.tasks) ++statuses[taskStatusName(task.status)];
  statuses["minAvailable"] = job.minMember;
  std::string message =
      fmt::format("{}, {}", job.ready() ? kPodGroupReady : kPodGroupNotReady, histogram(statuses));
  std::map<std::string, int> reasons;
  for (const Task& task : job.tasks) {
    if (task.status == TaskStatus::Pending) {
      ++reasons[task.placedThenDiscarded ? "Schedulable" : "Unschedulable"];
    }
  }
  if (!reasons.empty()) message += "; Pending: " + histogram(reasons);
  for (const Task& task : job.tasks) {
    if (!task.fitError.empty()) {
      message += fmt::format(". Origin reason is {}: {}", task.name, task.fitError);
      break;
    }
  }
  return message;
}

// Two conditions are the same when they differ at most in lastTransitionTime and transitionID
// (job_updater.go's isPodGroupConditionsUpdated).
bool sameCondition(Json a, Json b) {
  for (Json* c : {&a, &b}) {
    c->erase("lastTransitionTime");
    c->erase("transitionID");
  }
  return a == b;
}

void setPodGroupCondition(Json& status, Json condition) {
  Json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = Json::array();
  for (Json& existing : conditions) {
    if (existing.value("type", "") == condition.value("type", "")) {
      if (!sameCondition(existing, condition)) existing = std::move(condition);
      return;
    }
  }
  conditions.push_back(std::move(condition));
}

// getPodGroupPhase.
std::string podGroupPhase(const Job& job, bool unschedulable) {
  if (job.count(TaskStatus::Running) != 0 && unschedulable) return std::string(kPhaseUnknown);
  int scheduled = 0;
  int completed = 0;
  for (const Task& task : job.tasks) {
    const bool finished = task.status == TaskStatus::Succeeded || task.status == TaskStatus::Failed;
    if (isAllocatedStatus(task.status) || finished ||
        (task.status == TaskStatus::Releasing && !task.node.empty())) {
      ++scheduled;
    }
    if (finished) ++completed;
  }
  if (scheduled >= job.minMember) {
    return std::string(scheduled == completed ? kPhaseCompleted : kPhaseRunning);
  }
  return std::string(job.phase == kPhaseInqueue ? kPhaseInqueue : kPhasePending);
}

// gang's shouldSkipUnschedulableForReleasing: an unready job whose pods being deleted on their
// nodes still make up minMember, with nothing Pending, is not marked Unschedulable (those pods
// hold their slots until they are gone).
bool skipUnschedulableForReleasing(const Job& job) {
  int releasing = 0;
  for (const Task& task : job.tasks) {
    if (task.status == TaskStatus::Releasing && !task.node.empty()) ++releasing;
  }
  if (releasing == 0 || job.count(TaskStatus::Pending) > 0) return false;
  return job.readyTaskNum() + releasing >= job.minMember;
}

void closeJob(SessionState& state, Job& job, TimePoint now, const std::string& sessionId,
              SessionResult& result) {
  const Json& old = jsonAt(*job.podGroup, {"status"});
  Json status = old.is_object() ? old : Json::object();
  bool unschedulable = false;
  if (!job.tasks.empty() && !(!job.ready() && skipUnschedulableForReleasing(job))) {
    Json condition = {{"lastTransitionTime", formatRfc3339(now)},
                      {"status", "True"},
                      {"transitionID", sessionId}};
    if (!job.ready()) {
      unschedulable = true;
      int schedulable = job.readyTaskNum();
      for (const Task& task : job.tasks) schedulable += task.placedThenDiscarded ? 1 : 0;
      condition["type"] = kConditionUnschedulable;
      condition["reason"] = kReasonNotEnoughResources;
      condition["message"] =
          fmt::format("{}/{} tasks in gang unschedulable: {}", job.minMember - schedulable,
                      job.tasks.size(), fitError(job));
    } else {
      condition["type"] = kConditionScheduled;
      condition["reason"] = "tasks in gang are ready to be scheduled";
      condition["message"] = "";
    }
    setPodGroupCondition(status, std::move(condition));
  }
  const std::string phase = podGroupPhase(job, unschedulable);
  status["phase"] = phase;
  status["running"] = job.count(TaskStatus::Running);
  status["succeeded"] = job.count(TaskStatus::Succeeded);
  status["failed"] = job.count(TaskStatus::Failed);
  job.phase = phase;
  const bool changed = status != old;
  if (changed) result.podGroupUpdates.push_back({job.podGroup, status});
  // cache.RecordJobStatusEvent.
  if (phase == kPhasePending || phase == kPhaseInqueue || phase == kPhaseUnknown) {
    state.events.push_back(
        {job.podGroup, "Warning", std::string(kConditionUnschedulable),
         fmt::format("{}/{} tasks in gang unschedulable: {}", job.count(TaskStatus::Pending),
                     job.tasks.size(), fitError(job))});
  } else if (changed) {
    state.events.push_back(
        {job.podGroup, "Normal", std::string(kConditionScheduled), std::string(kPodGroupReady)});
  }
}

// cache.RecordJobStatusEvent's pods: each Pending task's PodScheduled condition, when it differs.
void closeTasks(const Job& job, SessionResult& result) {
  std::string jobFitError;  // computed once, for the tasks without a fit error of their own
  for (const Task& task : job.tasks) {
    if (task.status != TaskStatus::Pending) continue;
    std::string reason = "Unschedulable";
    std::string message = task.fitError;
    if (task.placedThenDiscarded) {
      reason = "Schedulable";
      message = fmt::format(
          "Pod {}/{} can possibly be assigned to {}, once minAvailable is "
          "satisfied",
          meta::namespace_(*task.pod), task.name, task.discardedNode);
    } else if (message.empty()) {
      if (jobFitError.empty()) jobFitError = fitError(job);
      message = jobFitError;
    }
    const Json* current = nullptr;
    for (const Json& c : jsonArrayAt(jsonAt(*task.pod, {"status"}), "conditions")) {
      if (c.value("type", "") == "PodScheduled") current = &c;
    }
    if (current != nullptr && current->value("status", "") == "False" &&
        current->value("reason", "") == reason && current->value("message", "") == message) {
      continue;
    }
    result.unschedulablePods.push_back({task.pod, std::move(reason), std::move(message)});
  }
}

// updateQueueStatus: the phases of the queue's PodGroups and what its jobs hold.
void closeQueue(const QueueState& queue, SessionResult& result) {
  const Json& old = jsonAt(*queue.queue, {"status"});
  Json status = old.is_object() ? old : Json::object();
  std::map<std::string, int> phases;
  ResourceList allocated;
  for (const Job* job : queue.jobs) {
    ++phases[job->phase];
    addTo(allocated, job->allocated());
  }
  if (!status.contains("state")) status["state"] = "Open";
  status["pending"] = phases[std::string(kPhasePending)];
  status["inqueue"] = phases[std::string(kPhaseInqueue)];
  status["running"] = phases[std::string(kPhaseRunning)];
  status["unknown"] = phases[std::string(kPhaseUnknown)];
  status["completed"] = phases[std::string(kPhaseCompleted)];
  status["allocated"] = resourcesToJson(allocated);
  if (status != old) result.queueUpdates.push_back({queue.queue, std::move(status)});
}

}  // namespace

SessionResult runSession(const SessionInput& input, const SessionOptions& options, TimePoint now,
                         const std::string& sessionId) {
  SessionState state;
  state.options = &options;
  SessionBuilder(input, state).build();
  computeDeserved(state);
  enqueue(state);
  allocate(state);
  SessionResult result;
  for (auto& job : state.jobs) {
    closeJob(state, *job, now, sessionId, result);
    closeTasks(*job, result);
  }
  for (const auto& [name, queue] : state.queues) closeQueue(queue, result);
  result.bindings = std::move(state.bindings);
  result.events = std::move(state.events);
  return result;
}

}  // namespace fakekube::volcano
