// The enqueue and allocate actions of a Volcano session (session.h), with the plugins that vote
// in them: overcommit and proportion (JobEnqueueable), gang (JobReady), proportion's capability
// (Allocatable), and the default scheduler's placement rules as predicates.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "controllers/volcano/internal/session_state.h"
#include "controllers/volcano/internal/volcano_api.h"
#include "fakekube/cluster/internal/scheduler_plugins.h"

namespace fakekube::volcano {
namespace {

using scheduling::PlacementCycle;

// The queues in proportion's order: the lower share first, then the name.
std::vector<QueueState*> orderedQueues(SessionState& state) {
  std::vector<QueueState*> queues;
  for (auto& [name, queue] : state.queues) queues.push_back(&queue);
  std::stable_sort(queues.begin(), queues.end(), [](const QueueState* a, const QueueState* b) {
    return a->share() < b->share();
  });
  return queues;
}

// --- enqueue ---

// What the overcommit plugin reads at session open: idle = allocatable x factor - used, and what
// the jobs already admitted hold.
struct Overcommit {
  ResourceList idle;
  ResourceList inqueue;

  explicit Overcommit(const SessionState& state) {
    double factor = state.options->overcommitFactor;
    if (factor < 1.0) factor = 1.2;  // overcommit-factor below 1: the default
    ResourceList used;
    for (const NodeState& node : state.nodes) addTo(used, node.used.requested);
    for (const auto& [name, amount] : state.total) {
      idle[name] = static_cast<std::int64_t>(std::floor(static_cast<double>(amount) * factor));
    }
    for (const auto& [name, amount] : used) idle[name] -= amount;
    for (const auto& job : state.jobs) {
      if (!job->minResources) continue;
      if (job->phase == kPhaseInqueue) {
        addTo(inqueue, *job->minResources);
      } else if (job->phase == kPhaseRunning && job->readyTaskNum() >= job->minMember) {
        // util.GetInqueueResource: what the job's minimum still lacks beyond what it holds.
        const ResourceList allocated = job->allocated();
        for (const auto& [name, amount] : *job->minResources) {
          auto have = allocated.find(name);
          const std::int64_t lacking = amount - (have == allocated.end() ? 0 : have->second);
          if (lacking > 0) inqueue[name] += lacking;
        }
      }
    }
  }
};

// ssn.JobEnqueueable: every plugin permits (overcommit, then proportion).
bool jobEnqueueable(SessionState& state, Overcommit& overcommit, QueueState& queue,
                    const Job& job) {
  if (!queue.open) return false;
  if (!job.minResources) return true;  // best effort
  const ResourceList& minimum = *job.minResources;
  ResourceList wanted = overcommit.inqueue;
  addTo(wanted, minimum);
  if (auto overused = exceeding(wanted, overcommit.idle, minimum, false); !overused.empty()) {
    state.events.push_back(
        {job.podGroup, "Normal", std::string(kConditionUnschedulable),
         formatResourceNames("resource in cluster is overused", "overused", overused)});
    return false;
  }
  if (queue.capability) {
    ResourceList inQueue = minimum;
    addTo(inQueue, queue.allocated);
    addTo(inQueue, queue.inqueue);
    if (auto short_ = exceeding(inQueue, *queue.capability, minimum, true); !short_.empty()) {
      state.events.push_back(
          {job.podGroup, "Normal", std::string(kConditionUnschedulable),
           formatResourceNames("queue resource quota insufficient", "insufficient", short_)});
      return false;
    }
  }
  return true;
}

}  // namespace

void enqueue(SessionState& state) {
  Overcommit overcommit(state);
  // Queue by queue in turn, one job each time, as the action pops and pushes back its queues.
  std::vector<std::pair<QueueState*, std::vector<Job*>>> pending;
  for (QueueState* queue : orderedQueues(state)) {
    std::vector<Job*> jobs;
    for (Job* job : queue->jobs) {
      if (job->phase == kPhasePending) jobs.push_back(job);
    }
    if (!jobs.empty()) pending.emplace_back(queue, std::move(jobs));
  }
  for (std::size_t round = 0;; ++round) {
    bool any = false;
    for (auto& [queue, jobs] : pending) {
      if (round >= jobs.size()) continue;
      any = true;
      Job& job = *jobs[round];
      if (!jobEnqueueable(state, overcommit, *queue, job)) continue;
      // ssn.JobEnqueued: overcommit and proportion count the job's minimum as admitted.
      if (job.minResources) {
        addTo(overcommit.inqueue, *job.minResources);
        addTo(queue->inqueue, *job.minResources);
      }
      job.phase = kPhaseInqueue;
    }
    if (!any) break;
  }
}

namespace {

// --- allocate ---

// The placements of one job's turn, undone unless the gang is ready (framework.Statement).
class Statement {
 public:
  explicit Statement(SessionState& state) : state_(state) {}

