// LIST over HTTP: one unpaginated LIST of N ConfigMaps, as an informer's first list, or `kubectl
// get` asking for a Table.
//
// BM_RestList/N GETs /api/v1/namespaces/default/configmaps from an HttpServer in this process
// whose store holds N ConfigMaps of about 1.3 KiB each (a few short keys and one 1 KiB value),
// over one keep-alive loopback connection (an httplib::Client, which reads the whole body), and
// reports the body's bytes per second of wall-clock time. BM_RestListTable/N asks for the same
// list as a meta.k8s.io Table (kubectl get's Accept header), rows with their object's metadata.
// Each body is counted as it arrives and not kept (see get()). BM_RestListPages/N reads the same
// list in pages of 500 (limit and continue, as client-go's
// pager does) with a write between pages, so every page after the first is read at the revision
// its continue token pins, from the store's history.
//
// The targets: BM_RestList/100000 at least 50 MB/s, and its time per object (1 /
// items_per_second) within 1.5x of BM_RestList/1000's: the cost of a list is linear in its
// length. cpu_us_per_object is the CPU time of the whole process (server and client) per object
// listed: on a busy machine wall-clock time also counts waiting for a CPU, this does not. The
// N=100000 store takes a few seconds to fill; each N's server is filled once and kept for every
// repetition.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <httplib.h>
#include <sys/resource.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "fakekube/api/resources.h"
#include "fakekube/apiserver/api_server.h"
#include "fakekube/http/http_server.h"
#include "fakekube/sim/thread_pool_executor.h"

namespace fakekube::bench {
namespace {

constexpr const char* kConfigMapsPath = "/api/v1/namespaces/default/configmaps";
constexpr const char* kTableAccept =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s."
    "io,application/json";

Json sampleConfigMap(std::int64_t i) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata",
           {{"name", "config-" + std::to_string(i)},
            {"namespace", "default"},
            {"labels", {{"app", "bench"}, {"shard", std::to_string(i % 16)}}}}},
          {"data",
           {{"mode", "production"},
            {"replicas", std::to_string(i % 7)},
            {"payload", std::string(1024, static_cast<char>('a' + i % 26))}}}};
}

// An API server holding `count` ConfigMaps, served over HTTP on a free loopback port.
class ListServer {
 public:
  explicit ListServer(std::int64_t count) : executor_(1) {
    ApiServerOptions options;
    options.executor = &executor_;
    auto opened = ApiServer::open(executor_.clock(), options);
    if (!opened) throw std::runtime_error(opened.error().message);
    api_ = std::move(*opened);
    for (std::int64_t i = 0; i < count; ++i) {
      auto created = api_->create(kConfigMaps, "default", sampleConfigMap(i));
      if (!created) throw std::runtime_error(created.error().message);
    }
    http_ = std::make_unique<HttpServer>(*api_);
    if (auto started = http_->start(); !started) throw std::runtime_error(started.error().message);
    client_ = std::make_unique<httplib::Client>(http_->url());
    client_->set_keep_alive(true);
    client_->set_tcp_nodelay(true);
    client_->set_read_timeout(120, 0);
  }
  ~ListServer() {
    client_.reset();
    http_->stop();
    executor_.shutdown();
  }

  ApiServer& api() { return *api_; }
  httplib::Client& client() { return *client_; }

  // One server per size, filled once, for every benchmark and repetition of that size.
  static ListServer& of(std::int64_t count) {
    static std::map<std::int64_t, std::unique_ptr<ListServer>> servers;
    auto& server = servers[count];
    if (!server) server = std::make_unique<ListServer>(count);
    return *server;
  }

 private:
  ThreadPoolExecutor executor_;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<httplib::Client> client_;
};

// GETs `path`; the body's size, or 0 after reporting the failure.
std::size_t get(benchmark::State& state, httplib::Client& client, const std::string& path,
                const httplib::Headers& headers) {
  // Counted as it arrives, not kept: a client that decodes the stream as it reads it (as
  // client-go does) holds no copy of the whole body, and growing one would cost the benchmark's
  // own thread more than the server's work on a long list.
  std::size_t size = 0;
  char last = 0;
  auto result = client.Get(path, headers, [&](const char* data, std::size_t length) {
    size += length;
    if (length > 0) last = data[length - 1];
    return true;
  });
  if (!result || result->status != 200 || last != '}') {
    std::string error = result ? "LIST answered " + std::to_string(result->status)
                               : "LIST failed: " + httplib::to_string(result.error());
    state.SkipWithError(error.c_str());
    return 0;
  }
  return size;
}

// A continue token (base64) as a query value.
std::string queryEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '+' || c == '/' || c == '=') {
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out;
}

// CPU seconds of the whole process (server and client threads alike) so far.
double processCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void listOnce(benchmark::State& state, const httplib::Headers& headers) {
  const std::int64_t count = state.range(0);
  ListServer& server = ListServer::of(count);
  std::size_t bytes = 0;
  const double cpuBefore = processCpuSeconds();
  for (auto _ : state) {
    const std::size_t n = get(state, server.client(), kConfigMapsPath, headers);
    if (n == 0) return;
    bytes += n;
  }
  // The work a list costs, apart from waiting for a CPU: on a loaded machine wall-clock time
  // also counts the time the server's and client's threads wait to be scheduled.
  state.counters["cpu_us_per_object"] =
      (processCpuSeconds() - cpuBefore) * 1e6 / static_cast<double>(state.iterations() * count);
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
  state.SetItemsProcessed(state.iterations() * count);
}

void BM_RestList(benchmark::State& state) { listOnce(state, {}); }

void BM_RestListTable(benchmark::State& state) { listOnce(state, {{"Accept", kTableAccept}}); }

void BM_RestListPages(benchmark::State& state) {
  const std::int64_t count = state.range(0);
  ListServer& server = ListServer::of(count);
  std::size_t bytes = 0;
  static std::int64_t writes = 0;  // names unique across runs on the same server
  for (auto _ : state) {
    std::string continueToken;
    do {
      std::string path = std::string(kConfigMapsPath) + "?limit=500";
      if (!continueToken.empty()) path += "&continue=" + queryEscape(continueToken);
      auto result = server.client().Get(path);
      if (!result || result->status != 200) {
        state.SkipWithError("a page of the list failed");
        return;
      }
      bytes += result->body.size();
      continueToken = Json::parse(result->body)["metadata"].value("continue", "");
      // A write between pages: the next page is read at the pinned, now older, revision.
      state.PauseTiming();
      Json touched = sampleConfigMap(writes);
      touched["metadata"]["namespace"] = "kube-system";
      touched["metadata"]["name"] = "written-between-pages-" + std::to_string(writes++);
      if (!server.api().create(kConfigMaps, "kube-system", touched)) {
        state.SkipWithError("the write between pages failed");
        return;
      }
      state.ResumeTiming();
    } while (!continueToken.empty());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes));
  state.SetItemsProcessed(state.iterations() * count);
}

void sizes(benchmark::internal::Benchmark* benchmark) {
  benchmark->Arg(1000)->Arg(10000)->Arg(100000)->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_RestList)->Apply(sizes);
BENCHMARK(BM_RestListTable)->Apply(sizes);
BENCHMARK(BM_RestListPages)->Apply(sizes);

}  // namespace
}  // namespace fakekube::bench
