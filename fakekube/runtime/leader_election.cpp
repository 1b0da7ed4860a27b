#include "fakekube/runtime/leader_election.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/client/client.h"

namespace fakekube {

namespace {

// The election record: a Lease's spec as client-go's LeaderElectionRecord reads it.
struct Record {
  std::string holder;
  std::int64_t leaseDurationSeconds = 0;
  std::string acquireTime;
  std::string renewTime;
  std::int64_t transitions = 0;
};

std::string leaseString(const Json& spec, const char* key) {
  if (!spec.is_object()) return {};
  auto it = spec.find(key);
  return it != spec.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::int64_t leaseInteger(const Json& spec, const char* key) {
  if (!spec.is_object()) return 0;
  auto it = spec.find(key);
  return it != spec.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
}

Record readRecord(const Json& lease) {
  static const Json kNull;
  const Json& spec = lease.is_object() && lease.contains("spec") ? lease["spec"] : kNull;
  return {leaseString(spec, "holderIdentity"), leaseInteger(spec, "leaseDurationSeconds"),
          leaseString(spec, "acquireTime"), leaseString(spec, "renewTime"),
          leaseInteger(spec, "leaseTransitions")};
}

void writeRecord(Json& lease, const Record& r) {
  Json& spec = lease["spec"];
  if (!spec.is_object()) spec = Json::object();
  // An emptied lease keeps the field, as client-go writes it ("holderIdentity": "").
  spec["holderIdentity"] = r.holder;
  spec["leaseDurationSeconds"] = r.leaseDurationSeconds;
  spec["acquireTime"] = r.acquireTime;
  spec["renewTime"] = r.renewTime;
  spec["leaseTransitions"] = r.transitions;
}

}  // namespace

struct LeaderElector::Impl : std::enable_shared_from_this<Impl> {
  Impl(Client& c, Executor& e, LeaderElectionConfig cfg)
      : client(c), executor(e), config(std::move(cfg)) {}

  // What one tryAcquireOrRenew found.
  enum class Outcome {
    Held,         // we hold the lease now (created, acquired or renewed)
    HeldByOther,  // someone else holds a lease that has not expired
    Failed,       // the write lost a race (409, AlreadyExists) or the server failed
  };

  Client& client;
  Executor& executor;
  const LeaderElectionConfig config;

  mutable std::mutex mu;
  bool running = false;
  bool leading = false;
  // Bumped by start/stop/crash: a task posted under an older epoch does nothing.
  std::uint64_t epoch = 0;
  std::optional<TimerId> timer;
  TimePoint lastRenew{};
  // The last lease read or written, for release() and for judging expiry.
  Json observed;
  // When `observed`'s record last changed, on our clock: the fallback for judging expiry of a
  // lease without a readable renewTime (client-go judges every lease this way).
  TimePoint observedTime{};
  std::string reportedLeader;

  // Callbacks collected under the lock and called after it is released.
  using Pending = std::vector<std::function<void()>>;

  std::int64_t leaseSeconds() const {
    return std::chrono::duration_cast<std::chrono::seconds>(config.leaseDuration).count();
  }

  void observe(const Json& lease, TimePoint now, Pending& out) {
    Record before = readRecord(observed);
    Record after = readRecord(lease);
    if (observed.is_null() || before.holder != after.holder ||
        before.renewTime != after.renewTime) {
      observedTime = now;
    }
    observed = lease;
    if (!after.holder.empty() && after.holder != reportedLeader) {
      reportedLeader = after.holder;
      if (config.onNewLeader) {
        out.push_back([cb = config.onNewLeader, who = after.holder] { cb(who); });
      }
    }
  }

  // client-go's isLeaseValid, from the lease's own renewTime and duration.
  bool expired(const Record& r, TimePoint now) const {
    Duration duration = r.leaseDurationSeconds > 0
                            ? Duration(std::chrono::seconds(r.leaseDurationSeconds))
                            : config.leaseDuration;
    TimePoint renewed;
    if (!parseRfc3339(r.renewTime, &renewed)) renewed = observedTime;
    return renewed + duration <= now;
  }

  Outcome tryAcquireOrRenew(TimePoint now, Pending& out) {
    const std::string stamp = formatRfc3339Micro(now);
    auto got = client.get(kLeases, config.leaseNamespace, config.leaseName);
    if (!got) {
      if (!isNotFound(got.error())) return Outcome::Failed;
      Json lease = {
          {"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", {{"name", config.leaseName}, {"namespace", config.leaseNamespace}}}};
      writeRecord(lease, {config.identity, leaseSeconds(), stamp, stamp, 0});
      // AlreadyExists: another candidate created it first; we read its lease at the next retry.
      auto created = client.create(kLeases, std::move(lease));
      if (!created) return Outcome::Failed;
      observe(*created, now, out);
      return Outcome::Held;
    }
    observe(*got, now, out);
    const Record old = readRecord(*got);
    if (!old.holder.empty() && old.holder != config.identity && !expired(old, now)) {
      return Outcome::HeldByOther;
    }
    Record next{config.identity, leaseSeconds(), stamp, stamp, old.transitions + 1};
    if (old.holder == config.identity) {
      // A renewal (or a restart under the same identity): the lease did not change hands.
      next.acquireTime = old.acquireTime.empty() ? stamp : old.acquireTime;
      next.transitions = old.transitions;
    }
    Json lease = std::move(*got);
    writeRecord(lease, next);
    // The update carries the resourceVersion we read: if anyone wrote since, it is a 409.
    auto updated = client.update(kLeases, std::move(lease));
    if (!updated) return Outcome::Failed;
    observe(*updated, now, out);
    return Outcome::Held;
  }

