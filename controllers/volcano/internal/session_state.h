// The state one Volcano session works on (session.h): the jobs and their tasks, the queues, the
// nodes' usage and the placement Snapshot, built from the session's input. Shared by session.cpp
// (open and close) and session_actions.cpp (enqueue and allocate); not a public header.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "controllers/volcano/internal/session.h"
#include "fakekube/cluster/internal/scheduler_resources.h"
#include "fakekube/cluster/internal/scheduler_snapshot.h"
#include "fakekube/cluster/scheduler.h"

namespace fakekube::volcano {

// api.TaskStatus, as far as a simulated pod reaches.
enum class TaskStatus { Pending, Allocated, Binding, Bound, Running, Releasing, Succeeded, Failed };
const char* taskStatusName(TaskStatus status);
// api.AllocatedStatus: the task holds a node's resources.
bool isAllocatedStatus(TaskStatus status);

struct Task {
  ObjectPtr pod;
  std::string uid;
  std::string name;
  TaskStatus status = TaskStatus::Pending;
  std::string node;
  ResourceList request;
  std::int64_t priority = 0;
  std::string created;
  // Set by allocate: the node it was placed on in this session before a discard (the gang's
  // LastTransaction), or why it fits nowhere.
  bool placedThenDiscarded = false;
  std::string discardedNode;
  std::string fitError;
};

struct Job {
  ObjectPtr podGroup;
  std::string key;  // namespace/name
  std::string uid;
  std::string queue;
  std::string phase;
  std::int32_t minMember = 0;
  std::optional<ResourceList> minResources;
  std::int64_t priority = 0;
  std::string created;
  std::vector<Task> tasks;

  int count(TaskStatus status) const;
  // ReadyTaskNum: Bound, Binding, Running, Allocated, Succeeded.
  int readyTaskNum() const;
  // ValidTaskNum: ready, Pending.
  int validTaskNum() const;
  bool ready() const { return readyTaskNum() >= minMember; }
  // The requests of the tasks that hold resources.
  ResourceList allocated() const;
};

struct QueueState {
  ObjectPtr queue;
  std::string name;
  bool open = true;
  std::optional<ResourceList> capability;
  std::int64_t weight = 1;
  ResourceList allocated;
  ResourceList inqueue;
  // What its jobs hold and their Pending tasks ask for, and its share of the cluster
  // (computeDeserved).
  ResourceList request;
  ResourceList deserved;
  std::vector<Job*> jobs;
  // helpers.Share of allocated over deserved at its largest over the resources.
  double share() const;
  // proportion's Overused: deserved <= allocated in every resource.
  bool overused() const;
};

struct NodeState {
  const scheduling::NodeInfo* info = nullptr;
  scheduling::NodeCapacity capacity;
  scheduling::NodeUsage used;
};

// Everything a session reads and changes.
struct SessionState {
  const SessionOptions* options = nullptr;
  std::vector<std::unique_ptr<Job>> jobs;  // in job order (see session.h)
  std::map<std::string, QueueState> queues;
  std::vector<NodeState> nodes;  // in the snapshot's order
  std::unordered_map<std::string, std::size_t> nodeIndex;
  scheduling::Snapshot snapshot;
  ResourceList total;  // allocatable of the schedulable nodes
  // Where the next task's predicates start (the scheduler's lastProcessedNodeIndex): a task that
  // stops after numFeasibleNodesToFind nodes leaves the others to the next tasks.
  std::size_t nextStartNodeIndex = 0;
  std::vector<SessionEvent> events;
  std::vector<SessionBinding> bindings;
};

// --- resources (api.Resource over ResourceList) ---
void addTo(ResourceList& into, const ResourceList& more);
// The names of the resources `request` asks for (> 0) whose amount in `used` exceeds `limit`
// (LessEqualWithDimensionAndResourcesName). A resource `limit` lacks is 0, or unlimited when
// `missingIsUnlimited`.
std::vector<std::string> exceeding(const ResourceList& used, const ResourceList& limit,
                                   const ResourceList& request, bool missingIsUnlimited);
// util.FormatResourceNames.
std::string formatResourceNames(const std::string& prefix, const std::string& verb,
                                const std::vector<std::string>& names);

// --- proportion (session_proportion.cpp) ---
// Each queue's request, then its deserved share: the schedulable total divided by weight in
// rounds, each queue capped by its capability and its request, until nothing is left to give.
void computeDeserved(SessionState& state);

// --- the actions (session_actions.cpp) ---
void enqueue(SessionState& state);
void allocate(SessionState& state);

}  // namespace fakekube::volcano
