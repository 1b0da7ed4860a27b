#include "fakekube/store/internal/write_behind.h"

#include <utility>

namespace fakekube {

WriteBehind::WriteBehind(Apply apply) : apply_(std::move(apply)), thread_([this] { run(); }) {}

WriteBehind::~WriteBehind() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  work_.notify_one();
  thread_.join();
}

Result<void> WriteBehind::add(Operation operation) {
  std::vector<ObjectPtr> released;  // dropped after the lock is let go (declared first)
  std::unique_lock lock(mu_);
  if (!released_.empty()) released.swap(released_);
  if (failure_) return tl::unexpected(*failure_);
  if (queued_.size() >= kMaxQueued) {
    idle_.wait(lock, [this] { return queued_.size() < kMaxQueued; });
  }
  queued_.push_back(std::move(operation));
  // A writer busy with a batch looks at the queue again when it is done: only an idle one needs
  // waking, and only once enough waits (drain() wakes it for the rest).
  if (queued_.size() == kWakeAfter && !applying_) {
    lock.unlock();
    work_.notify_one();
  }
  return {};
}

std::string WriteBehind::spareBuffer() {
  std::lock_guard lock(mu_);
  if (spare_.empty()) return {};
  std::string buffer = std::move(spare_.back());
  spare_.pop_back();
  buffer.clear();
  return buffer;
}

Result<void> WriteBehind::drain() {
  std::vector<ObjectPtr> released;  // dropped after the lock is let go (declared first)
  std::unique_lock lock(mu_);
  if (!queued_.empty()) {
    flushing_ = true;
    work_.notify_one();
  }
  idle_.wait(lock, [this] { return queued_.empty() && !applying_; });
  released.swap(released_);
  if (failure_) return tl::unexpected(*failure_);
  return {};
}

std::optional<Status> WriteBehind::failure() const {
  std::lock_guard lock(mu_);
  return failure_;
}

void WriteBehind::run() {
  std::vector<Operation> batch;
  std::unique_lock lock(mu_);
  std::vector<std::string> buffers;
  std::vector<ObjectPtr> documents;
  while (true) {
    // Woken by add() once a batch waits, by drain(), or to stop; a batch found waiting after
    // the last one is taken at once.
    work_.wait(lock, [this] { return stopping_ || flushing_ || queued_.size() >= kWakeAfter; });
    flushing_ = false;
    if (queued_.empty()) {
      if (stopping_) return;  // and nothing left
      continue;
    }
    batch.swap(queued_);
    applying_ = true;
    // Once a batch failed nothing more is applied: the history would have a hole.
    const bool failed = failure_.has_value();
    lock.unlock();
    Result<void> applied = failed ? Result<void>{} : apply_(batch);
    for (auto& operation : batch) {
      if (auto* row = std::get_if<Row>(&operation)) {
        if (row->object) {
          documents.push_back(std::move(row->object));
        } else {
          buffers.push_back(std::move(row->data));
        }
      }
    }
    batch.clear();
    lock.lock();
    if (!applied && !failure_) failure_ = applied.error();
    if (released_.empty()) {
      released_.swap(documents);
    } else {
      released_.insert(released_.end(), std::make_move_iterator(documents.begin()),
                       std::make_move_iterator(documents.end()));
      documents.clear();
    }
    // Kept up to a batch's worth; the rest are freed.
    while (!buffers.empty() && spare_.size() < 2 * kWakeAfter) {
      spare_.push_back(std::move(buffers.back()));
      buffers.pop_back();
    }
    applying_ = false;
    idle_.notify_all();
    if (!buffers.empty()) {
      lock.unlock();
      buffers.clear();
      lock.lock();
    }
  }
}

}  // namespace fakekube
