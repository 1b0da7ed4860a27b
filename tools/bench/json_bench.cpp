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

#include "fakekube/api/internal/json_decode.h"

namespace fakekube::bench {
namespace {

// BM_JsonDecodeMembers/{in_order,reverse}/N: parseJsonText of one object of N members, the names
// in order (as Go clients and our own text send them) or reversed (a hostile body). Both grow as
// n log n at most: an object's members are appended and sorted once when it closes, so the
// reversed body is not the n^2 of inserting each member in its place (json_object_map.h).
void BM_JsonDecodeMembers(benchmark::State& state) {
  const bool reverse = state.range(0) != 0;
  const auto count = static_cast<int>(state.range(1));
  std::string text = "{";
  for (int i = 0; i < count; ++i) {
    const int n = reverse ? count - i : i + 1;
    if (i > 0) text += ",";
    text += "\"k" + std::to_string(10000000 + n) + "\":" + std::to_string(n);
  }
  text += "}";
  for (auto _ : state) {
    auto decoded = parseJsonText(text);
    if (!decoded || decoded->size() != static_cast<std::size_t>(count)) {
      state.SkipWithError("decode failed");
      break;
    }
    benchmark::DoNotOptimize(decoded);
  }
  state.SetItemsProcessed(state.iterations() * count);
}
BENCHMARK(BM_JsonDecodeMembers)
    ->ArgNames({"reverse", "members"})
    ->ArgsProduct({{0, 1}, {1000, 100000}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fakekube::bench