  void schedule(Duration delay) {
    std::weak_ptr<Impl> weak = weak_from_this();
    const std::uint64_t e = epoch;
    timer = executor.postAfter(delay, [weak, e] {
      if (auto self = weak.lock()) self->attempt(e);
    });
  }

  // One round of the acquire loop or the renew loop.
  void attempt(std::uint64_t e) {
    Pending out;
    {
      std::lock_guard lock(mu);
      if (e != epoch || !running) return;
      timer.reset();
      const TimePoint now = executor.now();
      switch (tryAcquireOrRenew(now, out)) {
        case Outcome::Held:
          lastRenew = now;
          if (!leading) {
            leading = true;
            if (config.onStartedLeading) out.push_back(config.onStartedLeading);
          }
          schedule(config.retryPeriod);
          break;
        case Outcome::HeldByOther:
          if (leading) {
            // Someone else holds it: we lost it (we stalled past its expiry). Stop at once.
            loseLeadership(out);
          } else {
            schedule(config.retryPeriod);
          }
          break;
        case Outcome::Failed:
          if (!leading) {
            schedule(config.retryPeriod);
          } else if (now - lastRenew >= config.renewDeadline) {
            loseLeadership(out);
          } else {
            // Retry, and make the last try fall exactly on the deadline.
            schedule(std::min(config.retryPeriod, lastRenew + config.renewDeadline - now));
          }
          break;
      }
    }
    for (auto& fn : out) fn();
  }

  // The election ends for this elector (client-go's Run returns).
  void loseLeadership(Pending& out) {
    leading = false;
    running = false;
    ++epoch;
    if (config.onStoppedLeading) out.push_back(config.onStoppedLeading);
  }

  // Cancels the timer and ends the election; the caller holds mu.
  void halt() {
    ++epoch;
    running = false;
    if (timer) executor.cancel(*timer);
    timer.reset();
  }

  // ReleaseOnCancel: empty the holder so the next candidate need not wait for expiry. client-go
  // writes leaseDurationSeconds 1 and both times now, and keeps the transitions count.
  void release() {
    if (readRecord(observed).holder != config.identity) return;
    const std::string stamp = formatRfc3339Micro(executor.now());
    Json lease = observed;
    writeRecord(lease, {"", 1, stamp, stamp, readRecord(observed).transitions});
    // A failure (409: someone wrote since) means the lease is no longer ours to release.
    if (auto updated = client.update(kLeases, std::move(lease))) observed = *updated;
  }
};

LeaderElector::LeaderElector(Client& client, Executor& executor, LeaderElectionConfig config) {
  if (config.leaseName.empty()) throw std::invalid_argument("leader election: empty lease name");
  if (config.identity.empty()) throw std::invalid_argument("leader election: empty identity");
  if (config.leaseDuration < std::chrono::seconds(1)) {
    throw std::invalid_argument("leader election: leaseDuration must be at least 1s");
  }
  if (config.retryPeriod <= Duration::zero()) {
    throw std::invalid_argument("leader election: retryPeriod must be greater than zero");
  }
  if (config.leaseDuration <= config.renewDeadline) {
    throw std::invalid_argument(
        "leader election: leaseDuration must be greater than renewDeadline");
  }
  if (config.renewDeadline * 5 <= config.retryPeriod * 6) {
    throw std::invalid_argument(
        "leader election: renewDeadline must be greater than retryPeriod*1.2");
  }
  impl_ = std::make_shared<Impl>(client, executor, std::move(config));
}

LeaderElector::~LeaderElector() { crash(); }

void LeaderElector::start() {
  std::lock_guard lock(impl_->mu);
  if (impl_->running) return;
  impl_->running = true;
  ++impl_->epoch;
  impl_->schedule(Duration::zero());
}

void LeaderElector::stop() {
  bool wasLeading = false;
  {
    std::lock_guard lock(impl_->mu);
    if (!impl_->running) return;
    impl_->halt();
    wasLeading = std::exchange(impl_->leading, false);
    if (wasLeading) impl_->release();
  }
  if (wasLeading && impl_->config.onStoppedLeading) impl_->config.onStoppedLeading();
}

void LeaderElector::crash() {
  std::lock_guard lock(impl_->mu);
  impl_->halt();
  impl_->leading = false;
}

bool LeaderElector::isLeader() const {
  std::lock_guard lock(impl_->mu);
  return impl_->leading;
}

bool LeaderElector::running() const {
  std::lock_guard lock(impl_->mu);
  return impl_->running;
}

std::string LeaderElector::leader() const {
  std::lock_guard lock(impl_->mu);
  return readRecord(impl_->observed).holder;
}

const LeaderElectionConfig& LeaderElector::config() const { return impl_->config; }

}  // namespace fakekube
