// KindWatch: one kind's watch stream as a controller consumes it, the way an informer's reflector
// does: the current state first, then live events, and a fresh start whenever the stream ends.
//
// A controller that keeps its own picture of the cluster must learn of deletions it missed while
// a stream was down (a watcher that falls too far behind is cut off with 410 Expired). So every
// (re)start asks for the initial state with sendInitialEvents: the server sends an ADDED per
// current object and then a BOOKMARK marking the end of that state, and KindWatch reports which
// objects that state held. Anything the controller knew of that kind and that is not in it was
// deleted while nobody was looking.
//
// Not thread-safe, on purpose: it is owned by one controller that calls it under the controller's
// own lock. The only thing that runs elsewhere is `wake`, which the server calls (on the writer's
// thread, under the server's lock) when events are waiting; it must only schedule a call to
// drain(), e.g. with Executor::post. Keeping KindWatch lock-free avoids a lock-order inversion
// between the controller's lock and a second lock inside the watch.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_set>

#include "fakekube/api/resource_registry.h"
#include "fakekube/api/status.h"
#include "fakekube/apiserver/watch.h"

namespace fakekube {

class ApiServer;

class KindWatch {
 public:
  // ADDED, MODIFIED or DELETED, with the object.
  using EventHandler = std::function<void(WatchEventType, const ObjectPtr&)>;
  // The uids of every object the initial state of a (re)start held, once it has been delivered.
  using SyncHandler = std::function<void(const std::unordered_set<std::string>& uids)>;

  // Watches every object of `info`'s kind (all namespaces). Nothing happens until open().
  KindWatch(ApiServer& server, ResourceInfoPtr info, std::function<void()> wake);
  ~KindWatch();
  KindWatch(const KindWatch&) = delete;
  KindWatch& operator=(const KindWatch&) = delete;

  // Starts (or restarts) the stream. Fails when the kind is no longer served (its CRD is gone).
  Result<void> open();

  // Takes every queued event, calling onEvent for object events and onSync when an initial state
  // ends. When the stream has ended (410, server shutdown) it is reopened, so the next drain
  // starts with a fresh initial state; an error is returned only if reopening failed.
  Result<void> drain(const EventHandler& onEvent, const SyncHandler& onSync);

  // Ends the stream; no wake-ups after this returns (one already running may still post).
  void stop();

  const ResourceInfoPtr& info() const { return info_; }
  // True from open() until the end of the first initial state.
  bool syncing() const { return syncing_; }

 private:
  ApiServer& server_;
  ResourceInfoPtr info_;
  std::function<void()> wake_;
  std::shared_ptr<Watch> watch_;
  bool syncing_ = false;
  std::unordered_set<std::string> initialUids_;
};

}  // namespace fakekube
