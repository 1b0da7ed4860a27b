#include "controllers/ray/sim/ray_serve.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"

namespace fakekube::ray {

namespace {

// An application's config (null until it is deployed).
const Json& serveAppConfigOf(const std::shared_ptr<const Json>& config) {
  static const Json kNone;
  return config != nullptr ? *config : kNone;
}

HttpResponse answer(int status, std::string body, std::string contentType = "text/plain") {
  HttpResponse response;
  response.status = status;
  response.headers["Content-Type"] = std::move(contentType);
  response.body = std::move(body);
  return response;
}

std::string stringOf(const Json& j, std::string_view key, std::string otherwise = "") {
  const Json* v = jsonFind(j, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : otherwise;
}

// The deployment names of an application's config: those it lists, else the last part of its
// import path (what Serve would find there).
std::vector<std::string> deploymentNames(const Json& config) {
  std::vector<std::string> names;
  for (const Json& d : jsonArrayAt(config, "deployments")) {
    const std::string name = stringOf(d, "name");
    if (!name.empty()) names.push_back(name);
  }
  if (names.empty()) {
    std::string path = stringOf(config, "import_path");
    if (auto at = path.find_last_of(".:"); at != std::string::npos) path = path.substr(at + 1);
    names.push_back(path.empty() ? "default" : path);
  }
  return names;
}

Duration secondsOf(const Json& j, std::string_view key, Duration otherwise) {
  const Json* v = jsonFind(j, key);
  if (v == nullptr || !v->is_number()) return otherwise;
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(v->get<double>()));
}

// What a Serve proxy answers for `path` given the RUNNING applications' route prefixes (prefix ->
// application): the longest matching prefix's application, else Ray's 404.
HttpResponse routeAnswer(const std::map<std::string, std::string>& routes, const std::string& path,
                         const std::string& podName) {
  const std::string* best = nullptr;
  std::size_t bestLength = 0;
  for (const auto& [prefix, app] : routes) {
    if (!path.starts_with(prefix) || (best != nullptr && prefix.size() <= bestLength)) continue;
    best = &app;
    bestLength = prefix.size();
  }
  if (best == nullptr) {
    return answer(404, fmt::format("Path '{}' not found. Ping http://.../-/routes for available "
                                   "routes.",
                                   path));
  }
  return answer(200, fmt::format("{}: hello from {}", *best, podName));
}

std::string pathOf(const HttpRequest& request) {
  std::string path = request.path;
  if (auto q = path.find('?'); q != std::string::npos) path.resize(q);
  return path;
}

}  // namespace

int servePort(const Json& container) {
  for (const Json& port : jsonArrayAt(container, "ports")) {
    if (stringOf(port, "name") == "serve" && jsonAt(port, {"containerPort"}).is_number_integer()) {
      return jsonAt(port, {"containerPort"}).get<int>();
    }
  }
  return 8000;
}

RayServe::RayServe(RayServeOptions options, std::shared_ptr<ProcessContext> context,
                   const Json& podAnnotations)
    : options_(std::move(options)), context_(std::move(context)) {
  const Json* text = jsonFind(podAnnotations, kRayServeSimulationAnnotation);
  if (text == nullptr || !text->is_string()) return;
  const Json parsed = Json::parse(text->get<std::string>(), nullptr, false);
  if (!parsed.is_object()) return;
  for (const auto& [name, entry] : parsed.items()) {
    ServeApplicationBehavior behavior = options_.defaults;
    behavior.startDelay = secondsOf(entry, "startSeconds", behavior.startDelay);
    behavior.deployDelay = secondsOf(entry, "deploySeconds", behavior.deployDelay);
    behavior.unhealthyAfter = secondsOf(entry, "unhealthyAfterSeconds", behavior.unhealthyAfter);
    behavior.finalStatus = stringOf(entry, "status", behavior.finalStatus);
    behavior.message = stringOf(entry, "message", behavior.message);
    options_.applications[name] = std::move(behavior);
  }
}

void RayServe::startProxy() {
  {
    std::lock_guard lock(mu_);
    if (proxyStarted_) return;
    proxyStarted_ = true;
  }
  // The proxy holds Serve weakly: the listener goes with the process, Serve with the head.
  std::weak_ptr<RayServe> weak = weak_from_this();
  (void)context_->listen(servePort(context_->container()), [weak](const HttpRequest& request) {
    if (auto self = weak.lock()) return self->proxy(request);
    return answer(503, "This node is being drained.");
  });
}

const ServeApplicationBehavior& RayServe::behaviorFor(const std::string& name) const {
  auto it = options_.applications.find(name);
  return it != options_.applications.end() ? it->second : options_.defaults;
}

HttpResponse RayServe::dashboard(const HttpRequest& request) {
  if (request.method == "GET") {
    std::lock_guard lock(mu_);
    return answer(200, details().dump(), "application/json");
  }
  if (request.method == "PUT") return applyConfig(request.body);
  return answer(405, "405: Method Not Allowed");
}

HttpResponse RayServe::applyConfig(const std::string& body) {
  const Json config = Json::parse(body, nullptr, false);
  if (!config.is_object() || !jsonFind(config, "applications") ||
      !config["applications"].is_array()) {
    return answer(400,
                  "Request body is not a valid ServeDeploySchema: applications: field "
                  "required");
  }
  std::map<std::string, Json> wanted;
  for (const Json& app : config["applications"]) {
    if (!app.is_object() || stringOf(app, "import_path").empty()) {
      return answer(400,
                    "Request body is not a valid ServeDeploySchema: import_path: field "
                    "required");
    }
    const std::string name = stringOf(app, "name", "default");
    if (wanted.contains(name)) {
      return answer(400, fmt::format("Found multiple configs for application {}.", name));
    }
    wanted[name] = app;
  }
  std::vector<std::pair<std::string, std::uint64_t>> started;
  {
    std::lock_guard lock(mu_);
    const Json* targetCapacity = jsonFind(config, "target_capacity");
    targetCapacity_ =
        targetCapacity != nullptr ? std::make_shared<const Json>(*targetCapacity) : nullptr;
    const std::int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(context_->now().time_since_epoch())
            .count();
    for (auto& [name, app] : applications_) {
      if (wanted.contains(name) || app.deleting) continue;
      app.deleting = true;
      app.status = "DELETING";
      app.message = "";
      app.generation = ++nextGeneration_;
      started.emplace_back(name, app.generation);
    }
    for (auto& [name, appConfig] : wanted) {
      auto it = applications_.find(name);
      if (it != applications_.end() && !it->second.deleting && it->second.config != nullptr &&
          sameJson(*it->second.config, appConfig)) {
        continue;  // unchanged: Serve leaves it as it runs
      }
      Application& app = applications_[name];
      app = Application{};
      app.config = std::make_shared<const Json>(appConfig);
      app.generation = ++nextGeneration_;
      app.lastDeployed = now;
      started.emplace_back(name, app.generation);
    }
  }
  for (const auto& [name, generation] : started) schedule(name, generation);
  startProxy();
  return answer(200, "");
}

void RayServe::schedule(const std::string& name, std::uint64_t generation) {
  std::weak_ptr<RayServe> weak = weak_from_this();
  std::string from;
  Duration delay{0};
  {
    std::lock_guard lock(mu_);
    auto it = applications_.find(name);
    if (it == applications_.end() || it->second.generation != generation) return;
    const ServeApplicationBehavior& behavior = behaviorFor(name);
    from = it->second.status;
    if (from == "DELETING") {
      delay = std::chrono::seconds(1);
    } else if (from == "NOT_STARTED") {
      delay = behavior.startDelay;
    } else if (from == "DEPLOYING") {
      delay = behavior.deployDelay;
    } else if (from == "RUNNING" && behavior.unhealthyAfter > Duration{0}) {
      delay = behavior.unhealthyAfter;
    } else {
      return;
    }
  }
  context_->after(delay, [weak, name, generation, from] {
    if (auto self = weak.lock()) self->advance(name, generation, from);
  });
}

void RayServe::advance(const std::string& name, std::uint64_t generation, std::string_view from) {
  {
    std::lock_guard lock(mu_);
    auto it = applications_.find(name);
    if (it == applications_.end() || it->second.generation != generation ||
        it->second.status != from) {
      return;
    }
    Application& app = it->second;
    const ServeApplicationBehavior& behavior = behaviorFor(name);
    if (from == "DELETING") {
      applications_.erase(it);
      return;
    }
    if (from == "NOT_STARTED") {
      app.status = "DEPLOYING";
      app.message = "";
    } else if (from == "DEPLOYING" && behavior.finalStatus == "DEPLOY_FAILED") {
      app.status = "DEPLOY_FAILED";
      app.deploymentStatus = "UNHEALTHY";
      app.message = !behavior.message.empty()
                        ? behavior.message
                        : fmt::format(
                              "Deploying application {} failed: the application's "
                              "import path raised an exception.",
                              name);
    } else if (from == "DEPLOYING") {
      app.status = "RUNNING";
      app.deploymentStatus = "HEALTHY";
      app.message = "";
    } else if (from == "RUNNING") {
      app.status = "UNHEALTHY";
      app.deploymentStatus = "UNHEALTHY";
      app.message =
          !behavior.message.empty() ? behavior.message : "The deployments [] are UNHEALTHY.";
    }
  }
  schedule(name, generation);
}

bool RayServe::proxiesHealthy() const {
  std::lock_guard lock(mu_);
  for (const auto& [name, app] : applications_) {
    if (app.status == "RUNNING") return true;
  }
  return false;
}

Json RayServe::details() const {
  Json applications = Json::object();
  for (const auto& [name, app] : applications_) {
    Json deployments = Json::object();
    for (const std::string& deployment : deploymentNames(serveAppConfigOf(app.config))) {
      const bool healthy = app.deploymentStatus == "HEALTHY";
      deployments[deployment] = {
          {"name", deployment},
          {"status", app.deploymentStatus},
          {"status_trigger", healthy ? "CONFIG_UPDATE_COMPLETED" : "CONFIG_UPDATE_STARTED"},
          {"message", ""},
          {"replicas", Json::array()}};
    }
    applications[name] = {
        {"name", name},
        {"route_prefix", stringOf(serveAppConfigOf(app.config), "route_prefix", "/")},
        {"docs_path", Json()},
        {"status", app.status},
        {"message", app.message},
        {"last_deployed_time_s", app.lastDeployed},
        {"deployed_app_config", serveAppConfigOf(app.config)},
        {"source", "declarative"},
        {"deployments", std::move(deployments)}};
  }
  return {{"controller_info", {{"node_id", context_->podIp()}}},
          {"proxy_location", "EveryNode"},
          {"deploy_mode", "MULTI_APP"},
          {"target_capacity", targetCapacity_ != nullptr ? *targetCapacity_ : Json()},
          {"applications", std::move(applications)}};
}

HttpResponse RayServe::proxy(const HttpRequest& request) {
  const std::string path = pathOf(request);
  std::map<std::string, std::string> routes;
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, app] : applications_) {
      if (app.status == "RUNNING")
        routes[stringOf(serveAppConfigOf(app.config), "route_prefix", "/")] = name;
    }
  }
  if (path == "/-/healthz") {
    return !routes.empty() ? answer(200, "success") : answer(503, "This node is being drained.");
  }
  if (path == "/-/routes") return answer(200, Json(routes).dump(), "application/json");
  return routeAnswer(routes, path, stringOf(jsonObjectAt(context_->pod(), "metadata"), "name"));
}

