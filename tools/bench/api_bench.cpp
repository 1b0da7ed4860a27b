// API server verbs against the raw SQLite work they stand on.
//
// BM_SqliteBaselineCreate is what any SQLite-backed store must do per create: one transaction
// with an upsert of the object row and an insert of the event row, binding a pre-serialised
// 1.5 KiB Pod. BM_ApiCreate does a full API create of the same Pod (type checks, validation,
// namespace check, uid/timestamps, defaults, serialisation, the revision row, the watch hook).
// The target is ApiCreate >= 50% of the baseline's rate, in both modes.
//
// Both create benchmarks measure a process whose heap has already held what they store: each
// first does the same creates once, untimed, on a throwaway store, and the binary keeps freed
// memory (bench_main.cpp). Otherwise whichever of them runs first pays the kernel's first-touch
// page faults for memory the other then reuses, and the ratio measures the order they ran in.
// Run one of them alone (--benchmark_filter) to see it from a cold start.
#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/internal/builtin_pruning.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/bench/bench_util.h"

namespace fakekube::bench {
namespace {

enum class Mode { Memory, Wal };

// Creates are measured over a fixed count so that memory stays bounded and both modes and the
// baseline write the same number of rows.
constexpr int kCreateIterations = 30016;  // a multiple of the request batch

struct Server {
  SimExecutor executor;
  std::unique_ptr<TempDir> dir;
  std::unique_ptr<ApiServer> api;

