// The building blocks of the API server's hot path, for reading the API benchmarks: what one
// copy, one serialisation and one parse of the 1.5 KiB Pod cost with nlohmann::json.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "tools/bench/bench_util.h"

namespace fakekube::bench {
namespace {

void BM_JsonCopyPod(benchmark::State& state) {
  const Json pod = samplePod("pod");
  for (auto _ : state) {
    Json copy = pod;
    benchmark::DoNotOptimize(copy);
  }
}
BENCHMARK(BM_JsonCopyPod);

void BM_JsonDumpPod(benchmark::State& state) {
  const Json pod = samplePod("pod");
  for (auto _ : state) {
    std::string text = pod.dump();
    benchmark::DoNotOptimize(text);
  }
}
BENCHMARK(BM_JsonDumpPod);

void BM_JsonParsePod(benchmark::State& state) {
  const std::string text = samplePod("pod").dump();
  for (auto _ : state) {
    Json parsed = Json::parse(text);
    benchmark::DoNotOptimize(parsed);
  }
}
BENCHMARK(BM_JsonParsePod);

}  // namespace
}  // namespace fakekube::bench

#include "fakekube/api/json_writer.h"

namespace fakekube::bench {
namespace {

void BM_JsonWriterPod(benchmark::State& state) {
  const Json pod = samplePod("pod");
  std::string buffer;
  for (auto _ : state) {
    buffer.clear();
    appendJson(buffer, pod);
    benchmark::DoNotOptimize(buffer);
  }
}
BENCHMARK(BM_JsonWriterPod);

}  // namespace
}  // namespace fakekube::bench
