#include "tools/cli/explore.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "fixtures/chrome_trace.h"
#include "fixtures/explorer.h"
#include "fixtures/timeline_page.h"

namespace fakekube::cli {

namespace {

int badExploreInput(std::ostream& err, const std::string& message) {
  err << "fakekube crashtest: " << message << "\n";
  return 2;
}

Result<Json> readJsonFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return tl::unexpected(Status::badRequest(fmt::format("{}: cannot be read", path)));
  std::stringstream text;
  text << in.rdbuf();
  Json json = Json::parse(text.str(), nullptr, false);
  if (json.is_discarded()) {
    return tl::unexpected(Status::badRequest(fmt::format("{}: not JSON", path)));
  }
  return json;
}

Result<void> writeFile(const std::string& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  if (!file) return tl::unexpected(Status::badRequest(fmt::format("{}: cannot be written", path)));
  return {};
}

// "2/3" -> shard index 1 of 3.
Result<std::pair<std::size_t, std::size_t>> parseShard(const std::string& text) {
  auto bad = [&] {
    return tl::unexpected(
        Status::badRequest(fmt::format("--shard \"{}\": expected I/N with 1 <= I <= N", text)));
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) return bad();
  try {
    std::size_t used = 0;
    const long long i = std::stoll(text.substr(0, slash), &used);
    if (used != slash) return bad();
    const std::string rest = text.substr(slash + 1);
    const long long n = std::stoll(rest, &used);
    if (used != rest.size() || n < 1 || i < 1 || i > n) return bad();
    return std::pair<std::size_t, std::size_t>(i - 1, n);
  } catch (const std::exception&) {
    return bad();
  }
}

// What a replay file records besides the plan: the command line that built the scenario.
Json commandLineOf(const CrashtestOptions& options) {
  return {{"files", options.files}, {"until", options.until},       {"timeout", options.timeout},
          {"nodes", options.nodes}, {"teardown", options.teardown}, {"compare", options.compare}};
}

// A bar on the terminal: plans done of the total, violations so far, time left.
class ProgressBar {
 public:
  explicit ProgressBar(bool shown) : shown_(shown), start_(std::chrono::steady_clock::now()) {}
  void update(std::size_t done, std::size_t total, std::size_t violations) {
    if (!shown_) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::size_t width = 30;
    const std::size_t filled = total == 0 ? 0 : std::min(width, done * width / total);
    const double left = done == 0 || total < done ? 0 : elapsed / done * (total - done);
    std::fprintf(stderr, "\r[%s%s] %zu/%zu plans, %zu violations, %.0fs left ",
                 std::string(filled, '#').c_str(), std::string(width - filled, ' ').c_str(), done,
                 total, violations, left);
    std::fflush(stderr);
  }
  void clear() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool shown_;
  std::chrono::steady_clock::time_point start_;
};

ExploreOptions exploreOptionsOf(const CrashtestOptions& options,
                                const std::vector<PerturbationKind>& kinds,
                                std::pair<std::size_t, std::size_t> shard) {
  ExploreOptions explore;
  explore.kinds = kinds;
  explore.depth = options.depth;
  explore.differential.compare = options.compare;
  explore.shardIndex = shard.first;
  explore.shardCount = shard.second;
  return explore;
}

// What runPlan's inspection does with --trace: the run as Chrome trace-event JSON.
// What runPlan's inspection does with --trace and --timeline: the run drawn.
std::function<void(TestCluster&)> traceWriter(const CrashtestOptions& options, const Plan& plan,
                                              std::ostream& err) {
  if (options.trace.empty() && options.timeline.empty()) return {};
  std::string title = plan.perturbations.empty() ? std::string("reference run") : plan.str();
  return [&options, &err, title](TestCluster& cluster) {
    const Json trace = chromeTrace(cluster, title);
    auto save = [&](const std::string& path, const std::string& text, const char* flag) {
      if (path.empty()) return;
      if (auto written = writeFile(path, text); !written) {
        err << "fakekube crashtest: " << flag << ": " << written.error().message << "\n";
      }
    };
    save(options.trace, trace.dump() + "\n", "--trace");
    save(options.timeline, timelinePage(trace), "--timeline");
  };
}

int replayOnePlan(Explorer& explorer, const CrashtestOptions& options, std::ostream& out,
                  std::ostream& err) {
  auto plan = Plan::fromJson(Json::parse(options.replayPlan, nullptr, false));
  if (!plan) return badExploreInput(err, "--replay: " + plan.error().message);
  PlanRow row = explorer.runPlan(*plan, traceWriter(options, *plan, err));
  if (explorer.options().shrink && plan->perturbations.size() > 1 && !row.violations.empty()) {
    row.shrunk = explorer.shrink(*plan);
  }
  out << ExploreReport::rowText(row);
  out.flush();
  return row.violations.empty() ? 0 : 1;
}

// --replay-dir: the failing plan's replay file, plan-<index>.json, with the command line and
// what the plan violated.
void writeReplayFile(Explorer& explorer, const CrashtestOptions& options, const PlanRow& row,
                     std::ostream& err) {
  Json file = explorer.replayFile(row.plan);
  file["crashtest"] = commandLineOf(options);
  file["violations"] = row.violations;
  const std::string path = fmt::format("{}/plan-{}.json", options.replayDir, row.index);
  if (writeFile(path, file.dump(2) + "\n")) {
    err << "fakekube crashtest: replay with: fakekube crashtest --replay " << path << "\n";
  }
}

// The plan --trace and --timeline draw: the first failing one (shrunk, when it was), else none:
// the reference run.
Plan firstFailingPlan(const ExploreReport& report) {
  for (const auto& row : report.rows) {
    if (!row.violations.empty()) return row.shrunk ? *row.shrunk : row.plan;
  }
  return Plan{};
}

}  // namespace