  void allocate(Task& task, QueueState& queue, std::size_t node) {
    task.status = TaskStatus::Allocated;
    task.node = state_.nodes[node].capacity.name;
    state_.nodes[node].used.add(task.request);
    addTo(queue.allocated, task.request);
    state_.snapshot.addPod(task.pod, task.node);
    placed_.push_back({&task, &queue, node});
  }

  // The placements become bindings.
  void commit() {
    for (const Placement& p : placed_) state_.bindings.push_back({p.task->pod, p.task->node});
    placed_.clear();
  }

  // The placements are undone; the tasks remember they fit (TaskSchedulingReason: Schedulable).
  void discard() {
    for (const Placement& p : placed_) {
      p.task->status = TaskStatus::Pending;
      p.task->discardedNode = p.task->node;
      p.task->node.clear();
      p.task->placedThenDiscarded = true;
      state_.nodes[p.node].used.remove(p.task->request);
      for (const auto& [name, amount] : p.task->request) p.queue->allocated[name] -= amount;
      state_.snapshot.removePod(p.task->uid);
    }
    placed_.clear();
  }

 private:
  struct Placement {
    Task* task;
    QueueState* queue;
    std::size_t node;
  };
  SessionState& state_;
  std::vector<Placement> placed_;
};

std::string histogram(const std::map<std::string, int>& counts) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : counts) parts.push_back(fmt::format("{} {}", count, reason));
  std::sort(parts.begin(), parts.end());
  return fmt::format("{}", fmt::join(parts, ", "));
}

// util.CalculateNumOfFeasibleNodesToFind with the defaults (minNodesToFind 100,
// minPercentageOfNodesToFind 5, percentageOfNodesToFind adaptive): every node below 100; above,
// 50% less one point per 125 nodes, at least 5% and at least 100 nodes.
std::size_t numFeasibleNodesToFind(std::size_t numAllNodes) {
  constexpr std::size_t kMinNodesToFind = 100;
  if (numAllNodes <= kMinNodesToFind) return numAllNodes;
  const std::int64_t percentage =
      std::max<std::int64_t>(5, 50 - static_cast<std::int64_t>(numAllNodes) / 125);
  return std::max(numAllNodes * static_cast<std::size_t>(percentage) / 100, kMinNodesToFind);
}

