// The libFuzzer entry point: one binary for every target (targets.h), the environment variable
// FAKEKUBE_FUZZ_TARGET naming the one to run (tools/fuzz sets it).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tools/fuzzing/targets.h"

namespace {

void (*chosen())(std::string_view) {
  const char* name = std::getenv("FAKEKUBE_FUZZ_TARGET");
  for (const auto& target : fakekube::fuzz::targets()) {
    if (name != nullptr && std::strcmp(target.name, name) == 0) return target.run;
  }
  std::fprintf(stderr, "set FAKEKUBE_FUZZ_TARGET to one of:");
  for (const auto& target : fakekube::fuzz::targets()) std::fprintf(stderr, " %s", target.name);
  std::fprintf(stderr, "\n");
  std::exit(2);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto run = chosen();
  run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
