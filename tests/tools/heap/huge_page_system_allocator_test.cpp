// The programs' huge-page heap (tools/heap/huge_page_system_allocator.h). This binary links
// tcmalloc and installs the allocator as the programs do, before main.
#include "tools/heap/huge_page_system_allocator.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

namespace fakekube::heap {
namespace {

std::uintptr_t address(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer); }

// The VmFlags line of the mapping of /proc/self/smaps that holds `pointer`; empty if none does.
std::string vmFlagsOf(const void* pointer) {
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> begin >> dash >> end && dash == '-' &&
        line.find(':') > line.find(' ')) {
      inside = begin <= address(pointer) && address(pointer) < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

// Whether the kernel takes MADV_HUGEPAGE at all (built without transparent huge pages it answers
// EINVAL): a fact of the machine, not of the project.
bool kernelHasTransparentHugePages() {
  const std::size_t length = HugePageSystemAllocator::kHugePage;
  void* probe = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return false;
  const bool taken = madvise(probe, length, MADV_HUGEPAGE) == 0;
  munmap(probe, length);
  return taken;
}

// A fallback that records being asked and has no memory.
class RecordingAllocator : public SysAllocator {
 public:
  void* Alloc(std::size_t size, std::size_t* /*actual_size*/, std::size_t /*alignment*/) override {
    asked = size;
    return nullptr;
  }
  std::size_t asked = 0;
};

TEST(HugePageSystemAllocatorTest, AllocationsAreAlignedAndPackedIntoOneHugePageAlignedRegion) {
  HugePageSystemAllocator allocator(nullptr);
  std::size_t actual = 0;
  void* first = allocator.Alloc(1 << 20, &actual, 8192);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(actual, std::size_t{1} << 20);
  EXPECT_EQ(address(first) % HugePageSystemAllocator::kHugePage, 0U) << "a region starts on 2 MiB";
  void* second = allocator.Alloc(40000, &actual, 8192);
  EXPECT_EQ(address(second), address(first) + (1 << 20)) << "the next block follows in the region";
  void* third = allocator.Alloc(100, nullptr, 4096);
  EXPECT_EQ(address(third) % 4096, 0U);
  EXPECT_GE(address(third), address(second) + 40000);
  std::memset(first, 1, 1 << 20);  // the memory is there to write
  std::memset(third, 2, 100);
}

TEST(HugePageSystemAllocatorTest, ABlockLargerThanARegionGetsARegionOfItsOwn) {
  HugePageSystemAllocator allocator(nullptr);
  const std::size_t size = HugePageSystemAllocator::kRegion + (3 << 20);
  void* small = allocator.Alloc(8192, nullptr, 8192);
  void* large = allocator.Alloc(size, nullptr, 8192);
  ASSERT_NE(small, nullptr);
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(address(large) % HugePageSystemAllocator::kHugePage, 0U);
  static_cast<char*>(large)[0] = 1;
  static_cast<char*>(large)[size - 1] = 1;
}

TEST(HugePageSystemAllocatorTest, RegionsAskTheKernelForHugePages) {
  if (!kernelHasTransparentHugePages()) {
    GTEST_SKIP() << "this machine's kernel has no transparent huge pages (outside the project)";
  }
  HugePageSystemAllocator allocator(nullptr);
  void* block = allocator.Alloc(1 << 20, nullptr, 8192);
  ASSERT_NE(block, nullptr);
  const std::string flags = vmFlagsOf(block);
  ASSERT_FALSE(flags.empty()) << "no mapping holds the block";
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
}

TEST(HugePageSystemAllocatorTest, WhatCannotBeMappedIsAskedOfTheFallback) {
  RecordingAllocator fallback;
  HugePageSystemAllocator allocator(&fallback);
  const std::size_t impossible = std::size_t{1} << 50;  // beyond a 47-bit address space
  EXPECT_EQ(allocator.Alloc(impossible, nullptr, 8192), nullptr);
  EXPECT_EQ(fallback.asked, impossible);
  HugePageSystemAllocator alone(nullptr);
  EXPECT_EQ(alone.Alloc(impossible, nullptr, 8192), nullptr);
}

TEST(HugePageSystemAllocatorTest, ASizeOrAlignmentWhoseSumsWouldWrapGetsNoBlock) {
  RecordingAllocator fallback;
  HugePageSystemAllocator allocator(&fallback);
  ASSERT_NE(allocator.Alloc(8192, nullptr, 8192), nullptr);  // a region is current
  const std::size_t nearlyAll = std::numeric_limits<std::size_t>::max() - 4096;
  EXPECT_EQ(allocator.Alloc(nearlyAll, nullptr, 8192), nullptr);
  EXPECT_EQ(fallback.asked, nearlyAll);
  fallback.asked = 0;
  EXPECT_EQ(allocator.Alloc(4096, nullptr, std::size_t{1} << 63), nullptr);
  EXPECT_EQ(fallback.asked, 4096U);
  fallback.asked = 0;
  EXPECT_EQ(allocator.Alloc(4096, nullptr, 3 * 4096), nullptr) << "not a power of two";
  EXPECT_EQ(fallback.asked, 4096U);
  // The region still serves ordinary requests after them.
  void* after = allocator.Alloc(8192, nullptr, 8192);
  ASSERT_NE(after, nullptr);
  std::memset(after, 3, 8192);
}

TEST(HugePageSystemAllocatorTest, TheProgramsHeapGrowsInHugePageRegions) {
  if (!kernelHasTransparentHugePages()) {
    GTEST_SKIP() << "this machine's kernel has no transparent huge pages (outside the project)";
  }
  // tcmalloc serves a block this large from its page heap, which grows through the installed
  // allocator: the block lies in a region marked for huge pages.
  void* block = std::malloc(std::size_t{16} << 20);
  ASSERT_NE(block, nullptr);
  const std::string flags = vmFlagsOf(block);
  std::free(block);
  ASSERT_FALSE(flags.empty()) << "no mapping holds the block";
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
}

}  // namespace
}  // namespace fakekube::heap
