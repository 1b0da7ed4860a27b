#include "fakekube/http/internal/watch_stream.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/json_writer.h"

namespace fakekube {

namespace {
// How much one read() appends at most before handing the bytes to the socket.
constexpr std::size_t kMaxBatchBytes = 256 * 1024;
}  // namespace

WatchStream::WatchStream(std::shared_ptr<Watch> watch, Encoder encode)
    : watch_(std::move(watch)), encode_(std::move(encode)) {}

WatchStream::~WatchStream() { watch_->stop(); }

void WatchStream::stop() { watch_->stop(); }

void WatchStream::append(std::string& out, const WatchEvent& event) {
  out.append(R"({"type":")").append(watchEventTypeName(event.type)).append(R"(","object":)");
  if (event.type == WatchEventType::Error || !encode_) {
    appendJson(out, *event.object);
  } else {
    appendJson(out, encode_(event));
  }
  out.append("}\n");
}

WatchStream::Step WatchStream::read(std::string& out, std::chrono::milliseconds wait) {
  auto event = watch_->next(wait);
  if (!event) return watch_->ended() ? Step::Ended : Step::Idle;
  append(out, *event);
  while (out.size() < kMaxBatchBytes) {
    event = watch_->tryNext();
    if (!event) break;
    append(out, *event);
  }
  return Step::Data;
}

}  // namespace fakekube
