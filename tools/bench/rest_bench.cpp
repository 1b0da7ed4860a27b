// REST creates over loopback against etcd puts of the same payload.
//
// BM_RestCreate POSTs the 1.5 KiB Pod of bench_util.h, with a fresh name each time, to
// /api/v1/namespaces/default/pods of an HttpServer in this process, over an ApiServer on the real
// clock, as `fakekube serve` runs them. Each client is a thread with one keep-alive connection of
// its own (an httplib::Client), sending its requests back to back: what kubectl, client-go or an
// operator does. The server's store is one of:
//   memory     the in-memory store (`fakekube serve` without --db);
//   wal        a SQLite file in WAL mode with synchronous=NORMAL (`serve --db FILE`): a commit
//              survives the process dying; the file is fsynced at checkpoints, not per commit;
//   wal_fsync  the same with synchronous=FULL: one fsync per commit, so a commit also survives
//              power loss, the guarantee etcd gives by default.
// BM_RestClientCreate sends the same creates through RestClient (one per client thread), so the
// client's own JSON encoding and decoding are in the figure, as they are for a C++ controller.
//
// BM_EtcdPut puts the same JSON bytes as the value of /registry/pods/default/<name>, where the
// kube-apiserver keeps a Pod, through etcd's JSON gateway (grpc-gateway: POST /v3/kv/put, key and
// value in base64), from the same number of client threads, each with one keep-alive connection.
// This is the storage write under every create of a real API server, without the API server
// above it. tools/bench-etcd starts two etcd 3.4 servers on loopback and names them here:
//   disk   (FAKEKUBE_BENCH_ETCD)        etcd's defaults, data on disk: etcd fsyncs its WAL once
//                                       for every batch of raft entries it commits, so concurrent
//                                       puts share an fsync and a lone client pays one per put;
//   tmpfs  (FAKEKUBE_BENCH_ETCD_TMPFS)  the same etcd with its data directory on tmpfs, where an
//                                       fsync costs nothing (etcd 3.4 has no --unsafe-no-fsync).
// Without the variable the benchmark is skipped with a message saying so.
//
// The target: BM_RestCreate at least 3x BM_EtcdPut/disk/clients:1.
//
// Every figure is requests answered per second of wall-clock time (items_per_second), over all
// clients (the CPU column is the benchmark's own thread, which only waits). The client threads
// run in this process, beside the fakekube server; etcd runs in a process of its own; all of them
// share the machine's cores.
#include <benchmark/benchmark.h>
#include <httplib.h>

#include <atomic>
#include <barrier>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "fakekube/api/internal/base64.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/client/kubeconfig.h"
#include "fakekube/client/rest_client.h"
#include "fakekube/http/http_server.h"
#include "fakekube/sim/thread_pool_executor.h"
#include "tools/bench/bench_util.h"

namespace fakekube::bench {
namespace {

enum class Mode { Memory, Wal, WalFsync };

constexpr const char* kPodsPath = "/api/v1/namespaces/default/pods";

// Requests each client sends per benchmark iteration: enough that the two barriers around a
// batch cost well under 1% of it.
constexpr int kRequestsPerClient = 64;

// Names unique in the process, so etcd, which outlives each run, is always given new keys too.
std::atomic<std::int64_t> nextName{0};
std::string uniqueName() { return "pod-" + std::to_string(nextName.fetch_add(1)); }

// The sample Pod's JSON text, with any name spliced in without building a document.
class PodText {
 public:
  PodText() : text_(samplePod(std::string(kPlaceholder)).dump()), at_(text_.find(kPlaceholder)) {
    if (at_ == std::string::npos) throw std::logic_error("the placeholder name is not in the Pod");
  }
  std::string withName(std::string_view name) const {
    std::string text;
    text.reserve(text_.size() + name.size());
    text.append(text_, 0, at_).append(name).append(text_, at_ + kPlaceholder.size());
    return text;
  }

