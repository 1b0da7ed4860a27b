#include "controllers/ray/sim/ray_head.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

#include "controllers/ray/constants.h"
#include "fakekube/api/json_lookup.h"

namespace fakekube::ray {

namespace {

constexpr std::string_view kPendingMessage =
    "Job has not started yet. It may be waiting for resources (CPUs, GPUs, memory, custom "
    "resources) to become available. It may be waiting for the runtime environment to be set up.";
constexpr std::string_view kRunningMessage = "Job is currently running.";
constexpr std::string_view kSucceededMessage = "Job finished successfully.";
constexpr std::string_view kStoppedMessage = "Job was intentionally stopped.";

bool isTerminal(std::string_view status) {
  return status == "SUCCEEDED" || status == "FAILED" || status == "STOPPED";
}

std::int64_t epochMillis(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

HttpResponse jsonAnswer(int status, const Json& body) {
  HttpResponse response;
  response.status = status;
  response.headers["Content-Type"] = "application/json";
  response.body = body.dump();
  return response;
}

HttpResponse textAnswer(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.headers["Content-Type"] = "text/plain; charset=utf-8";
  response.body = std::move(body);
  return response;
}

// The value of `--name=value` or `--name value` in a command line.
std::optional<int> intFlag(const std::string& commandLine, std::string_view name) {
  const std::string flag = "--" + std::string(name);
  std::size_t at = 0;
  while ((at = commandLine.find(flag, at)) != std::string::npos) {
    std::size_t i = at + flag.size();
    at = i;
    if (i < commandLine.size() && (commandLine[i] == '=' || commandLine[i] == ' ')) {
      ++i;
      std::size_t start = i;
      while (i < commandLine.size() && commandLine[i] >= '0' && commandLine[i] <= '9') ++i;
      if (i > start && i - start <= 5) return std::stoi(commandLine.substr(start, i - start));
    }
  }
  return std::nullopt;
}

struct Job {
  std::uint64_t serial = 0;  // tells a job from an earlier one under the same submission id
  std::string submissionId;
  std::string driverJobId;  // "" until RUNNING
  std::string status = "PENDING";
  std::string entrypoint;
  std::string message{kPendingMessage};
  std::string errorType;
  std::int64_t startTime = 0;
  std::int64_t endTime = 0;
  std::optional<int> exitCode;
  Json metadata = Json::object();
  Json runtimeEnv = Json::object();
  Json entrypointNumCpus;
  Json entrypointNumGpus;
  Json entrypointResources;
  std::vector<std::string> logs;
  std::shared_ptr<EntrypointRun> run;

  std::string logText() const {
    std::string text;
    for (const auto& line : logs) text += line + "\n";
    return text;
  }

  Json details() const {
    Json j = {{"type", "SUBMISSION"},
              {"job_id", driverJobId.empty() ? Json() : Json(driverJobId)},
              {"submission_id", submissionId},
              {"driver_info", Json()},
              {"status", status},
              {"entrypoint", entrypoint},
              {"message", message},
              {"error_type", errorType.empty() ? Json() : Json(errorType)},
              {"start_time", startTime},
              {"end_time", endTime == 0 ? Json() : Json(endTime)},
              {"metadata", metadata},
              {"runtime_env", runtimeEnv},
              {"driver_exit_code", exitCode ? Json(*exitCode) : Json()},
              {"entrypoint_num_cpus", entrypointNumCpus},
              {"entrypoint_num_gpus", entrypointNumGpus},
              {"entrypoint_resources", entrypointResources}};
    return j;
  }
};

// The head's state: shared by its listeners and its timers, gone with the process.
class HeadState : public std::enable_shared_from_this<HeadState> {
 public:
  HeadState(RayHeadOptions options, std::shared_ptr<ProcessContext> context)
      : options_(std::move(options)),
        context_(std::move(context)),
        serve_(std::make_shared<RayServe>(options_.serve, context_,
                                          jsonAt(context_->pod(), {"metadata", "annotations"}))) {}

  const std::shared_ptr<RayServe>& serve() const { return serve_; }

  void stop() {
    std::vector<std::shared_ptr<EntrypointRun>> runs;
    {
      std::lock_guard lock(mu_);
      stopped_ = true;
      for (auto& [id, job] : jobs_) {
        if (job.run) runs.push_back(std::move(job.run));
      }
    }
    for (auto& run : runs) run->cancel();
  }

  HttpResponse dashboard(const HttpRequest& request) {
    std::string path = request.path;
    if (auto q = path.find('?'); q != std::string::npos) path.resize(q);
    if (path == "/api/gcs_healthz") return textAnswer(200, "success");
    if (path == "/api/version") {
      return jsonAnswer(
          200,
          {{"version", "4"}, {"ray_version", options_.rayVersion}, {"ray_commit", "fakekube"}});
    }
    if (path == "/api/serve/applications/" || path == "/api/serve/applications") {
      return serve_->dashboard(request);
    }
    constexpr std::string_view jobs = "/api/jobs";
    if (!path.starts_with(jobs)) return textAnswer(404, "404: Not Found");
    std::string rest = path.substr(jobs.size());
    if (rest.empty() || rest == "/") {
      if (request.method == "GET") return list();
      if (request.method == "POST") return submit(request.body);
      return textAnswer(405, "405: Method Not Allowed");
    }
    rest.erase(0, 1);
    std::string id = rest;
    std::string action;
    if (auto slash = rest.find('/'); slash != std::string::npos) {
      id = rest.substr(0, slash);
      action = rest.substr(slash + 1);
    }
    if (action.empty() && request.method == "GET") return get(id);
    if (action.empty() && request.method == "DELETE") return remove(id);
    if (action == "logs" && request.method == "GET") return logs(id);
    if (action == "stop" && request.method == "POST") return stopJob(id);
    return textAnswer(405, "405: Method Not Allowed");
  }

 private:
  HttpResponse list() {
    std::lock_guard lock(mu_);
    Json items = Json::array();
    for (const auto& id : order_) items.push_back(jobs_.at(id).details());
    return jsonAnswer(200, items);
  }

  HttpResponse get(const std::string& id) {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return textAnswer(404, fmt::format("Job {} does not exist", id));
    return jsonAnswer(200, it->second.details());
  }

  HttpResponse logs(const std::string& id) {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return textAnswer(404, fmt::format("Job {} does not exist", id));
    return jsonAnswer(200, {{"logs", it->second.logText()}});
  }

  HttpResponse submit(const std::string& body) {
    Json request = Json::parse(body, nullptr, false);
    if (!request.is_object() || !request.contains("entrypoint") ||
        !request["entrypoint"].is_string()) {
      return textAnswer(400,
                        "Failed to parse request body as JobSubmitRequest: entrypoint: "
                        "field required");
    }
    std::uint64_t serial = 0;
    std::string id;
    {
      std::lock_guard lock(mu_);
      if (stopped_) return textAnswer(503, "the Ray head is shutting down");
      serial = ++nextSerial_;
      if (request.contains("submission_id") && request["submission_id"].is_string() &&
          !request["submission_id"].get<std::string>().empty()) {
        id = request["submission_id"].get<std::string>();
      } else {
        id = generatedSubmissionId(serial);
      }
      if (jobs_.contains(id)) {
        return textAnswer(500, fmt::format("Job with submission_id {} already exists. Please use "
                                           "a different submission_id.",
                                           id));
      }
      Job job;
      job.serial = serial;
      job.submissionId = id;
      job.entrypoint = request["entrypoint"].get<std::string>();
      job.startTime = epochMillis(context_->now());
      if (request.contains("metadata") && request["metadata"].is_object()) {
        job.metadata = request["metadata"];
      }
      if (request.contains("runtime_env") && request["runtime_env"].is_object()) {
        job.runtimeEnv = request["runtime_env"];
      }
      if (request.contains("entrypoint_num_cpus"))
        job.entrypointNumCpus = request["entrypoint_num_cpus"];
      if (request.contains("entrypoint_num_gpus"))
        job.entrypointNumGpus = request["entrypoint_num_gpus"];
      if (request.contains("entrypoint_resources")) {
        job.entrypointResources = request["entrypoint_resources"];
      }
      jobs_.emplace(id, std::move(job));
      order_.push_back(id);
    }
    std::weak_ptr<HeadState> weak = weak_from_this();
    context_->after(options_.jobPendingDelay, [weak, id, serial] {
      if (auto self = weak.lock()) self->startRunning(id, serial);
    });
    return jsonAnswer(200, {{"job_id", id}, {"submission_id", id}});
  }

  HttpResponse stopJob(const std::string& id) {
    std::shared_ptr<EntrypointRun> run;
    bool stopped = false;
    {
      std::lock_guard lock(mu_);
      auto it = jobs_.find(id);
      if (it == jobs_.end()) return textAnswer(404, fmt::format("Job {} does not exist", id));
      Job& job = it->second;
      if (!isTerminal(job.status)) {
        job.status = "STOPPED";
        job.message = kStoppedMessage;
        job.endTime = epochMillis(context_->now());
        run = std::move(job.run);
        stopped = true;
      }
    }
    if (run) run->cancel();
    return jsonAnswer(200, {{"stopped", stopped}});
  }

  HttpResponse remove(const std::string& id) {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return textAnswer(404, fmt::format("Job {} does not exist", id));
    if (!isTerminal(it->second.status)) {
      return textAnswer(500, fmt::format("Attempted to delete job '{}', but it is in a "
                                         "non-terminal state {}.",
                                         id, it->second.status));
    }
    jobs_.erase(it);
    std::erase(order_, id);
    return jsonAnswer(200, {{"deleted", true}});
  }

  // Job* for (id, serial) if it is still that job; call with mu_ held.
  Job* findLocked(const std::string& id, std::uint64_t serial) {
    auto it = jobs_.find(id);
    if (it == jobs_.end() || it->second.serial != serial) return nullptr;
    return &it->second;
  }

  void startRunning(const std::string& id, std::uint64_t serial) {
    std::string entrypoint;
    {
      std::lock_guard lock(mu_);
      Job* job = findLocked(id, serial);
      if (job == nullptr || job->status != "PENDING" || stopped_) return;
      job->status = "RUNNING";
      job->message = kRunningMessage;
      job->driverJobId = fmt::format("{:02x}000000", ++nextDriver_ & 0xff);
      entrypoint = job->entrypoint;
    }
    std::weak_ptr<HeadState> weak = weak_from_this();
    EntrypointRun::Hooks hooks;
    std::weak_ptr<ProcessContext> context = context_;
    hooks.after = [context](Duration delay, std::function<void()> fn) {
      if (auto c = context.lock()) c->after(delay, std::move(fn));
    };
    hooks.log = [weak, id, serial](std::string line) {
      auto self = weak.lock();
      if (!self) return;
      std::lock_guard lock(self->mu_);
      Job* job = self->findLocked(id, serial);
      if (job != nullptr && job->status == "RUNNING") job->logs.push_back(std::move(line));
    };
    hooks.done = [weak, id, serial](int code) {
      if (auto self = weak.lock()) self->finish(id, serial, code);
    };
    auto run = EntrypointRun::start(entrypoint, options_.entrypoints, std::move(hooks));
    bool cancel = false;
    {
      std::lock_guard lock(mu_);
      Job* job = findLocked(id, serial);
      if (job != nullptr && job->status == "RUNNING") {
        job->run = run;
      } else {
        cancel = job == nullptr || job->status == "STOPPED";
      }
    }
    if (cancel) run->cancel();
  }

  void finish(const std::string& id, std::uint64_t serial, int code) {
    std::lock_guard lock(mu_);
    Job* job = findLocked(id, serial);
    if (job == nullptr || job->status != "RUNNING") return;
    job->exitCode = code;
    job->endTime = epochMillis(context_->now());
    job->run.reset();
    if (code == 0) {
      job->status = "SUCCEEDED";
      job->message = kSucceededMessage;
      return;
    }
    job->status = "FAILED";
    job->errorType = "JOB_ENTRYPOINT_COMMAND_ERROR";
    std::string logs = job->logText();
    if (logs.size() > 20000) logs = logs.substr(logs.size() - 20000);
    job->message = fmt::format(
        "Job entrypoint command failed with exit code {}, last available logs (truncated to "
        "20,000 chars):\n{}",
        code, logs);
  }

  // Ray's raysubmit_<16 characters>, here derived from the head's pod IP and a counter, so that
  // runs are deterministic.
  std::string generatedSubmissionId(std::uint64_t serial) const {
    static constexpr char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::uint64_t h = 1469598103934665603ULL;
    for (char c : context_->podIp() + "/" + std::to_string(serial)) {
      h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
    std::string id = "raysubmit_";
    for (int i = 0; i < 16; ++i) {
      id += kAlphabet[h % 62];
      h = h / 62 + (h % 7) * 1099511628211ULL;
    }
    return id;
  }

  const RayHeadOptions options_;
  const std::shared_ptr<ProcessContext> context_;
  const std::shared_ptr<RayServe> serve_;
  std::mutex mu_;
  bool stopped_ = false;
  std::map<std::string, Job> jobs_;
  std::vector<std::string> order_;
  std::uint64_t nextSerial_ = 0;
  std::uint64_t nextDriver_ = 0;
};

class RayHeadProcess final : public Process {
 public:
  explicit RayHeadProcess(RayHeadOptions options) : options_(std::move(options)) {}
  ~RayHeadProcess() override { stop(); }

  void start(std::shared_ptr<ProcessContext> context) override {
    context->setReady(false);
    state_ = std::make_shared<HeadState>(options_, context);
    const RayHeadPorts ports = rayHeadPorts(BehaviorRegistry::commandLine(context->container()));
    // What `ray start --head --block` prints: the node's IP at once, the rest once it runs.
    context->print("Usage stats collection is disabled.\n\nLocal node IP: " + context->podIp());
    std::weak_ptr<HeadState> weak = state_;
    std::weak_ptr<ProcessContext> weakContext = context;
    context->after(options_.startupDelay, [weak, weakContext, ports] {
      auto c = weakContext.lock();
      auto state = weak.lock();
      if (!c || !state) return;
      const std::string& ip = c->podIp();
      c->print(fmt::format(
          "\n--------------------\nRay runtime started.\n--------------------\n\n"
          "Next steps\n"
          "  To add another node to this Ray cluster, run\n"
          "    ray start --address='{0}:{1}'\n\n"
          "  To submit a Ray job using the Ray Jobs CLI:\n"
          "    RAY_ADDRESS='http://{0}:{2}' ray job submit --working-dir . -- python "
          "my_script.py\n\n"
          "  To monitor and debug Ray, view the dashboard at \n"
          "    {0}:{2}\n\n"
          "  If connection to the dashboard fails, check your firewall settings and network "
          "configuration.\n"
          "--block\n"
          "  This command will now block forever until terminated by a signal.",
          ip, ports.gcs, ports.dashboard));
      c->listen(ports.gcs, [](const HttpRequest&) { return textAnswer(200, "GCS is alive"); });
      c->listen(ports.client,
                [](const HttpRequest&) { return textAnswer(200, "Ray client server"); });
      c->listen(ports.metrics, [](const HttpRequest&) {
        return textAnswer(200, "# HELP ray_node_cpu_count Total CPUs available on a ray node\n");
      });
      c->listen(ports.dashboardAgent, [](const HttpRequest& request) {
        if (request.path.starts_with("/api/local_raylet_healthz"))
          return textAnswer(200, "success");
        return textAnswer(404, "404: Not Found");
      });
      // The listener holds the state; the process's end closes the listener.
      c->listen(ports.dashboard,
                [state](const HttpRequest& request) { return state->dashboard(request); });
      c->setReady(true);
    });
  }

  void stop() override {
    if (state_) state_->stop();
  }

 private:
  RayHeadOptions options_;
  std::shared_ptr<HeadState> state_;
};

}  // namespace

RayHeadPorts rayHeadPorts(const std::string& commandLine) {
  RayHeadPorts ports{kDefaultGcsServerPort, kDefaultDashboardPort, kDefaultClientPort,
                     kDefaultMetricsPort, kDefaultDashboardAgentListenPort};
  if (auto gcs = intFlag(commandLine, "port")) ports.gcs = *gcs;
  if (auto dashboard = intFlag(commandLine, "dashboard-port")) ports.dashboard = *dashboard;
  if (auto client = intFlag(commandLine, "ray-client-server-port")) ports.client = *client;
  if (auto metrics = intFlag(commandLine, "metrics-export-port")) ports.metrics = *metrics;
  if (auto agent = intFlag(commandLine, "dashboard-agent-listen-port")) {
    ports.dashboardAgent = *agent;
  }
  return ports;
}

ProcessFactory rayHead(RayHeadOptions options) {
  return [options = std::move(options)] { return std::make_unique<RayHeadProcess>(options); };
}

}  // namespace fakekube::ray
