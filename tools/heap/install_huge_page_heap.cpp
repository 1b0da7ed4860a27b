// Linked into the programs that allocate with tcmalloc (fakekube_program_allocator,
// CMakeLists.txt at the root): installs the huge-page system allocator before main runs, so the
// heap's growth from the first large allocation on comes from huge-page regions.
#include "tools/heap/huge_page_system_allocator.h"

namespace {
const bool kHugePageHeapInstalled = [] {
  fakekube::heap::HugePageSystemAllocator::install();
  return true;
}();
}  // namespace
