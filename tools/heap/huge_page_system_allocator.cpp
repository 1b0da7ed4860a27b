#include "tools/heap/huge_page_system_allocator.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>

// Linux 5.14's madvise advice; older C library headers lack the name.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace fakekube::heap {
namespace {

std::uintptr_t alignUp(std::uintptr_t value, std::size_t alignment) {
  return (value + alignment - 1) & ~(static_cast<std::uintptr_t>(alignment) - 1);
}

// A region of `length` bytes (a multiple of kHugePage) starting on a huge page, marked for huge
// pages; 0 when it cannot be mapped. Mapped with a huge page to spare so that an aligned region of
// `length` fits in it.
std::uintptr_t mapRegion(std::size_t length) {
  void* mapped = mmap(nullptr, length + HugePageSystemAllocator::kHugePage, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapped == MAP_FAILED) return 0;
  const std::uintptr_t base =
      alignUp(reinterpret_cast<std::uintptr_t>(mapped), HugePageSystemAllocator::kHugePage);
  // Advice only: a kernel without transparent huge pages leaves the region in small pages.
  (void)madvise(reinterpret_cast<void*>(base), length, MADV_HUGEPAGE);
  return base;
}

// Backs [from, to) (huge-page aligned) without writing to it; whether the kernel took it.
bool populate(std::uintptr_t from, std::uintptr_t to) {
  if (from >= to) return true;
  return madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE) == 0;
}

}  // namespace

void* HugePageSystemAllocator::Alloc(std::size_t size, std::size_t* actual_size,
                                     std::size_t alignment) {
  alignment = std::max<std::size_t>(alignment, alignof(std::max_align_t));
  // A request no address space holds, or an alignment that is not a power of two, is the
  // fallback's to answer; below these bounds none of the sums here can wrap.
  if (size > kLargestRequest || alignment > kLargestRequest || (alignment & (alignment - 1)) != 0) {
    return fallback_ != nullptr ? fallback_->Alloc(size, actual_size, alignment) : nullptr;
  }
  const auto end = reinterpret_cast<std::uintptr_t>(end_);
  std::uintptr_t start = alignUp(reinterpret_cast<std::uintptr_t>(next_), alignment);
  // Never blocks on the thread that backs memory ahead: when it holds the lock, this allocation
  // maps a region of its own and publishes nothing (the next one will).
  std::unique_lock lock(mu_, std::try_to_lock);
  if (next_ == nullptr || start > end || end - start < size) {
    // A new region; what is left of the old one was never handed out (though the part backed
    // ahead holds memory until the process ends).
    const std::size_t length =
        std::max(kRegion, static_cast<std::size_t>(alignUp(size + alignment, kHugePage)));
    std::uintptr_t base = 0;
    if (lock.owns_lock() && spareBase_ != 0 && length == kRegion && alignment <= kHugePage) {
      base = spareBase_;  // mapped ahead, its start perhaps backed already
      spareBase_ = 0;
    } else {
      base = mapRegion(length);
      if (base == 0) {
        return fallback_ != nullptr ? fallback_->Alloc(size, actual_size, alignment) : nullptr;
      }
    }
    next_ = reinterpret_cast<char*>(base);
    end_ = next_ + length;
    start = alignUp(base, alignment);
  }
  next_ = reinterpret_cast<char*>(start + size);
  handedOut_ += size;
  if (lock.owns_lock()) {
    published_ = {reinterpret_cast<std::uintptr_t>(next_), reinterpret_cast<std::uintptr_t>(end_),
                  handedOut_};
    lock.unlock();
    moves_.fetch_add(1, std::memory_order_release);
    moves_.notify_one();
  }
  if (actual_size != nullptr) *actual_size = size;
  return reinterpret_cast<void*>(start);
}

std::size_t HugePageSystemAllocator::lookaheadFor(std::size_t handedOut) const {
  return std::min(maxLookahead_, handedOut / 4 / kHugePage * kHugePage);
}

std::size_t HugePageSystemAllocator::lookahead() {
  std::lock_guard lock(mu_);
  return lookaheadFor(published_.handedOut);
}