  explicit Server(Mode mode) {
    ApiServerOptions options;
    options.seed = 1;
    if (mode == Mode::Wal) {
      dir = std::make_unique<TempDir>();
      options.store.path = dir->path() + "/fakekube.db";
    }
    auto opened = ApiServer::open(executor.clock(), options);
    if (!opened) throw std::runtime_error(opened.error().message);
    api = std::move(*opened);
  }
};

// Creates kCreateIterations pods on a throwaway server: BM_ApiCreate's work, untimed.
void warmUpApiCreate(Mode mode) {
  Server server(mode);
  const Json pod = samplePod("template");
  for (int i = 0; i < kCreateIterations; ++i) {
    Json request = pod;
    meta::setName(request, "pod-" + std::to_string(i));
    if (!server.api->create(kPods, "default", std::move(request))) {
      throw std::runtime_error("warm-up create failed");
    }
  }
}

void BM_ApiCreate(benchmark::State& state, Mode mode) {
  warmUpApiCreate(mode);
  Server server(mode);
  const Json pod = samplePod("template");
  // Requests are built outside the measured time, a small batch at a time, so they are as warm
  // in the cache as a request its caller has just built (pausing the timer every iteration costs
  // more than a create, and building them all up front leaves them cold).
  constexpr std::size_t kBatch = 64;
  std::vector<Json> batch;
  std::int64_t i = 0;
  for (auto _ : state) {
    if (i % kBatch == 0) {
      state.PauseTiming();
      batch.clear();
      for (std::size_t k = 0; k < kBatch; ++k) {
        batch.push_back(pod);
        meta::setName(batch.back(), "pod-" + std::to_string(i + static_cast<std::int64_t>(k)));
      }
      state.ResumeTiming();
    }
    auto created = server.api->create(kPods, "default", std::move(batch[i++ % kBatch]));
    if (!created) state.SkipWithError(created.error().message.c_str());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_ApiCreate, memory, Mode::Memory)->Iterations(kCreateIterations);
BENCHMARK_CAPTURE(BM_ApiCreate, wal, Mode::Wal)->Iterations(kCreateIterations);

// The pruning of unknown fields every write of a built-in object does
// (api/internal/builtin_pruning.h), alone, on the Pod BM_ApiCreate creates: its share of a create.
// The Pod has no unknown field, so each iteration is the walk beside the Pod's type, which is what
// a well-formed write costs.
void BM_PruneUnknownFields(benchmark::State& state) {
  Json pod = samplePod("template");
  for (auto _ : state) {
    auto dropped = pruneUnknownFields("v1", "Pod", pod);
    benchmark::DoNotOptimize(dropped);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PruneUnknownFields);

void BM_ApiUpdate(benchmark::State& state, Mode mode) {
  Server server(mode);
  auto current = server.api->create(kPods, "default", samplePod("updated"));
  Json object = **current;
  std::int64_t i = 0;
  for (auto _ : state) {
    meta::setAnnotation(object, "example.com/revision", std::to_string(i++));
    auto updated = server.api->update(kPods, "default", std::move(object));
    if (!updated) {
      state.SkipWithError(updated.error().message.c_str());
      break;
    }
    object = **updated;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_ApiUpdate, memory, Mode::Memory);

void BM_ApiGet(benchmark::State& state, Mode mode) {
  Server server(mode);
  for (int i = 0; i < 1000; ++i) {
    server.api->create(kPods, "default", samplePod("pod-" + std::to_string(i)));
  }
  int i = 0;
  for (auto _ : state) {
    auto pod = server.api->get(kPods, "default", "pod-" + std::to_string(i++ % 1000));
    benchmark::DoNotOptimize(pod);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_ApiGet, memory, Mode::Memory);

void BM_ApiList10k(benchmark::State& state, Mode mode) {
  Server server(mode);
  for (int i = 0; i < 10000; ++i) {
    server.api->create(kPods, "default", samplePod("pod-" + std::to_string(i)));
  }
  for (auto _ : state) {
    auto list = server.api->list(kPods, "default");
    benchmark::DoNotOptimize(list);
  }
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK_CAPTURE(BM_ApiList10k, memory, Mode::Memory)->Unit(benchmark::kMillisecond);

// --- the raw SQLite equivalent of a create ---

void check(int rc, sqlite3* db) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    throw std::runtime_error(sqlite3_errmsg(db));
  }
}

// A database of the two tables a plain SQLite store keeps, and its create: one transaction with
// an upsert of the object row and an insert of the event row.
class SqliteBaseline {
 public:
  explicit SqliteBaseline(Mode mode) {
    std::string path = ":memory:";
    if (mode == Mode::Wal) {
      dir_ = std::make_unique<TempDir>();
      path = dir_->path() + "/baseline.db";
    }
    check(sqlite3_open(path.c_str(), &db_), db_);
    const char* pragmas = mode == Mode::Wal ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                                            : "PRAGMA journal_mode=MEMORY;";
    check(sqlite3_exec(db_, pragmas, nullptr, nullptr, nullptr), db_);
    check(sqlite3_exec(db_,
                       "CREATE TABLE objects(key TEXT PRIMARY KEY, rv INTEGER NOT NULL, data TEXT "
                       "NOT NULL);"
                       "CREATE TABLE events(rv INTEGER PRIMARY KEY, type INTEGER NOT NULL, key "
                       "TEXT NOT NULL, data TEXT NOT NULL);",
                       nullptr, nullptr, nullptr),
          db_);
    check(sqlite3_prepare_v2(db_, "BEGIN IMMEDIATE", -1, &begin_, nullptr), db_);
    check(sqlite3_prepare_v2(db_, "COMMIT", -1, &commit_, nullptr), db_);
    check(sqlite3_prepare_v2(db_,
                             "INSERT INTO objects(key, rv, data) VALUES(?1, ?2, ?3) ON "
                             "CONFLICT(key) DO UPDATE SET rv = excluded.rv, data = excluded.data",
                             -1, &upsert_, nullptr),
          db_);
    check(sqlite3_prepare_v2(db_, "INSERT INTO events(rv, type, key, data) VALUES(?1, 1, ?2, ?3)",
                             -1, &event_, nullptr),
          db_);
  }
  ~SqliteBaseline() {
    for (auto* s : {begin_, commit_, upsert_, event_}) sqlite3_finalize(s);
    sqlite3_close(db_);
  }
  SqliteBaseline(const SqliteBaseline&) = delete;
  SqliteBaseline& operator=(const SqliteBaseline&) = delete;

  void create(std::int64_t rv, const std::string& key, const std::string& text) {
    check(sqlite3_step(begin_), db_);
    sqlite3_reset(begin_);
    sqlite3_bind_text(upsert_, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
    sqlite3_bind_int64(upsert_, 2, rv);
    sqlite3_bind_text(upsert_, 3, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
    check(sqlite3_step(upsert_), db_);
    sqlite3_reset(upsert_);
    sqlite3_bind_int64(event_, 1, rv);
    sqlite3_bind_text(event_, 2, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
    sqlite3_bind_text(event_, 3, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
    check(sqlite3_step(event_), db_);
    sqlite3_reset(event_);
    check(sqlite3_step(commit_), db_);
    sqlite3_reset(commit_);
  }

 private:
  std::unique_ptr<TempDir> dir_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt *begin_ = nullptr, *commit_ = nullptr, *upsert_ = nullptr, *event_ = nullptr;
};

void BM_SqliteBaselineCreate(benchmark::State& state, Mode mode) {
  // The same document the API benchmark stores, serialised once up front.
  Json pod = samplePod("pod-template");
  meta::metadata(pod)["uid"] = "6b1f7c1e-2d3a-4c5b-9e8f-0a1b2c3d4e5f";
  meta::metadata(pod)["creationTimestamp"] = "2024-01-01T00:00:00Z";
  meta::metadata(pod)["resourceVersion"] = "1";
  const std::string text = pod.dump();
  state.counters["bytes"] = static_cast<double>(text.size());
  {
    SqliteBaseline warmUp(mode);
    for (std::int64_t rv = 1; rv <= kCreateIterations; ++rv) {
      warmUp.create(rv, "/pods/default/pod-" + std::to_string(rv), text);
    }
  }

  SqliteBaseline baseline(mode);
  std::int64_t rv = 0;
  for (auto _ : state) {
    ++rv;
    std::string key = "/pods/default/pod-" + std::to_string(rv);
    baseline.create(rv, key, text);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_SqliteBaselineCreate, memory, Mode::Memory)->Iterations(kCreateIterations);
BENCHMARK_CAPTURE(BM_SqliteBaselineCreate, wal, Mode::Wal)->Iterations(kCreateIterations);

}  // namespace
}  // namespace fakekube::bench
