// Part of the public_headers test (cmake/PublicHeadersTest.cmake): a program that opens an API
// server and reads from it through the public headers alone, without <nlohmann/json.hpp>.
// Every header names Json (api/json.h includes only json_fwd.hpp); only code that builds or
// reads the contents of a document needs the full header. It is compiled, not run.
#include <memory>

#include "fakekube/apiserver/api_server.h"
#include "fakekube/client/in_process_client.h"
#include "fakekube/sim/sim_executor.h"

namespace {

[[maybe_unused]] bool openAndRead() {
  fakekube::SimExecutor executor;
  auto server = fakekube::ApiServer::open(executor.clock(), {.seed = 1});
  if (!server) return false;
  const fakekube::GroupVersionResource configMaps{"", "v1", "configmaps"};
  auto list = (*server)->list(configMaps, "default");
  auto missing = (*server)->get(configMaps, "default", "absent");
  auto watch = (*server)->watch(configMaps, "default", {.resourceVersion = "0"});
  fakekube::InProcessClient client(**server);
  auto shared = client.listShared(configMaps, "default");
  executor.advance(std::chrono::seconds(1));
  return list && !missing && watch && shared && list->items.size() == shared->items.size();
}

}  // namespace
