// The programs' huge-page heap (tools/heap/huge_page_system_allocator.h). This binary links
// tcmalloc and installs the allocator as the programs do, before main.
#include "tools/heap/huge_page_system_allocator.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

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

// How many 4 KiB pages of [begin, begin + length) are resident (backed by memory); -1 when
// mincore fails.
long residentPages(std::uintptr_t begin, std::size_t length) {
  std::vector<unsigned char> pages(length / 4096);
  if (mincore(reinterpret_cast<void*>(begin), length, pages.data()) != 0) return -1;
  return std::count_if(pages.begin(), pages.end(), [](unsigned char p) { return (p & 1) != 0; });
}
bool resident(std::uintptr_t begin, std::size_t length) {
  return residentPages(begin, length) == static_cast<long>(length / 4096);
}
bool absent(std::uintptr_t begin, std::size_t length) { return residentPages(begin, length) == 0; }

// Whether the kernel takes MADV_POPULATE_WRITE (Linux 5.14 on): a fact of the machine.
bool kernelPopulatesWrite() {
  const std::size_t length = HugePageSystemAllocator::kHugePage;
  void* probe = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return false;
  const bool taken = madvise(probe, length, 23 /* MADV_POPULATE_WRITE */) == 0;
  munmap(probe, length);
  return taken;
}

constexpr std::size_t kMiB = std::size_t{1} << 20;

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

TEST(HugePageSystemAllocatorTest, TheLookaheadIsAQuarterOfWhatWasHandedOutInHugePagesUpToItsMost) {
  HugePageSystemAllocator allocator(nullptr, 8 * kMiB);
  EXPECT_EQ(allocator.lookahead(), 0U) << "nothing handed out";
  ASSERT_NE(allocator.Alloc(7 * kMiB, nullptr, 8192), nullptr);
  EXPECT_EQ(allocator.lookahead(), 0U) << "a quarter of 7 MiB is less than a huge page";
  ASSERT_NE(allocator.Alloc(13 * kMiB, nullptr, 8192), nullptr);
  EXPECT_EQ(allocator.lookahead(), 4 * kMiB) << "a quarter of 20 MiB, in whole huge pages";
  ASSERT_NE(allocator.Alloc(40 * kMiB, nullptr, 8192), nullptr);
  EXPECT_EQ(allocator.lookahead(), 8 * kMiB) << "at most the maximum";
}

TEST(HugePageSystemAllocatorTest, PrefaultAheadBacksTheMemoryPastTheLastBlockAndNoMore) {
  if (!kernelPopulatesWrite()) {
    GTEST_SKIP() << "this machine's kernel has no MADV_POPULATE_WRITE (outside the project)";
  }
  HugePageSystemAllocator allocator(nullptr, 8 * kMiB);
  auto block = address(allocator.Alloc(16 * kMiB, nullptr, 8192));
  ASSERT_NE(block, 0U);
  const std::uintptr_t next = block + 16 * kMiB;  // on a huge page: the region starts on one
  ASSERT_EQ(allocator.lookahead(), 4 * kMiB);
  EXPECT_TRUE(absent(next, 8 * kMiB)) << "untouched memory past the block";
  EXPECT_TRUE(allocator.prefaultAhead());
  EXPECT_TRUE(resident(next, 4 * kMiB)) << "the lookahead past the block is backed";
  EXPECT_TRUE(absent(next + 4 * kMiB, 4 * kMiB)) << "and nothing past the lookahead";
  EXPECT_TRUE(absent(block, 16 * kMiB)) << "the block itself is tcmalloc's to touch";
  // Backed memory reads as zeros, as fresh memory does; the next block is that memory.
  auto following = address(allocator.Alloc(2 * kMiB, nullptr, 8192));
  EXPECT_EQ(following, next);
  const auto* bytes = reinterpret_cast<const unsigned char*>(following);
  EXPECT_TRUE(std::all_of(bytes, bytes + 2 * kMiB, [](unsigned char b) { return b == 0; }));
}

TEST(HugePageSystemAllocatorTest, PrefaultAheadMapsTheNextRegionWhichTheNextNewRegionIs) {
  if (!kernelPopulatesWrite()) {
    GTEST_SKIP() << "this machine's kernel has no MADV_POPULATE_WRITE (outside the project)";
  }
  HugePageSystemAllocator allocator(nullptr, 32 * kMiB);
  const std::size_t region = HugePageSystemAllocator::kRegion;
  auto first = address(allocator.Alloc(region - kMiB, nullptr, 8192));
  ASSERT_NE(first, 0U);
  // 63 MiB handed out: 14 MiB ahead, of which 1 MiB is left in this region.
  ASSERT_EQ(allocator.lookahead(), 14 * kMiB);
  EXPECT_TRUE(allocator.prefaultAhead());
  // A block that does not fit in the region's last MiB opens the next region: the one mapped
  // ahead, whose start is backed before anything touched it.
  auto next = address(allocator.Alloc(4 * kMiB, nullptr, 8192));
  ASSERT_NE(next, 0U);
  EXPECT_EQ(next % HugePageSystemAllocator::kHugePage, 0U);
  EXPECT_TRUE(next < first || next >= first + region) << "another region";
  EXPECT_TRUE(resident(next, 14 * kMiB)) << "the next region's start was backed ahead";
  EXPECT_TRUE(absent(next + 14 * kMiB, 4 * kMiB));
  // Backing ahead there goes on from where it stopped.
  EXPECT_TRUE(allocator.prefaultAhead());
  EXPECT_TRUE(resident(next + 4 * kMiB, 16 * kMiB)) << "the lookahead past the new block";
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
