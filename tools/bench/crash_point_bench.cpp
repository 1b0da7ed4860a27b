// Crash-point enumeration throughput on the fixtures' Widget scenario.
//
// BM_CrashPointEnumeration/N: CrashPointRunner::run() on N Widgets, each owning one ConfigMap
// (tests/fixtures/widget_controllers.cpp's addWidgetController): one clean run, then one run per
// (write, fault) — 2 writes per Widget, 3 faults — each a fresh seeded TestCluster (API server,
// operator Manager, objects) run to the goal and 5 s of virtual time past it. Reports the
// enumeration's runs per second and the number of crash points.
//
// BM_DemoJobCrashPointEnumeration: `fakekube crashtest -f tests/fixtures/data/demo-job.yaml`, in
// process: the RayJob story's demo-job (a RayJob with its own RayCluster, K8sJobMode, a 60 s
// TTL) with the KubeRay operator and the Ray simulation on two nodes, every operator write of its
// lifecycle under all three faults, each run to the goal, settled, torn down and checked for
// leftovers. The bound for it is 2 s of wall time in a Release build. The argument is crashtest's
// --jobs: /jobs:1 runs the points one after the other, /jobs:0 (the command's default) one per core
// at a time; both print the same rows.
//
// Built only when the fixtures library is (FAKEKUBE_BUILD_TESTS=ON).
#ifdef FAKEKUBE_BENCH_FIXTURES
#include <benchmark/benchmark.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "fakekube/api/resources.h"
#include "fixtures/crash_point_runner.h"
#include "fixtures/matchers.h"
#include "tools/cli/commands.h"
#include "widget_controllers.h"

namespace fakekube::bench {
namespace {

using fixturestest::addWidgetController;
using fixturestest::kWidgets;

std::string widgets(std::int64_t n) {
  std::string yaml;
  for (std::int64_t i = 1; i <= n; ++i) {
    yaml += "---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w" +
            std::to_string(i) + "\nspec:\n  size: " + std::to_string(i) + "\n";
  }
  return yaml;
}

void BM_CrashPointEnumeration(benchmark::State& state) {
  const std::string manifest = widgets(state.range(0));
  std::uint64_t runs = 0;
  std::size_t points = 0;
  for (auto _ : state) {
    CrashPointRunner runner({.name = "widgets",
                             .cluster = {.seed = 11,
                                         .manifests = {manifest},
                                         .files = {fixturestest::widgetCrdPath()},
                                         .operators = {{"widget-operator", addWidgetController}}},
                             .goal = Expectation::every(kWidgets, "default", HasPhase("Ready")),
                             .timeout = std::chrono::seconds(30),
                             .invariants = {noDuplicateControlled(kConfigMaps, "Widget")}});
    auto report = runner.run();
    if (!report || !report->ok()) throw std::runtime_error("the Widget scenario did not converge");
    runs += runner.runs();
    points = report->rows.size();
  }
  state.counters["runs/s"] =
      benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
  state.counters["crash_points"] = static_cast<double>(points);
}
BENCHMARK(BM_CrashPointEnumeration)->Arg(1)->Arg(3)->Arg(10)->Unit(benchmark::kMillisecond);

void BM_DemoJobCrashPointEnumeration(benchmark::State& state) {
  std::uint64_t runs = 0;
  std::size_t points = 0;
  for (auto _ : state) {
    std::ostringstream out;
    std::ostringstream err;
    cli::CrashtestOptions options;
    options.files = {std::string(FIXTURES_TEST_DATA) + "/demo-job.yaml"};
    options.jobs = static_cast<int>(state.range(0));
    options.out = &out;
    options.err = &err;
    if (cli::runCrashtest(options) != 0) {
      throw std::runtime_error("the demo-job enumeration found a violation: " + out.str() +
                               err.str());
    }
    std::istringstream rows(out.str());
    points = 0;
    for (std::string line; std::getline(rows, line);) points += line.starts_with("k=");
    runs += points + 1;  // and the clean run
  }
  state.counters["runs/s"] =
      benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
  state.counters["crash_points"] = static_cast<double>(points);
}
BENCHMARK(BM_DemoJobCrashPointEnumeration)
    ->ArgName("jobs")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace fakekube::bench
#endif  // FAKEKUBE_BENCH_FIXTURES
