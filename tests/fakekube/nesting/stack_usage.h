// How much stack a piece of code uses: it runs on a thread whose stack was painted with a pattern
// beforehand, and the deepest byte no longer holding the pattern marks the high-water line. Used
// by the nesting tests to show that every walk over a document nested to the decoders' limit fits
// in a default 8 MB thread stack with room to spare.
#pragma once

#include <pthread.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstring>
#include <functional>

namespace fakekube::testing {

inline std::size_t stackUsedBy(const std::function<void()>& body) {
  constexpr std::size_t kSize = std::size_t{128} << 20;
  constexpr unsigned char kPaint = 0xA5;
  void* memory = mmap(nullptr, kSize, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) return kSize;
  std::memset(memory, kPaint, kSize);
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstack(&attributes, memory, kSize);
  pthread_t thread;
  auto trampoline = [](void* argument) -> void* {
    (*static_cast<const std::function<void()>*>(argument))();
    return nullptr;
  };
  pthread_create(&thread, &attributes, trampoline, const_cast<std::function<void()>*>(&body));
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
  const auto* bytes = static_cast<const unsigned char*>(memory);
  std::size_t untouched = 0;
  while (untouched < kSize && bytes[untouched] == kPaint) ++untouched;
  munmap(memory, kSize);
  return kSize - untouched;
}

// The stack a default thread gets (RLIMIT_STACK, 8 MB here), and the share of it a walk over a
// document at the nesting limit may use. Sanitizer builds have several times larger frames; the
// bound is for the build a server runs.
inline constexpr std::size_t kDefaultThreadStack = std::size_t{8} << 20;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr std::size_t kNestingStackBudget = kDefaultThreadStack * 8;
#else
inline constexpr std::size_t kNestingStackBudget = kDefaultThreadStack / 2;
#endif

}  // namespace fakekube::testing
