// HugePageSystemAllocator: where tcmalloc gets its memory from the kernel, in the programs that
// link tcmalloc (fakekube, fakekube-bench).
//
// tcmalloc grows its heap a few hundred KiB at a time from sbrk or mmap, in 4 KiB pages. The
// server's heap grows by hundreds of MiB of small JSON nodes during a large run (450 KiB a
// RayCluster at 1,000), and on a virtual machine every first touch of a 4 KiB page is a fault
// that costs microseconds: 114,000 faults made a quarter of BM_RayClustersReady/1000's time.
// This allocator hands tcmalloc memory from 64 MiB regions aligned to 2 MiB and marked
// MADV_HUGEPAGE, so the kernel backs them with transparent huge pages (one fault per 2 MiB; the
// kernel's default THP mode, "madvise", does this only for regions that ask). Address space is
// reserved, not memory: a region's pages are backed as they are touched, 2 MiB at a time.
//
// Backing memory ahead (prefaultAhead). Even in huge pages, the first touch of memory can be the
// slowest thing a growing heap does: on a virtual machine whose host backs the guest's memory
// lazily and takes freed pages back (a balloon's free page reporting, as on Firecracker VMs),
// zeroing a page the guest has not used lately faults on the host too, at about 0.5 GB/s against
// 15 GB/s for a page it has (measured on the 2-core VM the benchmarks run on: 4.6 s against
// 0.14 s for 2 GiB). The run that grows the heap by 3 GB pays that on its main thread. So a thread
// of the allocator's own keeps the memory just past what tcmalloc has been handed backed
// (MADV_POPULATE_WRITE: faulted in writable, its contents untouched), on another core, up to a
// lookahead of a quarter of the heap handed out so far and at most maxLookahead (32 MiB): a small
// program backs a little ahead, a growing server a region's half. Near a region's end it maps the
// next region ahead of time and backs that one's start. The thread runs at nice 10, so it yields
// to the program's own threads (but not so low that it waits long for a core when the process
// exits, which waits for every thread). Memory backed ahead and not yet handed out
// is the price: at most the lookahead. Where the kernel lacks MADV_POPULATE_WRITE (before Linux
// 5.14) nothing is backed ahead.
//
// Install it once, early in main or from a static initializer (install() does that for the
// programs). Where the kernel gives no huge pages (THP "never") the regions are ordinary memory.
// tcmalloc calls Alloc under its page heap lock, so Alloc needs no lock of its own against
// itself; what it shares with the thread that backs memory ahead is guarded by a mutex that Alloc
// only tries (it never waits for that thread, and neither side allocates while holding it).
#ifndef FAKEKUBE_TOOLS_HEAP_HUGE_PAGE_SYSTEM_ALLOCATOR_H_
#define FAKEKUBE_TOOLS_HEAP_HUGE_PAGE_SYSTEM_ALLOCATOR_H_

#include <gperftools/malloc_extension.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace fakekube::heap {

class HugePageSystemAllocator : public SysAllocator {
 public:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kRegion = std::size_t{64} << 20;
  static constexpr std::size_t kDefaultMaxLookahead = std::size_t{32} << 20;
  // Larger requests and alignments (64 TiB, beyond the address space) go to the fallback.
  static constexpr std::size_t kLargestRequest = std::size_t{1} << 46;

  // `fallback` answers when a region cannot be mapped (tcmalloc's own allocator); may be null.
  // `maxLookahead`: the most prefaultAhead() backs past the memory handed out (0: nothing).
  explicit HugePageSystemAllocator(SysAllocator* fallback,
                                   std::size_t maxLookahead = kDefaultMaxLookahead)
      : fallback_(fallback), maxLookahead_(maxLookahead) {}

  // `size` bytes aligned to `alignment` (a power of two), from the current region or a new one
  // (the region mapped ahead, when there is one); `*actual_size` (when given) is `size`. What no
  // region can hold (a failed mapping, a request over kLargestRequest, an alignment that is no
  // power of two) is asked of the fallback; null when neither has memory.
  void* Alloc(std::size_t size, std::size_t* actual_size, std::size_t alignment) override;

  // Backs the memory the next allocations will get: from the current region's next huge page up
  // to the lookahead past its first free byte, mapping the next region when that runs past the
  // current one's end. The work of the thread install() starts (run on every Alloc that moved
  // the first free byte); one caller at a time. Whether MADV_POPULATE_WRITE took every range it
  // was given (true when there was nothing to back).
  bool prefaultAhead();

  // How far past the first free byte the memory is to be backed now: a quarter of what has been
  // handed out, in whole huge pages, at most maxLookahead.
  std::size_t lookahead();

  // Makes a HugePageSystemAllocator tcmalloc's system allocator, falling back to the one it had,
  // and starts the thread that backs memory ahead. Once per process; does nothing when
  // FAKEKUBE_HUGE_PAGES is "0" in the environment. FAKEKUBE_HEAP_PREFAULT=0 leaves the thread
  // out (the regions stay as before).
  static void install();

 private:
  // The memory the thread backs ahead of: published by Alloc, read by prefaultAhead.
  struct Cursor {
    std::uintptr_t next = 0;  // the current region's first free byte
    std::uintptr_t end = 0;   // the current region's end
    std::size_t handedOut = 0;
  };
  void runPrefaulting();  // the thread's loop: wait for a move of the cursor, back ahead
  std::size_t lookaheadFor(std::size_t handedOut) const;

  SysAllocator* fallback_;
  const std::size_t maxLookahead_;
  char* next_ = nullptr;  // the current region's first free byte
  char* end_ = nullptr;   // the current region's end
  std::size_t handedOut_ = 0;

  // Shared with the thread that backs memory ahead.
  std::mutex mu_;
  Cursor published_;               // guarded by mu_
  std::uintptr_t spareBase_ = 0;   // the next region (kRegion long), mapped ahead (0: none); mu_
  std::uintptr_t backedUpTo_ = 0;  // prefaultAhead's own: backed below this, in backedEnd_'s region
  std::uintptr_t backedEnd_ = 0;   //   the end of the region backedUpTo_ is in
  std::uintptr_t spareBackedUpTo_ = 0;   // prefaultAhead's own: backed in the spare below this
  std::uintptr_t spareEnd_ = 0;          //   the end of the spare that is about
  std::atomic<std::uint32_t> moves_{0};  // bumped by Alloc on every publish; the thread waits on it
};

}  // namespace fakekube::heap

#endif  // FAKEKUBE_TOOLS_HEAP_HUGE_PAGE_SYSTEM_ALLOCATOR_H_