bool wantsExploration(const CrashtestOptions& options) {
  return !options.explore.empty() || !options.replayPlan.empty();
}

int runExploration(const CrashtestOptions& options, CrashScenario scenario, std::ostream& out,
                   std::ostream& err) {
  auto kinds = parsePerturbationKinds(options.explore.empty() ? "intermediate,stale,unobserved"
                                                              : options.explore);
  if (!kinds) return badExploreInput(err, "--explore: " + kinds.error().message);
  if (kinds->empty())
    return badExploreInput(err, "--explore: name some of intermediate, stale, unobserved");
  if (options.depth < 1 || options.depth > 2) {
    return badExploreInput(err, fmt::format("--depth {}: expected 1 or 2", options.depth));
  }
  std::pair<std::size_t, std::size_t> shard{0, 1};
  if (!options.shard.empty()) {
    auto parsed = parseShard(options.shard);
    if (!parsed) return badExploreInput(err, parsed.error().message);
    shard = *parsed;
  }
  Explorer explorer(std::move(scenario), exploreOptionsOf(options, *kinds, shard));
  if (!options.replayPlan.empty()) return replayOnePlan(explorer, options, out, err);

  const auto wallStart = std::chrono::steady_clock::now();
  auto plans = explorer.plans();
  if (!plans) {
    const Status& s = plans.error();
    err << "fakekube crashtest: " << s.message << "\n";
    return s.code == 504 || s.code == 500 ? 1 : 2;
  }
  ExploreReport header;
  header.scenario = explorer.scenario().name;
  header.seed = options.seed;
  header.referenceWrites = explorer.trace().writes.size();
  header.referenceNotifications = explorer.trace().notifications.size();
  out << header.header() << "\n";
  out.flush();
  if (!options.replayDir.empty()) std::filesystem::create_directories(options.replayDir);

  ProgressBar bar(!options.quiet && options.err == nullptr && isatty(STDERR_FILENO) != 0);
  const std::size_t mine = (plans->size() + shard.second - 1 - shard.first) / shard.second;
  std::size_t done = 0;
  std::size_t violations = 0;
  const int jobs = options.jobs > 0
                       ? options.jobs
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  auto report = explorer.run(jobs, [&](const PlanRow& row) {
    bar.clear();
    out << ExploreReport::rowText(row);
    out.flush();
    ++done;
    if (!row.violations.empty()) {
      ++violations;
      if (!options.replayDir.empty()) writeReplayFile(explorer, options, row, err);
    }
    bar.update(done, std::max(done, mine), violations);
  });
  bar.clear();
  if (!report) return badExploreInput(err, report.error().message);
  out << report->summary() << "\n";
  out.flush();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
  err << fmt::format("fakekube crashtest: {} runs in {:.2f} s of wall time ({:.1f} runs/s)\n",
                     explorer.runs(), wall,
                     wall > 0 ? static_cast<double>(explorer.runs()) / wall : 0.0);
  if (!options.report.empty()) {
    if (auto written = writeFile(options.report, report->toJson().dump(1) + "\n"); !written) {
      return badExploreInput(err, written.error().message);
    }
  }
  if (!options.trace.empty() || !options.timeline.empty()) {
    const Plan drawn = firstFailingPlan(*report);
    explorer.runPlan(drawn, traceWriter(options, drawn, err));
  }
  return report->ok() ? 0 : 1;
}

int runMerge(const CrashtestOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<ExploreReport> shards;
  for (const auto& path : options.merge) {
    auto json = readJsonFile(path);
    if (!json) return badExploreInput(err, "--merge: " + json.error().message);
    auto report = ExploreReport::fromJson(*json);
    if (!report)
      return badExploreInput(err, fmt::format("--merge: {}: {}", path, report.error().message));
    shards.push_back(std::move(*report));
  }
  auto merged = ExploreReport::merge(shards);
  if (!merged) return badExploreInput(err, "--merge: " + merged.error().message);
  out << merged->str() << "\n";
  out.flush();
  if (!options.report.empty()) {
    if (auto written = writeFile(options.report, merged->toJson().dump(1) + "\n"); !written) {
      return badExploreInput(err, written.error().message);
    }
  }
  return merged->ok() ? 0 : 1;
}

int runReplay(const CrashtestOptions& options, std::ostream& out, std::ostream& err) {
  auto file = readJsonFile(options.replay);
  if (!file) return badExploreInput(err, "--replay: " + file.error().message);
  if (!file->is_object() || !file->contains("plan") || !file->contains("crashtest")) {
    return badExploreInput(
        err, fmt::format("--replay: {}: expected a replay file (with \"plan\" and \"crashtest\")",
                         options.replay));
  }
  CrashtestOptions replayed = options;
  replayed.replay.clear();
  replayed.explore.clear();
  replayed.shard.clear();
  replayed.report.clear();
  try {
    const Json& line = file->at("crashtest");
    replayed.files = line.at("files").get<std::vector<std::string>>();
    replayed.until = line.at("until").get<std::vector<std::string>>();
    replayed.timeout = line.at("timeout").get<std::string>();
    replayed.nodes = line.at("nodes").get<int>();
    replayed.teardown = line.at("teardown").get<bool>();
    replayed.compare = line.at("compare").get<std::vector<std::string>>();
    replayed.seed = file->at("seed").get<std::uint64_t>();
  } catch (const nlohmann::json::exception& e) {
    return badExploreInput(err, fmt::format("--replay: {}: {}", options.replay, e.what()));
  }
  replayed.replayPlan = file->at("plan").dump();
  return runCrashtest(replayed);
}

}  // namespace fakekube::cli
