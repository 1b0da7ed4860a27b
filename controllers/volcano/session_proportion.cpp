// proportion's deserved shares (proportion.go OnSessionOpen): how a session divides the cluster
// between its Queues.
#include <algorithm>

#include "controllers/volcano/internal/session_state.h"

namespace fakekube::volcano {
namespace {

// A queue's request: what its jobs hold, plus what their Pending tasks ask for.
ResourceList requestOf(const QueueState& queue) {
  ResourceList request;
  for (const Job* job : queue.jobs) {
    for (const Task& task : job->tasks) {
      if (isAllocatedStatus(task.status) || task.status == TaskStatus::Pending) {
        addTo(request, task.request);
      }
    }
  }
  return request;
}

// MinDimensionResource: each resource of `r` at most `bound`'s (a resource `bound` lacks: 0, or
// unlimited when `missingIsUnlimited`).
void capTo(ResourceList& r, const ResourceList& bound, bool missingIsUnlimited) {
  for (auto& [name, amount] : r) {
    auto cap = bound.find(name);
    if (cap == bound.end()) {
      if (!missingIsUnlimited) amount = 0;
    } else {
      amount = std::min(amount, cap->second);
    }
  }
}

// request <= deserved in every resource the request names.
bool met(const QueueState& queue) {
  for (const auto& [name, amount] : queue.request) {
    auto due = queue.deserved.find(name);
    if (amount > (due == queue.deserved.end() ? 0 : due->second)) return false;
  }
  return true;
}

}  // namespace

void computeDeserved(SessionState& state) {
  for (auto& [name, queue] : state.queues) queue.request = requestOf(queue);
  ResourceList remaining = state.total;
  std::map<std::string, bool> done;
  // Each round hands out what is left by weight; it ends when every queue is met or nothing
  // changed (a round can only give, so this takes at most one round per queue and resource).
  for (int round = 0; round < 64; ++round) {
    std::int64_t totalWeight = 0;
    for (const auto& [name, queue] : state.queues) {
      if (!done[name]) totalWeight += queue.weight;
    }
    if (totalWeight == 0) break;
    const ResourceList before = remaining;
    for (auto& [name, queue] : state.queues) {
      if (done[name]) continue;
      const double fraction = static_cast<double>(queue.weight) / static_cast<double>(totalWeight);
      for (const auto& [resource, amount] : before) {
        queue.deserved[resource] +=
            static_cast<std::int64_t>(static_cast<double>(amount) * fraction);
      }
      if (queue.capability) capTo(queue.deserved, *queue.capability, true);
      capTo(queue.deserved, queue.request, false);
      if (met(queue)) done[name] = true;
    }
    remaining = state.total;
    for (const auto& [name, queue] : state.queues) {
      for (const auto& [resource, amount] : queue.deserved) remaining[resource] -= amount;
    }
    bool empty = true;
    for (const auto& [resource, amount] : remaining) empty = empty && amount <= 0;
    if (empty || remaining == before) break;
  }
}

}  // namespace fakekube::volcano
