// WatchStream: a Watch as the body of a watch request — newline-delimited JSON events,
// {"type":"ADDED","object":{...}}\n, one after the other for as long as the watch lasts.
//
// The transport pulls from it on the connection's thread: read() waits a bounded time for events
// and appends every event that is queued, so each write to the socket carries whatever happened
// meanwhile and nothing waits in a buffer. Between reads the transport checks that the client is
// still there; a stream whose client left, or whose server stops, is stopped, which ends the
// Watch and lets the API server forget it.
//
// The object of each event is written as the request asked (the object, a Table row, or
// PartialObjectMetadata) by the encoder the stream is built with. ERROR events (a Status) are
// written as they are, and end the stream.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "fakekube/apiserver/watch.h"
#include "fakekube/http/internal/rest_types.h"

namespace fakekube {

class WatchStream final : public ResponseStream {
 public:
  // Turns an event's object into what the client asked for (for ADDED/MODIFIED/DELETED/BOOKMARK;
  // ERROR objects are never passed to it).
  using Encoder = std::function<Json(const WatchEvent& event)>;

  WatchStream(std::shared_ptr<Watch> watch, Encoder encode);
  ~WatchStream();
  WatchStream(const WatchStream&) = delete;
  WatchStream& operator=(const WatchStream&) = delete;

  // Waits up to `wait` for the next event, then appends it and everything else queued (Data:
  // events were appended; Ended: the watch is over). Only one thread reads a stream.
  Step read(std::string& out, std::chrono::milliseconds wait) override;

  // Ends the stream (the client left or the server stops). Safe from any thread, more than once.
  void stop() override;

 private:
  void append(std::string& out, const WatchEvent& event);

  std::shared_ptr<Watch> watch_;
  Encoder encode_;
};

}  // namespace fakekube
