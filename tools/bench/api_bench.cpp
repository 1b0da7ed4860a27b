// API server verbs against the raw SQLite work they stand on.
//
// BM_SqliteBaselineCreate is what any SQLite-backed store must do per create: one transaction
// with an upsert of the object row and an insert of the event row, binding a pre-serialised
// 1.5 KiB Pod. BM_ApiCreate does a full API create of the same Pod (type checks, validation,
// namespace check, uid/timestamps, defaults, serialisation, the same two rows, the watch hook).
// The target is ApiCreate >= 50% of the baseline's rate, in both modes.
#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/sim/sim_executor.h"
#include "tools/bench/bench_util.h"

namespace fakekube::bench {
namespace {

enum class Mode { Memory, Wal };

const GroupVersionResource kPods{"", "v1", "pods"};

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

void BM_ApiCreate(benchmark::State& state, Mode mode) {
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

void BM_SqliteBaselineCreate(benchmark::State& state, Mode mode) {
  std::unique_ptr<TempDir> dir;
  std::string path = ":memory:";
  if (mode == Mode::Wal) {
    dir = std::make_unique<TempDir>();
    path = dir->path() + "/baseline.db";
  }
  sqlite3* db = nullptr;
  check(sqlite3_open(path.c_str(), &db), db);
  const char* pragmas = mode == Mode::Wal ? "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                                          : "PRAGMA journal_mode=MEMORY;";
  check(sqlite3_exec(db, pragmas, nullptr, nullptr, nullptr), db);
  check(
      sqlite3_exec(db,
                   "CREATE TABLE objects(key TEXT PRIMARY KEY, rv INTEGER NOT NULL, data TEXT NOT "
                   "NULL);"
                   "CREATE TABLE events(rv INTEGER PRIMARY KEY, type INTEGER NOT NULL, key TEXT "
                   "NOT NULL, data TEXT NOT NULL);",
                   nullptr, nullptr, nullptr),
      db);
  sqlite3_stmt *begin, *commit, *upsert, *event;
  check(sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, nullptr), db);
  check(sqlite3_prepare_v2(db, "COMMIT", -1, &commit, nullptr), db);
  check(sqlite3_prepare_v2(db,
                           "INSERT INTO objects(key, rv, data) VALUES(?1, ?2, ?3) ON CONFLICT(key) "
                           "DO UPDATE SET rv = excluded.rv, data = excluded.data",
                           -1, &upsert, nullptr),
        db);
  check(sqlite3_prepare_v2(db, "INSERT INTO events(rv, type, key, data) VALUES(?1, 1, ?2, ?3)", -1,
                           &event, nullptr),
        db);
  // The same document the API benchmark stores, serialised once up front.
  Json pod = samplePod("pod-template");
  meta::metadata(pod)["uid"] = "6b1f7c1e-2d3a-4c5b-9e8f-0a1b2c3d4e5f";
  meta::metadata(pod)["creationTimestamp"] = "2024-01-01T00:00:00Z";
  meta::metadata(pod)["resourceVersion"] = "1";
  const std::string text = pod.dump();
  state.counters["bytes"] = static_cast<double>(text.size());

  std::int64_t rv = 0;
  for (auto _ : state) {
    ++rv;
    std::string key = "/pods/default/pod-" + std::to_string(rv);
    check(sqlite3_step(begin), db);
    sqlite3_reset(begin);
    sqlite3_bind_text(upsert, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
    sqlite3_bind_int64(upsert, 2, rv);
    sqlite3_bind_text(upsert, 3, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
    check(sqlite3_step(upsert), db);
    sqlite3_reset(upsert);
    sqlite3_bind_int64(event, 1, rv);
    sqlite3_bind_text(event, 2, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
    sqlite3_bind_text(event, 3, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
    check(sqlite3_step(event), db);
    sqlite3_reset(event);
    check(sqlite3_step(commit), db);
    sqlite3_reset(commit);
  }
  state.SetItemsProcessed(state.iterations());
  for (auto* s : {begin, commit, upsert, event}) sqlite3_finalize(s);
  sqlite3_close(db);
}
BENCHMARK_CAPTURE(BM_SqliteBaselineCreate, memory, Mode::Memory)->Iterations(kCreateIterations);
BENCHMARK_CAPTURE(BM_SqliteBaselineCreate, wal, Mode::Wal)->Iterations(kCreateIterations);

}  // namespace
}  // namespace fakekube::bench

BENCHMARK_MAIN();
