#include "fakekube/cluster/kind_watch.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/api_server.h"

namespace fakekube {

namespace {

bool isInitialEventsEnd(const Json& bookmark) {
  return meta::annotation(bookmark, "k8s.io/initial-events-end") == "true";
}

}  // namespace

KindWatch::KindWatch(ApiServer& server, ResourceInfoPtr info, std::function<void()> wake)
    : server_(server), info_(std::move(info)), wake_(std::move(wake)) {}

KindWatch::~KindWatch() { stop(); }

Result<void> KindWatch::open() {
  stop();
  WatchOptions options;
  options.sendInitialEvents = true;
  options.resourceVersionMatch = "NotOlderThan";
  options.allowWatchBookmarks = true;
  auto watch = server_.watch(info_->gvr(), "", options);
  if (!watch) return tl::unexpected(watch.error());
  watch_ = std::move(*watch);
  syncing_ = true;
  initialUids_.clear();
  // Set last: if events are already queued, this calls wake_ at once.
  watch_->setNotify(wake_);
  return {};
}

Result<void> KindWatch::drain(const EventHandler& onEvent, const SyncHandler& onSync) {
  if (watch_ == nullptr) return {};
  while (auto event = watch_->tryNext()) {
    switch (event->type) {
      case WatchEventType::Added:
      case WatchEventType::Modified:
      case WatchEventType::Deleted:
        if (syncing_ && event->type == WatchEventType::Added) {
          initialUids_.insert(meta::uid(*event->object));
        }
        onEvent(event->type, event->object);
        break;
      case WatchEventType::Bookmark:
        if (syncing_ && isInitialEventsEnd(*event->object)) {
          syncing_ = false;
          onSync(initialUids_);
          initialUids_.clear();
        }
        break;
      case WatchEventType::Error:
        // The stream ends after this; reopened below.
        break;
    }
  }
  if (watch_->ended()) return open();
  return {};
}

void KindWatch::stop() {
  if (watch_ == nullptr) return;
  watch_->setNotify({});
  watch_->stop();
  watch_.reset();
}

}  // namespace fakekube
