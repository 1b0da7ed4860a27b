// WatchEvent: one event of a watch stream, as every watcher sees it — from the in-process API
// server, from a RestClient reading a stream over HTTP, or from a test's fake.
//
//   ADDED / MODIFIED / DELETED  the object (for DELETED its last state, stamped with the
//                               deletion's resourceVersion)
//   BOOKMARK                    {"kind":K,"apiVersion":gv,"metadata":{"resourceVersion":"N"}},
//                               plus metadata.annotations {"k8s.io/initial-events-end":"true"} for
//                               the bookmark that closes sendInitialEvents' initial state
//   ERROR                       a Status document (Status::toJson()); the stream ends after it
//
// On the wire: {"type": watchEventTypeName(type), "object": *object}. A value type of the API:
// the queue that carries events is apiserver/watch.h.
#pragma once

#include "fakekube/api/object.h"

namespace fakekube {

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };
// The wire name: "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR".
const char* watchEventTypeName(WatchEventType type);

struct WatchEvent {
  WatchEventType type = WatchEventType::Added;
  ObjectPtr object;
};

}  // namespace fakekube