void startWorkerServeProxy(const std::shared_ptr<ProcessContext>& context,
                           std::string dashboardHost, int dashboardPort, int port,
                           Duration period) {
  struct Proxy {
    std::mutex mu;
    std::map<std::string, std::string> routes;  // of the RUNNING applications
  };
  auto state = std::make_shared<Proxy>();
  const std::string podName = stringOf(jsonObjectAt(context->pod(), "metadata"), "name");
  context->setReady(false);
  (void)context->listen(port, [state, podName](const HttpRequest& request) {
    const std::string path = pathOf(request);
    std::lock_guard lock(state->mu);
    if (path == "/-/healthz") {
      return !state->routes.empty() ? answer(200, "success")
                                    : answer(503, "This node is being drained.");
    }
    if (path == "/-/routes") return answer(200, Json(state->routes).dump(), "application/json");
    return routeAnswer(state->routes, path, podName);
  });
  std::weak_ptr<ProcessContext> weak = context;
  auto check = std::make_shared<std::function<void()>>();
  *check = [weak, state, dashboardHost, dashboardPort, period,
            next = std::weak_ptr<std::function<void()>>(check)] {
    auto c = weak.lock();
    if (!c) return;
    std::map<std::string, std::string> routes;
    auto reply = c->call(dashboardHost, dashboardPort,
                         HttpRequest{.path = "/api/serve/applications/?api_type=declarative"});
    if (reply && reply->status == 200) {
      const Json details = Json::parse(reply->body, nullptr, false);
      for (const auto& [name, app] : jsonObjectAt(details, "applications").items()) {
        if (stringOf(app, "status") == "RUNNING") routes[stringOf(app, "route_prefix", "/")] = name;
      }
    }
    const bool healthy = !routes.empty();
    {
      std::lock_guard lock(state->mu);
      state->routes = std::move(routes);
    }
    c->setReady(healthy);
    if (auto again = next.lock()) c->after(period, [again] { (*again)(); });
  };
  // The check holds itself through the timers it schedules; the first runs at once.
  context->after(Duration{0}, [check] { (*check)(); });
}

}  // namespace fakekube::ray