// The predicates over the nodes, from where the last task stopped, until numFeasibleNodesToFind
// fit, and the best feasible one; nullopt with task.fitError set when none fits ("0/N nodes are
// unavailable: <reasons>.", api.FitErrors).
std::optional<std::size_t> placeTask(SessionState& state, Task& task) {
  using Stage = PlacementCycle::Stage;
  auto cycle = PlacementCycle::start(*task.pod, state.snapshot);
  if (!cycle) {
    task.fitError = cycle.error().message;
    return std::nullopt;
  }
  const scheduling::Demand demand(task.request);
  std::map<std::string, int> reasons;
  const scheduling::PreFilterResult pre = cycle->preFilter();
  if (!pre.status.ok()) {
    reasons[pre.status.reasons.front()] = static_cast<int>(state.nodes.size());
  }
  std::vector<std::size_t> feasible;
  std::vector<const scheduling::NodeInfo*> feasibleInfos;
  std::vector<std::int64_t> scores;
  const std::size_t count = state.nodes.size();
  const std::size_t toFind = numFeasibleNodesToFind(count);
  const std::size_t start = count == 0 ? 0 : state.nextStartNodeIndex % count;
  std::size_t processed = 0;
  for (std::size_t c = 0; pre.status.ok() && c < count && feasible.size() < toFind; ++c) {
    const std::size_t i = (start + c) % count;
    ++processed;
    const NodeState& node = state.nodes[i];
    if (pre.nodeNames && !pre.nodeNames->count(node.capacity.name)) {
      ++reasons[fmt::format("node(s) didn't satisfy plugin(s) [{}]",
                            fmt::join(pre.narrowedBy, " "))];
      continue;
    }
    const scheduling::UsedOnNode used{node.used, nullptr};
    scheduling::FilterStatus status = cycle->filter(*node.info, Stage::BeforeResources);
    if (status.ok()) status = scheduling::fitResources(demand, node.capacity, used);
    if (status.ok()) status = cycle->filter(*node.info, Stage::AfterResources);
    if (!status.ok()) {
      for (const auto& reason : status.reasons) ++reasons[reason];
      continue;
    }
    feasible.push_back(i);
    feasibleInfos.push_back(node.info);
    scores.push_back(scheduling::leastAllocatedScore(demand, node.capacity, used));
  }
  if (count != 0) state.nextStartNodeIndex = (start + processed) % count;
  if (feasible.empty()) {
    task.fitError =
        fmt::format("0/{} nodes are unavailable: {}.", state.nodes.size(), histogram(reasons));
    return std::nullopt;
  }
  const std::vector<std::int64_t> placement = cycle->scores(feasibleInfos);
  std::size_t best = 0;
  for (std::size_t f = 1; f < feasible.size(); ++f) {
    const std::int64_t total = scores[f] + placement[f];
    const std::int64_t bestTotal = scores[best] + placement[best];
    const std::string& name = state.nodes[feasible[f]].capacity.name;
    if (total > bestTotal ||
        (total == bestTotal && name < state.nodes[feasible[best]].capacity.name)) {
      best = f;
    }
  }
  return feasible[best];
}

// proportion's Allocatable: the queue stays within its deserved share (itself within its
// capability) with the task.
bool allocatable(const QueueState& queue, const Task& task) {
  if (!queue.open) return false;
  ResourceList future = queue.allocated;
  addTo(future, task.request);
  return exceeding(future, queue.deserved, task.request, false).empty();
}

// One job's turn: its Pending tasks in order until one fits nowhere; then commit or discard.
void allocateJob(SessionState& state, QueueState& queue, Job& job) {
  Statement statement(state);
  for (Task& task : job.tasks) {
    if (task.status != TaskStatus::Pending) continue;
    // "Queue is overused when considering task, ignore it": the next task may be smaller.
    if (!allocatable(queue, task)) continue;
    auto node = placeTask(state, task);
    if (!node) break;
    statement.allocate(task, queue, *node);
  }
  if (job.ready()) {
    statement.commit();
  } else {
    statement.discard();
  }
}

}  // namespace

void allocate(SessionState& state) {
  for (QueueState* queue : orderedQueues(state)) {
    if (queue->overused()) continue;  // proportion's Overused
    for (Job* job : queue->jobs) {
      if (job->phase == kPhasePending) continue;
      // gang's JobValid: fewer valid tasks than minMember cannot make a gang.
      if (job->validTaskNum() < job->minMember) continue;
      if (job->count(TaskStatus::Pending) == 0) continue;
      allocateJob(state, *queue, *job);
    }
  }
}

}  // namespace fakekube::volcano
