// BM_ExploreDemoJob: `fakekube crashtest -f tests/fixtures/data/demo-job.yaml --explore
// stale,unobserved,intermediate` in process, against the crash points of the same file in the
// same iteration: plans per second and crash points per second, and their ratio (an exploration
// plan costs what a crash point costs: the same seeded run, through the same view of the
// operator's informers). The argument is --jobs (1: one run at a time; 0: one per core).
//
// Built only when the fixtures library is (FAKEKUBE_BUILD_TESTS=ON).
#ifdef FAKEKUBE_BENCH_FIXTURES
#include <benchmark/benchmark.h>

#include <chrono>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tools/cli/commands.h"

namespace fakekube::bench {
namespace {

// Runs crashtest and answers (runs, seconds of wall time); a violation stops the benchmark.
std::pair<std::size_t, double> timedCrashtest(cli::CrashtestOptions options, const char* prefix) {
  std::ostringstream out;
  std::ostringstream err;
  options.out = &out;
  options.err = &err;
  options.quiet = true;
  const auto start = std::chrono::steady_clock::now();
  if (cli::runCrashtest(options) != 0) {
    throw std::runtime_error("the demo-job run found a violation: " + out.str() + err.str());
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::istringstream rows(out.str());
  std::size_t runs = 1;  // the clean (reference) run
  for (std::string line; std::getline(rows, line);) runs += line.starts_with(prefix);
  return {runs, seconds};
}

void BM_ExploreDemoJob(benchmark::State& state) {
  double planSeconds = 0;
  double pointSeconds = 0;
  std::size_t plans = 0;
  std::size_t points = 0;
  for (auto _ : state) {
    cli::CrashtestOptions options;
    options.files = {std::string(FIXTURES_TEST_DATA) + "/demo-job.yaml"};
    options.jobs = static_cast<int>(state.range(0));
    auto [pointRuns, pointTime] = timedCrashtest(options, "k=");
    options.explore = "stale,unobserved,intermediate";
    auto [planRuns, planTime] = timedCrashtest(options, "#");
    points += pointRuns;
    plans += planRuns;
    pointSeconds += pointTime;
    planSeconds += planTime;
  }
  const double plansPerSecond = planSeconds > 0 ? static_cast<double>(plans) / planSeconds : 0;
  const double pointsPerSecond = pointSeconds > 0 ? static_cast<double>(points) / pointSeconds : 0;
  state.counters["plans/s"] = plansPerSecond;
  state.counters["crash_points/s"] = pointsPerSecond;
  state.counters["ratio"] = pointsPerSecond > 0 ? plansPerSecond / pointsPerSecond : 0;
  state.counters["plans"] = static_cast<double>(plans) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_ExploreDemoJob)
    ->ArgName("jobs")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace
}  // namespace fakekube::bench
#endif  // FAKEKUBE_BENCH_FIXTURES
