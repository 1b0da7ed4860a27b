// fakekube-bench's entry point: Google Benchmark's own, after one setting of the C library's
// allocator.
//
// Memory a benchmark frees stays in the process instead of going back to the kernel, so a
// benchmark that first warms up on a throwaway instance is measured on a heap that already holds
// what it needs, whatever ran before it. api_bench.cpp explains why the create ratio depends on
// it; every other benchmark only gets steadier.
#include <benchmark/benchmark.h>
#include <malloc.h>

int main(int argc, char** argv) {
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest; below it, blocks come from the heap
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