 private:
  static constexpr std::string_view kPlaceholder = "placeholder-name";
  std::string text_;
  std::size_t at_;
};

// One request of one client: "" when it was answered as expected, else what went wrong.
using SendFn = std::function<std::string(int client)>;

// Runs the benchmark loop over `clients` threads that live for the whole run: each iteration,
// every client sends kRequestsPerClient requests back to back (`send`), and the iteration ends
// when the last of them is answered. The first failure ends the run with its message.
void driveClients(benchmark::State& state, int clients, const SendFn& send) {
  // Before the measured loop: one request per client, so connections are open and a server
  // that cannot answer is reported at once.
  for (int client = 0; client < clients; ++client) {
    if (std::string error = send(client); !error.empty()) {
      state.SkipWithError(error.c_str());
      return;
    }
  }
  std::barrier start(clients + 1);
  std::barrier done(clients + 1);
  std::atomic<bool> stopping{false};
  std::atomic<bool> failed{false};
  std::mutex errorMu;
  std::string firstError;
  std::vector<std::thread> threads;
  for (int client = 0; client < clients; ++client) {
    threads.emplace_back([&, client] {
      while (true) {
        start.arrive_and_wait();
        if (stopping.load()) return;
        for (int i = 0; i < kRequestsPerClient && !failed.load(); ++i) {
          if (std::string error = send(client); !error.empty()) {
            std::lock_guard lock(errorMu);
            if (!failed.exchange(true)) firstError = std::move(error);
          }
        }
        done.arrive_and_wait();
      }
    });
  }
  for (auto _ : state) {
    start.arrive_and_wait();
    done.arrive_and_wait();
    if (failed.load()) {
      state.SkipWithError(firstError.c_str());
      break;
    }
  }
  stopping.store(true);
  start.arrive_and_wait();
  for (auto& thread : threads) thread.join();
  state.SetItemsProcessed(state.iterations() * clients * kRequestsPerClient);
}

std::string describe(std::string_view what, const httplib::Result& result, int expected) {
  if (!result) return std::string(what) + " failed: " + httplib::to_string(result.error());
  if (result->status == expected) return "";
  return std::string(what) + " answered " + std::to_string(result->status) + ": " +
         result->body.substr(0, 300);
}

// A connection of its own for each client; keep-alive, as every Kubernetes client does.
std::vector<std::unique_ptr<httplib::Client>> connect(const std::string& url, int clients) {
  std::vector<std::unique_ptr<httplib::Client>> connections;
  for (int i = 0; i < clients; ++i) {
    auto client = std::make_unique<httplib::Client>(url);
    client->set_keep_alive(true);
    client->set_tcp_nodelay(true);  // as Go clients do; else Nagle holds each body back ~40 ms
    client->set_read_timeout(30, 0);
    client->set_write_timeout(30, 0);
    connections.push_back(std::move(client));
  }
  return connections;
}

// fakekube serve, in process: the API server on real threads and the real clock, and its HTTP
// facade on a free loopback port with `serve`'s options.
class RestServer {
 public:
  explicit RestServer(Mode mode) : executor_(1) {
    ApiServerOptions options;
    options.executor = &executor_;
    if (mode != Mode::Memory) {
      dir_ = std::make_unique<TempDir>();
      options.store.path = dir_->path() + "/fakekube.db";
      options.store.synchronousFull = mode == Mode::WalFsync;
    }
    auto opened = ApiServer::open(executor_.clock(), options);
    if (!opened) throw std::runtime_error(opened.error().message);
    api_ = std::move(*opened);
    http_ = std::make_unique<HttpServer>(*api_);
    if (auto started = http_->start(); !started) {
      throw std::runtime_error(started.error().message);
    }
  }
  // The clients must be gone first: stop() waits for an open keep-alive connection to idle out.
  ~RestServer() {
    http_->stop();
    executor_.shutdown();
  }

  std::string url() const { return http_->url(); }

 private:
  ThreadPoolExecutor executor_;
  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<HttpServer> http_;
};

void BM_RestCreate(benchmark::State& state, Mode mode) {
  const int clients = static_cast<int>(state.range(0));
  RestServer server(mode);
  const PodText pod;
  auto connections = connect(server.url(), clients);
  driveClients(state, clients, [&](int client) {
    auto result =
        connections[client]->Post(kPodsPath, pod.withName(uniqueName()), "application/json");
    return describe("POST pods", result, 201);
  });
}

void BM_RestClientCreate(benchmark::State& state, Mode mode) {
  const int clients = static_cast<int>(state.range(0));
  RestServer server(mode);
  const Json pod = samplePod("template");
  std::vector<std::unique_ptr<RestClient>> restClients;
  for (int i = 0; i < clients; ++i) {
    auto created = RestClient::create(Kubeconfig{.server = server.url()});
    if (!created) {
      state.SkipWithError(created.error().message.c_str());
      return;
    }
    restClients.push_back(std::move(*created));
  }
  driveClients(state, clients, [&](int client) -> std::string {
    Json object = pod;
    meta::setName(object, uniqueName());
    auto created = restClients[client]->create(kPods, std::move(object));
    return created ? "" : "create: " + created.error().message;
  });
}

void BM_EtcdPut(benchmark::State& state, const char* endpointVariable) {
  const int clients = static_cast<int>(state.range(0));
  const char* endpoint = std::getenv(endpointVariable);
  if (endpoint == nullptr || *endpoint == '\0') {
    state.SkipWithError((std::string("etcd is not running: ") + endpointVariable +
                         " is not set (tools/bench-etcd starts etcd and sets it)")
                            .c_str());
    return;
  }
  const PodText pod;
  auto connections = connect(endpoint, clients);
  driveClients(state, clients, [&](int client) {
    const std::string name = uniqueName();
    std::string body = R"({"key":")" + base64Encode("/registry/pods/default/" + name) +
                       R"(","value":")" + base64Encode(pod.withName(name)) + R"("})";
    auto result = connections[client]->Post("/v3/kv/put", body, "application/json");
    return describe("etcd put", result, 200);
  });
}

void clientCounts(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgName("clients")->Arg(1)->Arg(16)->UseRealTime();
}

BENCHMARK_CAPTURE(BM_RestCreate, memory, Mode::Memory)->Apply(clientCounts);
BENCHMARK_CAPTURE(BM_RestCreate, wal, Mode::Wal)->Apply(clientCounts);
BENCHMARK_CAPTURE(BM_RestCreate, wal_fsync, Mode::WalFsync)->Apply(clientCounts);
BENCHMARK_CAPTURE(BM_RestClientCreate, memory, Mode::Memory)->Apply(clientCounts);
BENCHMARK_CAPTURE(BM_EtcdPut, disk, "FAKEKUBE_BENCH_ETCD")->Apply(clientCounts);
BENCHMARK_CAPTURE(BM_EtcdPut, tmpfs, "FAKEKUBE_BENCH_ETCD_TMPFS")->Apply(clientCounts);

}  // namespace
}  // namespace fakekube::bench