bool HugePageSystemAllocator::prefaultAhead() {
  Cursor cursor;
  std::uintptr_t spare = 0;
  {
    std::lock_guard lock(mu_);
    cursor = published_;
    spare = spareBase_;
  }
  const std::size_t ahead = lookaheadFor(cursor.handedOut);
  if (cursor.end == 0 || ahead == 0) return true;
  if (cursor.end != backedEnd_) {
    // Another region: the one mapped ahead (whose start may be backed already), or a new one.
    backedUpTo_ = cursor.end == spareEnd_ ? spareBackedUpTo_ : 0;
    backedEnd_ = cursor.end;
    spareBackedUpTo_ = 0;
    spareEnd_ = 0;
  }
  bool taken = true;
  const std::uintptr_t target = cursor.next + ahead;
  // From the next huge page on: the one the first free byte is in is tcmalloc's already.
  const std::uintptr_t from = std::max(backedUpTo_, alignUp(cursor.next, kHugePage));
  const std::uintptr_t to = std::min(alignUp(target, kHugePage), cursor.end);
  if (from < to) {
    taken = populate(from, to);
    backedUpTo_ = to;
  }
  if (taken && target > cursor.end) {
    // The lookahead runs past the region: the next one is mapped now and its start backed.
    if (spare == 0) {
      spare = mapRegion(kRegion);
      if (spare == 0) return taken;
      std::lock_guard lock(mu_);
      spareBase_ = spare;  // none was there (only this function maps one), and Alloc takes it
    }
    if (spareEnd_ != spare + kRegion) {
      spareBackedUpTo_ = spare;
      spareEnd_ = spare + kRegion;
    }
    const std::uintptr_t spareTo =
        std::min(spare + alignUp(target - cursor.end, kHugePage), spareEnd_);
    if (spareBackedUpTo_ < spareTo) {
      taken = populate(spareBackedUpTo_, spareTo);
      spareBackedUpTo_ = spareTo;
    }
  }
  return taken;
}

void HugePageSystemAllocator::runPrefaulting() {
  // A low priority of the normal policy (nice 10): backing memory ahead yields to the program's
  // own threads (at nice 0 it took 40 to 120 ms of the main thread's time in a /1000 run; at 10,
  // 1 to 3 ms). Not lower: on a busy machine a thread that low waits long for a core, and the
  // process's exit waits for every thread to die. Beside eight busy loops fakekube serve's stop
  // took 0.27 to 0.30 s without the thread; with it, 1.4 to 1.9 s at SCHED_IDLE, 0.30 to 0.68 s at
  // nice 19, 0.24 to 0.38 s at nice 10.
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
  std::uint32_t seen = moves_.load(std::memory_order_acquire);
  while (true) {
    moves_.wait(seen, std::memory_order_acquire);
    seen = moves_.load(std::memory_order_acquire);
    // A kernel without MADV_POPULATE_WRITE (or out of memory): nothing more is backed ahead.
    if (!prefaultAhead()) return;
  }
}

void HugePageSystemAllocator::install() {
  const char* setting = std::getenv("FAKEKUBE_HUGE_PAGES");
  if (setting != nullptr && std::strcmp(setting, "0") == 0) return;
  // A first allocation makes tcmalloc set up its own system allocator (the fallback), which it
  // would otherwise do at its first growth, replacing this one.
  std::free(std::malloc(1));
  MallocExtension* extension = MallocExtension::instance();
  // Never freed: tcmalloc keeps calling it until the process ends.
  static auto* allocator = new HugePageSystemAllocator(extension->GetSystemAllocator());
  extension->SetSystemAllocator(allocator);
  const char* prefault = std::getenv("FAKEKUBE_HEAP_PREFAULT");
  if (prefault != nullptr && std::strcmp(prefault, "0") == 0) return;
  // Lives as long as the process: it waits for the heap to grow, and exit ends it.
  std::thread([] { allocator->runPrefaulting(); }).detach();
}

}  // namespace fakekube::heap
