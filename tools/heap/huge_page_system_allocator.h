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
// Install it once, early in main or from a static initializer (install() does that for the
// programs). Where the kernel gives no huge pages (THP "never") the regions are ordinary memory.
// tcmalloc calls Alloc under its page heap lock, so the allocator needs no lock of its own.
#ifndef FAKEKUBE_TOOLS_HEAP_HUGE_PAGE_SYSTEM_ALLOCATOR_H_
#define FAKEKUBE_TOOLS_HEAP_HUGE_PAGE_SYSTEM_ALLOCATOR_H_

#include <gperftools/malloc_extension.h>

#include <cstddef>

namespace fakekube::heap {

class HugePageSystemAllocator : public SysAllocator {
 public:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kRegion = std::size_t{64} << 20;
  // Larger requests and alignments (64 TiB, beyond the address space) go to the fallback.
  static constexpr std::size_t kLargestRequest = std::size_t{1} << 46;

  // `fallback` answers when a region cannot be mapped (tcmalloc's own allocator); may be null.
  explicit HugePageSystemAllocator(SysAllocator* fallback) : fallback_(fallback) {}

  // `size` bytes aligned to `alignment` (a power of two), from the current region or a new one;
  // `*actual_size` (when given) is `size`. What no region can hold (a failed mapping, a request
  // over kLargestRequest, an alignment that is no power of two) is asked of the fallback; null
  // when neither has memory.
  void* Alloc(std::size_t size, std::size_t* actual_size, std::size_t alignment) override;

  // Makes a HugePageSystemAllocator tcmalloc's system allocator, falling back to the one it had.
  // Once per process; does nothing when FAKEKUBE_HUGE_PAGES is "0" in the environment.
  static void install();

 private:
  SysAllocator* fallback_;
  char* next_ = nullptr;  // the current region's first free byte
  char* end_ = nullptr;   // the current region's end
};

}  // namespace fakekube::heap

#endif  // FAKEKUBE_TOOLS_HEAP_HUGE_PAGE_SYSTEM_ALLOCATOR_H_
