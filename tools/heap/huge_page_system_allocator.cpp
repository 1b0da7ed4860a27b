#include "tools/heap/huge_page_system_allocator.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace fakekube::heap {
namespace {

std::uintptr_t alignUp(std::uintptr_t value, std::size_t alignment) {
  return (value + alignment - 1) & ~(static_cast<std::uintptr_t>(alignment) - 1);
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
  if (next_ == nullptr || start > end || end - start < size) {
    // A new region; what is left of the old one was never touched, so it costs no memory.
    // Mapped with a huge page to spare, so that a 2 MiB-aligned region of `length` fits in it.
    const std::size_t length =
        std::max(kRegion, static_cast<std::size_t>(alignUp(size + alignment, kHugePage)));
    void* mapped = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapped == MAP_FAILED) {
      return fallback_ != nullptr ? fallback_->Alloc(size, actual_size, alignment) : nullptr;
    }
    const std::uintptr_t base = alignUp(reinterpret_cast<std::uintptr_t>(mapped), kHugePage);
    // Advice only: a kernel without transparent huge pages leaves the region in small pages.
    (void)madvise(reinterpret_cast<void*>(base), length, MADV_HUGEPAGE);
    next_ = reinterpret_cast<char*>(base);
    end_ = next_ + length;
    start = alignUp(base, alignment);
  }
  next_ = reinterpret_cast<char*>(start + size);
  if (actual_size != nullptr) *actual_size = size;
  return reinterpret_cast<void*>(start);
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
}

}  // namespace fakekube::heap
