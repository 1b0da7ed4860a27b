#include "fakekube/cluster/kubelet.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "fakekube/api/conditions.h"
#include "fakekube/api/internal/json_build.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/api/pod_status.h"
#include "fakekube/api/resources.h"
#include "fakekube/cluster/internal/controller_utils.h"
#include "fakekube/cluster/nodes.h"
#include "fakekube/runtime/builder.h"

namespace fakekube {

namespace {

using std::chrono::seconds;

// FNV-1a, for stable made-up container and image ids.
std::uint64_t fnv(std::string_view text, std::uint64_t salt) {
  std::uint64_t h = 1469598103934665603ULL ^ salt;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}
std::string hex64(std::string_view text) {
  return fmt::format("{:016x}{:016x}{:016x}{:016x}", fnv(text, 1), fnv(text, 2), fnv(text, 3),
                     fnv(text, 4));
}

// The image reference the runtime reports as imageID: registry and repository with a digest.
std::string imageId(const std::string& image) {
  std::string repository = image.substr(0, image.find('@'));
  auto slash = repository.rfind('/');
  auto colon = repository.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    repository = repository.substr(0, colon);
  }
  if (repository.find('/') == std::string::npos) {
    repository = "docker.io/library/" + repository;
  } else if (auto first = repository.substr(0, repository.find('/'));
             first.find('.') == std::string::npos && first.find(':') == std::string::npos &&
             first != "localhost") {
    repository = "docker.io/" + repository;
  }
  return repository + "@sha256:" + hex64(image);
}

// Go's time.Duration.String for whole seconds: "10s", "1m20s", "5m0s".
std::string goDuration(Duration d) {
  auto total = std::chrono::duration_cast<seconds>(d).count();
  if (total < 60) return fmt::format("{}s", total);
  if (total < 3600) return fmt::format("{}m{}s", total / 60, total % 60);
  return fmt::format("{}h{}m{}s", total / 3600, total % 3600 / 60, total % 60);
}

// Go's fmt of a []string: "[a b]".
std::string goList(const std::vector<std::string>& names) {
  return fmt::format("[{}]", fmt::join(names, " "));
}

std::string rfc(TimePoint t) { return formatRfc3339(t); }

}  // namespace

class Kubelet::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(Manager& manager, KubeletOptions options)
      : manager_(manager),
        behaviors_(options.behaviors != nullptr ? *options.behaviors : defaultBehaviors_),
        network_(options.network),
        options_(options) {}

  ~Impl() { shutDown(); }

  // Stops every process; later reconciles do nothing.
  void shutDown() {
    std::lock_guard lock(mu_);
    shutDown_ = true;
    for (auto& [uid, run] : runs_) killAll(*run);
  }

  Result<void> start() {
    Informer& pods = manager_.cache().informerFor(kPods);
    workload::addPodNodeNameIndex(pods);
    Manager* manager = &manager_;
    auto podsOfNode = [manager](const ObjectPtr& node) {
      std::vector<ReconcileRequest> requests;
      for (const auto& pod : manager->cache().informerFor(kPods).byIndex(
               workload::kPodNodeNameIndex, meta::name(*node))) {
        requests.push_back({meta::namespace_(*pod), meta::name(*pod)});
      }
      return requests;
    };
    EventHandler nodeEvents;
    nodeEvents.create = podsOfNode;
    nodeEvents.update = [podsOfNode](const ObjectPtr& oldNode, const ObjectPtr& newNode) {
      if (isNodeReady(*oldNode) == isNodeReady(*newNode)) {
        return std::vector<ReconcileRequest>{};
      }
      return podsOfNode(newNode);
    };
    auto bound = predicate::fromFilter([](const Json& pod) { return !podNodeName(pod).empty(); });
    auto self = shared_from_this();
    auto controller =
        ControllerBuilder(manager_)
            .named("kubelet")
            .forResource(kPods, bound)
            .watches(kNodes, nodeEvents)
            .complete([self](const ReconcileRequest& request) { return self->reconcile(request); });
    if (!controller) return tl::unexpected(controller.error());
    std::lock_guard lock(mu_);
    controller_ = *controller;
    return {};
  }

  std::size_t runningProcesses() const {
    std::lock_guard lock(mu_);
    std::size_t n = 0;
    for (const auto& [uid, run] : runs_) {
      for (const auto* list : {&run->inits, &run->containers}) {
        for (const auto& c : *list) n += c.process != nullptr ? 1 : 0;
      }
    }
    return n;
  }
  std::size_t trackedPods() const {
    std::lock_guard lock(mu_);
    return runs_.size();
  }

 private:
  class Context;

  enum class State { Waiting, Running, Exited, Terminated };

  struct ContainerRun {
    std::string name;
    // The container's spec, shared with the contexts of its processes (each start hands one out).
    std::shared_ptr<const Json> spec;
    bool init = false;
    State state = State::Waiting;
    std::string waitingReason;
    std::string waitingMessage;
    int restartCount = 0;
    std::uint64_t runId = 0;
    std::string containerId;
    bool everStarted = false;
    // The imageID reported once the container has started, made at its first start: `spec` is the
    // one the kubelet first saw, so its image and the id do not change, and every status the
    // kubelet writes reports it.
    std::string imageId;
    TimePoint startedAt{};
    bool processReady = true;
    TimePoint readyAt{};
    int exitCode = 0;
    TimePoint finishedAt{};
    Json lastState = Json::object();
    // state.terminated of a container that will not run again.
    Json terminated;
    // Back-off (flowcontrol.Backoff of the kubelet, per container).
    bool backingOff = false;
    TimePoint restartAt{};
    Duration backOff{0};
    TimePoint backOffUpdated{};
    std::shared_ptr<Context> context;
    std::unique_ptr<Process> process;
  };

  struct PodRun {
    std::string uid;
    std::string ns;
    std::string name;
    std::string node;
    TimePoint seenAt{};
    bool sandboxReady = false;
    std::string podIp;
    std::string hostIp;
    std::vector<ContainerRun> inits;
    std::vector<ContainerRun> containers;
    std::size_t nextInit = 0;
    bool initFailed = false;
    bool finished = false;  // terminal: processes stopped, IP released
    // The terminal status, until a write of it succeeded (a 409 retries it on a fresher pod;
    // the run itself is over and computes nothing new).
    std::optional<Json> unsavedFinalStatus;
    bool deleting = false;
    TimePoint deleteAt{};
    // Process exits and readiness changes so far: the run's changes that no timer foresees.
    std::uint64_t changes = 0;
    // The pod's resourceVersion whose status the last reconcile found right (written or already
    // there), with `changes` and the next due time then. A reconcile that finds the pod at that
    // version, no change since and nothing due computes that same status again: it skips the
    // work (most reconciles are the echo of the kubelet's own status write).
    std::string settledResourceVersion;
    std::uint64_t changesWhenSettled = 0;
    std::optional<TimePoint> wakeWhenSettled;
  };

  // Per-node host-local IPAM over 10.244.<n>.0/24.
  struct NodeIpam {
    std::string prefix;  // "10.244.3."
    int last = 1;
    std::set<int> used;
  };

  // --- process contexts ---

  class Context final : public ProcessContext, public std::enable_shared_from_this<Context> {
   public:
    Context(std::weak_ptr<Impl> kubelet, Executor& executor, Network* network, ContainerLogs* logs,
            std::string containerId, std::string uid, std::string ns, std::string container,
            bool init, std::uint64_t runId, ObjectPtr pod, std::shared_ptr<const Json> spec,
            std::string podIp, int restartCount)
        : kubelet_(std::move(kubelet)),
          executor_(executor),
          network_(network),
          logs_(logs),
          containerId_(std::move(containerId)),
          uid_(std::move(uid)),
          ns_(std::move(ns)),
          containerName_(std::move(container)),
          init_(init),
          runId_(runId),
          pod_(std::move(pod)),
          spec_(std::move(spec)),
          podIp_(std::move(podIp)),
          restartCount_(restartCount) {}

    void exit(int code) override {
      if (!alive_.exchange(false)) return;
      postToKubelet([code](Impl& kubelet, const std::string& uid, const std::string& name,
                           bool init,
                           std::uint64_t runId) { kubelet.onExit(uid, name, init, runId, code); });
    }
    void setReady(bool ready) override {
      if (!alive_) return;
      postToKubelet(
          [ready](Impl& kubelet, const std::string& uid, const std::string& name, bool init,
                  std::uint64_t runId) { kubelet.onReadiness(uid, name, init, runId, ready); });
    }
    // Tells the kubelet, in a task of its own and if it still exists, about this instance
    // (its pod uid, container name, init or not, run id).
    template <class Tell>
    void postToKubelet(Tell tell) {
      executor_.post([kubelet = kubelet_, uid = uid_, name = containerName_, init = init_,
                      runId = runId_, tell = std::move(tell)] {
        if (auto k = kubelet.lock()) tell(*k, uid, name, init, runId);
      });
    }
    void after(Duration delay, std::function<void()> fn) override {
      if (!alive_) return;
      std::weak_ptr<Context> weak = weak_from_this();
      executor_.postAfter(delay, [weak, fn = std::move(fn)] {
        auto self = weak.lock();
        if (self && self->alive_) fn();
      });
    }
    bool alive() const override { return alive_; }
    void print(std::string_view text) override {
      if (alive_ && logs_ != nullptr) logs_->append(containerId_, executor_.clock().now(), text);
    }
    TimePoint now() const override { return executor_.clock().now(); }
    Executor& executor() const override { return executor_; }
    const Json& pod() const override { return *pod_; }
    const Json& container() const override { return *spec_; }
    const std::string& podIp() const override { return podIp_; }
    int restartCount() const override { return restartCount_; }

    NetworkResult<void> listen(int port, HttpHandler handler) override {
      if (network_ == nullptr || !alive_) {
        return tl::unexpected(
            NetworkError{NetworkError::Kind::AddressInUse, "listen: no network for this process"});
      }
      auto listening = network_->listen(podIp_, port, std::move(handler));
      if (listening) {
        std::lock_guard lock(mu_);
        ports_.push_back(port);
      }
      return listening;
    }
    NetworkResult<HttpResponse> call(std::string_view host, int port,
                                     const HttpRequest& request) override {
      if (network_ == nullptr || !alive_) {
        return tl::unexpected(NetworkError{NetworkError::Kind::ConnectionRefused,
                                           "dial tcp: no network for this process"});
      }
      return network_->call(ns_, host, port, request, podIp_);
    }

    // The process ended (exit or kill): nothing it asks for happens any more.
    void end() {
      alive_ = false;
      std::vector<int> ports;
      {
        std::lock_guard lock(mu_);
        ports.swap(ports_);
      }
      if (network_ != nullptr) {
        for (int port : ports) network_->close(podIp_, port);
      }
    }

   private:
    std::weak_ptr<Impl> kubelet_;
    Executor& executor_;
    Network* network_;
    ContainerLogs* const logs_;
    const std::string containerId_;
    const std::string uid_;
    const std::string ns_;
    const std::string containerName_;
    const bool init_;
    const std::uint64_t runId_;
    // The pod as the cache held it when the container started (shared, never copied).
    const ObjectPtr pod_;
    const std::shared_ptr<const Json> spec_;
    const std::string podIp_;
    const int restartCount_;
    std::atomic<bool> alive_{true};
    std::mutex mu_;
    std::vector<int> ports_;
  };

  // --- callbacks from processes (in tasks of their own) ---

  ContainerRun* findContainer(const std::string& uid, const std::string& name, bool init,
                              std::uint64_t runId, PodRun** podOut) {
    auto it = runs_.find(uid);
    if (it == runs_.end()) return nullptr;
    auto& list = init ? it->second->inits : it->second->containers;
    for (auto& c : list) {
      if (c.name == name && c.runId == runId && c.state == State::Running) {
        *podOut = it->second.get();
        return &c;
      }
    }
    return nullptr;
  }

  void onExit(const std::string& uid, const std::string& name, bool init, std::uint64_t runId,
              int code) {
    changeContainer(uid, name, init, runId, [&](ContainerRun& c) {
      endProcess(c, /*kill=*/false);
      c.state = State::Exited;
      c.exitCode = code;
      c.finishedAt = manager_.executor().now();
      return true;
    });
  }

  void onReadiness(const std::string& uid, const std::string& name, bool init, std::uint64_t runId,
                   bool ready) {
    changeContainer(uid, name, init, runId, [&](ContainerRun& c) {
      if (c.processReady == ready) return false;
      c.processReady = ready;
      return true;
    });
  }

  // Applies `change` to the container instance under the lock, if it still runs; when it
  // answers true (something changed), counts the change and reconciles the pod.
  template <class Change>
  void changeContainer(const std::string& uid, const std::string& name, bool init,
                       std::uint64_t runId, Change change) {
    ReconcileRequest request;
    {
      std::lock_guard lock(mu_);
      PodRun* pod = nullptr;
      ContainerRun* c = findContainer(uid, name, init, runId, &pod);
      if (c == nullptr || !change(*c)) return;
      ++pod->changes;
      request = {pod->ns, pod->name};
    }
    enqueue(request);
  }

  void enqueue(const ReconcileRequest& request) {
    if (manager_.crashed()) return;
    Controller* controller = nullptr;
    {
      std::lock_guard lock(mu_);
      controller = controller_;
    }
    if (controller != nullptr) controller->enqueue(request);
  }

  // --- processes ---

  void endProcess(ContainerRun& c, bool kill) {
    if (c.context) c.context->end();
    if (c.context && options_.containerLogs != nullptr) {
      options_.containerLogs->close(c.containerId);
    }
    if (kill && c.process) c.process->stop();
    c.process.reset();
    c.context.reset();
  }

  void killAll(PodRun& run) {
    for (auto* list : {&run.inits, &run.containers}) {
      for (auto& c : *list) endProcess(c, true);
    }
  }

  // The container's image as its spec names it ("" when it names none).
  static const std::string& imageOf(const ContainerRun& c) {
    static const std::string kNoImage;
    const Json& image = jsonAt(*c.spec, {"image"});
    return image.is_string() ? image.get_ref<const std::string&>() : kNoImage;
  }

  void startContainer(PodRun& run, ContainerRun& c, const ObjectPtr& pod, TimePoint now) {
    if (c.everStarted) ++c.restartCount;
    if (!c.everStarted) c.imageId = imageId(imageOf(c));
    c.everStarted = true;
    c.state = State::Running;
    c.backingOff = false;
    c.waitingReason.clear();
    c.waitingMessage.clear();
    c.startedAt = now;
    c.processReady = true;
    c.runId = ++nextRunId_;
    c.containerId =
        "containerd://" + hex64(fmt::format("{}/{}/{}", run.uid, c.name, c.restartCount));
    Duration delay = options_.readinessDelay;
    if (auto probe = c.spec->find("readinessProbe"); probe != c.spec->end() && probe->is_object()) {
      delay = seconds(probe->value("initialDelaySeconds", 0));
    }
    c.readyAt = now + delay;
    if (options_.containerLogs != nullptr) {
      options_.containerLogs->open(c.containerId, run.uid, c.name);
    }
    c.context = std::make_shared<Context>(
        weak_from_this(), manager_.executor(), network_, options_.containerLogs, c.containerId,
        run.uid, run.ns, c.name, c.init, c.runId, pod, c.spec, run.podIp, c.restartCount);
    c.process = behaviors_.match(*pod, *c.spec, c.init)();
    if (c.process) c.process->start(c.context);
  }

  static Json terminatedOf(const ContainerRun& c) {
    return {{"exitCode", c.exitCode},
            {"reason", c.exitCode == 0 ? "Completed" : "Error"},
            {"startedAt", rfc(c.startedAt)},
            {"finishedAt", rfc(c.finishedAt)},
            {"containerID", c.containerId}};
  }

  // An exited container: terminated for good, or restarted now, or after its back-off.
  void handleExit(PodRun& run, ContainerRun& c, const ObjectPtr& pod, const std::string& policy,
                  TimePoint now) {
    bool restart = c.init ? (policy != "Never" && c.exitCode != 0)
                          : (policy == "Always" || (policy == "OnFailure" && c.exitCode != 0));
    Json terminated = terminatedOf(c);
    if (!restart) {
      c.state = State::Terminated;
      c.terminated = std::move(terminated);
      if (c.init && c.exitCode != 0) run.initFailed = true;
      return;
    }
    c.lastState = {{"terminated", terminated}};
    // kubelet doBackOff: an expired entry (no back-off update for twice the cap) starts over.
    if (c.backOff > Duration{0} && c.finishedAt - c.backOffUpdated > 2 * options_.backOffMax) {
      c.backOff = Duration{0};
    }
    if (c.backOff == Duration{0}) {
      c.backOff = options_.backOffInitial;
      c.backOffUpdated = now;
      startContainer(run, c, pod, now);
      return;
    }
    c.state = State::Waiting;
    c.backingOff = true;
    c.restartAt = c.finishedAt + c.backOff;
    c.waitingReason = "CrashLoopBackOff";
    c.waitingMessage = fmt::format("back-off {} restarting failed container={} pod={}_{}({})",
                                   goDuration(c.backOff), c.name, run.name, run.ns, run.uid);
  }

  // Starts, restarts and exits whatever is due at `now`.
  void step(PodRun& run, const ObjectPtr& pod, TimePoint now) {
    const std::string policy = (*pod)["spec"].value("restartPolicy", "Always");
    if (!run.sandboxReady) {
      if (now < run.seenAt + options_.containerCreatingDelay) return;
      if (!allocateIp(run, *pod)) return;
      run.sandboxReady = true;
    }
    auto advance = [&](ContainerRun& c) {
      if (c.state == State::Exited) handleExit(run, c, pod, policy, now);
      if (c.state == State::Waiting && (!c.backingOff || now >= c.restartAt)) {
        if (c.backingOff) {
          c.backOff = std::min(c.backOff * 2, options_.backOffMax);
          c.backOffUpdated = now;
        }
        startContainer(run, c, pod, now);
      }
    };
    while (run.nextInit < run.inits.size() && !run.initFailed) {
      ContainerRun& c = run.inits[run.nextInit];
      advance(c);
      if (c.state == State::Terminated && c.exitCode == 0) {
        ++run.nextInit;
        continue;
      }
      break;
    }
    if (run.nextInit < run.inits.size() || run.initFailed) return;
    for (auto& c : run.containers) advance(c);
  }

  std::string phaseOf(const PodRun& run, const std::string& policy) const {
    if (run.initFailed) return "Failed";
    if (!run.sandboxReady || run.nextInit < run.inits.size()) return "Pending";
    int running = 0, waiting = 0, stopped = 0, succeeded = 0;
    for (const auto& c : run.containers) {
      switch (c.state) {
        case State::Running:
          ++running;
          break;
        case State::Waiting:
          if (c.backingOff) {
            ++stopped;
          } else {
            ++waiting;
          }
          break;
        case State::Exited:
        case State::Terminated:
          ++stopped;
          if (c.state == State::Terminated && c.exitCode == 0) ++succeeded;
          break;
      }
    }
    if (waiting > 0) return "Pending";
    if (running > 0) return "Running";
    if (stopped == 0) return "Pending";
    if (policy == "Always") return "Running";
    if (stopped == succeeded) return "Succeeded";
    if (policy == "Never") return "Failed";
    // OnFailure: a failed container will be restarted, unless every container is done.
    bool restarting =
        std::any_of(run.containers.begin(), run.containers.end(),
                    [](const ContainerRun& c) { return c.state != State::Terminated; });
    return restarting ? "Running" : "Failed";
  }

  bool isReady(const ContainerRun& c, TimePoint now) const {
    return c.state == State::Running && c.processReady && now >= c.readyAt;
  }

  // Built member by member (jsonObject): the kubelet builds one for every container of every
  // status it writes.
  Json containerStatus(const ContainerRun& c, TimePoint now) const {
    Json state = Json::object();
    switch (c.state) {
      case State::Waiting: {
        Json waiting = jsonObject("reason", c.waitingReason);
        if (!c.waitingMessage.empty()) waiting.emplace("message", c.waitingMessage);
        state = jsonObject("waiting", std::move(waiting));
        break;
      }
      case State::Running:
        state = jsonObject("running", jsonObject("startedAt", rfc(c.startedAt)));
        break;
      case State::Exited:
      case State::Terminated:
        state =
            jsonObject("terminated", c.state == State::Terminated ? c.terminated : terminatedOf(c));
        break;
    }
    const bool ready = c.init ? (c.state == State::Terminated && c.exitCode == 0) : isReady(c, now);
    Json status =
        jsonObject("name", c.name, "image", imageOf(c), "imageID", c.imageId, "ready", ready,
                   "restartCount", c.restartCount, "started", c.state == State::Running, "state",
                   std::move(state), "lastState", c.lastState);
    if (!c.containerId.empty()) status.emplace("containerID", c.containerId);
    return status;
  }

  // The status the kubelet reports, over the pod's current one (fields it does not own kept).
  Json statusOf(const PodRun& run, const Json& pod, TimePoint now) const {
    const std::string policy = pod["spec"].value("restartPolicy", "Always");
    // The old container statuses are not copied: they are rebuilt below. Room for every member
    // the kubelet sets, so that adding them moves no member to a new allocation.
    Json status = Json::object();
    status.get_ref<Json::object_t&>().reserve(16);
    if (auto old = pod.find("status"); old != pod.end() && old->is_object()) {
      for (auto it = old->begin(); it != old->end(); ++it) {
        if (it.key() == "containerStatuses") continue;
        if (it.key() == "initContainerStatuses" && !run.inits.empty()) continue;
        status.emplace(it.key(), *it);
      }
    }
    const std::string phase = phaseOf(run, policy);
    jsonMember(status, "phase") = phase;
    jsonMember(status, "hostIP") = run.hostIp;
    jsonMember(status, "hostIPs") = Json::array({jsonObject("ip", run.hostIp)});
    if (!run.podIp.empty()) {
      jsonMember(status, "podIP") = run.podIp;
      jsonMember(status, "podIPs") = Json::array({jsonObject("ip", run.podIp)});
    }
    jsonMember(status, "startTime") = rfc(run.seenAt);

    generatePodConditions(status, run, phase, now);
    orderPodConditions(status);
    setContainerStatuses(status, run, now);
    return status;
  }

  // The conditions the kubelet owns (GeneratePodReadyToStartContainersCondition,
  // GeneratePodInitializedCondition, GeneratePodReadyCondition, GenerateContainersReadyCondition).
  void generatePodConditions(Json& status, const PodRun& run, const std::string& phase,
                             TimePoint now) const {
    const bool terminal = phase == "Succeeded" || phase == "Failed";
    std::vector<std::string> incomplete;
    for (std::size_t i = 0; i < run.inits.size(); ++i) {
      const auto& c = run.inits[i];
      if (!(c.state == State::Terminated && c.exitCode == 0)) incomplete.push_back(c.name);
    }
    std::vector<std::string> unready;
    for (const auto& c : run.containers) {
      if (!isReady(c, now)) unready.push_back(c.name);
    }
    std::sort(unready.begin(), unready.end());

    setCondition(status,
                 jsonObject("type", "PodReadyToStartContainers", "status",
                            run.sandboxReady && !terminal ? "True" : "False"),
                 now);
    if (incomplete.empty()) {
      setCondition(status, jsonObject("type", "Initialized", "status", "True"), now);
    } else {
      setCondition(
          status,
          jsonObject("type", "Initialized", "status", "False", "reason", "ContainersNotInitialized",
                     "message", "containers with incomplete status: " + goList(incomplete)),
          now);
    }
    for (const char* type : {"Ready", "ContainersReady"}) {
      Json condition = jsonObject("type", type);
      if (unready.empty() && !terminal) {
        jsonMember(condition, "status") = "True";
      } else {
        jsonMember(condition, "status") = "False";
        if (phase == "Succeeded") {
          jsonMember(condition, "reason") = "PodCompleted";
        } else {
          jsonMember(condition, "reason") = "ContainersNotReady";
          jsonMember(condition, "message") = "containers with unready status: " + goList(unready);
        }
      }
      setCondition(status, condition, now);
    }
  }

  // The kubelet's conditions first, in its order, then the others (PodScheduled, ...): moved,
  // not copied (a moved-from condition is left null, and skipped after).
  static void orderPodConditions(Json& status) {
    Json& conditions = jsonMember(status, "conditions");
    Json ordered = Json::array();
    static const char* kOwned[] = {"PodReadyToStartContainers", "Initialized", "Ready",
                                   "ContainersReady"};
    for (const char* type : kOwned) {
      for (auto& c : conditions) {
        if (!c.is_null() && c.value("type", "") == type) ordered.push_back(std::move(c));
      }
    }
    for (auto& c : conditions) {
      if (!c.is_null()) ordered.push_back(std::move(c));
    }
    conditions = std::move(ordered);
  }

  // initContainerStatuses in spec order, containerStatuses by name (convertStatusToAPIStatus).
  void setContainerStatuses(Json& status, const PodRun& run, TimePoint now) const {
    if (!run.inits.empty()) {
      Json inits = Json::array();
      for (const auto& c : run.inits) inits.push_back(containerStatus(c, now));
      jsonMember(status, "initContainerStatuses") = std::move(inits);
    }
    std::vector<const ContainerRun*> byName;
    for (const auto& c : run.containers) byName.push_back(&c);
    std::sort(byName.begin(), byName.end(),
              [](const ContainerRun* a, const ContainerRun* b) { return a->name < b->name; });
    Json containers = Json::array();
    for (const auto* c : byName) containers.push_back(containerStatus(*c, now));
    jsonMember(status, "containerStatuses") = std::move(containers);
  }

  // When something is next due for this pod, if anything.
  std::optional<TimePoint> nextWake(const PodRun& run, TimePoint now) const {
    std::optional<TimePoint> next;
    auto consider = [&](TimePoint t) {
      if (t > now && (!next || t < *next)) next = t;
    };
    if (run.deleting) {
      consider(run.deleteAt);
      return next;
    }
    if (run.finished) return next;
    if (!run.sandboxReady) consider(run.seenAt + options_.containerCreatingDelay);
    for (const auto* list : {&run.inits, &run.containers}) {
      for (const auto& c : *list) {
        if (c.state == State::Waiting && c.backingOff) consider(c.restartAt);
        if (c.state == State::Running && c.processReady) consider(c.readyAt);
      }
    }
    return next;
  }

  // --- IPAM ---

  bool allocateIp(PodRun& run, const Json& pod) {
    if (pod["spec"].value("hostNetwork", false)) {
      run.podIp = run.hostIp;
      return true;
    }
    auto& ipam = ipams_[run.node];
    if (ipam.prefix.empty()) {
      auto node = manager_.cache().getShared(kNodes, "", run.node);
      std::string cidr = node ? (**node)["spec"].value("podCIDR", "") : "";
      int n = -1;
      if (std::sscanf(cidr.c_str(), "10.244.%d.0/24", &n) != 1) n = 200 + int(ipams_.size());
      ipam.prefix = fmt::format("10.244.{}.", n);
    }
    for (int i = 0; i < 253; ++i) {
      int candidate = (ipam.last - 2 + 1 + i) % 253 + 2;  // 2..254, after the last one
      if (ipam.used.count(candidate)) continue;
      ipam.used.insert(candidate);
      ipam.last = candidate;
      run.podIp = ipam.prefix + std::to_string(candidate);
      return true;
    }
    return false;  // the range is full: the sandbox waits
  }

  void releaseIp(PodRun& run) {
    if (run.podIp.empty() || run.podIp == run.hostIp) return;
    auto it = ipams_.find(run.node);
    if (it == ipams_.end()) return;
    if (run.podIp.starts_with(it->second.prefix)) {
      it->second.used.erase(std::stoi(run.podIp.substr(it->second.prefix.size())));
    }
  }

  void forgetRun(const std::string& uid) {
    auto it = runs_.find(uid);
    if (it == runs_.end()) return;
    killAll(*it->second);
    if (!it->second->finished) releaseIp(*it->second);
    if (options_.containerLogs != nullptr) options_.containerLogs->removePod(uid);
    runs_.erase(it);
  }

  PodRun& runFor(const Json& pod, const Json& node, TimePoint now) {
    const std::string uid = meta::uid(pod);
    auto it = runs_.find(uid);
    if (it != runs_.end()) return *it->second;
    auto run = std::make_unique<PodRun>();
    run->uid = uid;
    run->ns = meta::namespace_(pod);
    run->name = meta::name(pod);
    run->node = podNodeName(pod);
    run->seenAt = now;
    // Read in place: the node's status (capacity, conditions, images) is not copied per pod.
    const Json& addresses = jsonAt(node, {"status", "addresses"});
    if (addresses.is_array()) {
      for (const auto& a : addresses) {
        if (a.is_object() && a.value("type", "") == "InternalIP")
          run->hostIp = a.value("address", "");
      }
    }
    const bool hasInit = pod["spec"].contains("initContainers") &&
                         pod["spec"]["initContainers"].is_array() &&
                         !pod["spec"]["initContainers"].empty();
    auto build = [&](const char* field, bool init, std::vector<ContainerRun>& into) {
      if (!pod["spec"].contains(field) || !pod["spec"][field].is_array()) return;
      for (const auto& spec : pod["spec"][field]) {
        ContainerRun c;
        c.name = spec.value("name", "");
        c.spec = std::make_shared<const Json>(spec);
        c.init = init;
        c.waitingReason = hasInit ? "PodInitializing" : "ContainerCreating";
        into.push_back(std::move(c));
      }
    };
    build("initContainers", true, run->inits);
    build("containers", false, run->containers);
    PodRun& ref = *run;
    runs_[uid] = std::move(run);
    return ref;
  }

  // --- the reconcile ---

  // The body of a status write of the pod: its type and metadata (name, namespace, uid and
  // resourceVersion are the preconditions) and `status`. The spec stays out: a pods/status update
  // takes everything but the status from the stored pod (kube-apiserver's podStatusStrategy copies
  // the old spec over whatever the body says), and this runs for every write the kubelet makes.
  static Json withStatus(const Json& pod, Json status) {
    Json updated = Json::object();
    for (const char* member : {"apiVersion", "kind", "metadata"}) {
      if (auto it = pod.find(member); it != pod.end()) updated.emplace(member, *it);
    }
    updated.emplace("status", std::move(status));
    return updated;
  }

  // Records that the pod at `resourceVersion` carries the status of the run as it was with
  // `changes` (see PodRun::settledResourceVersion).
  static void settle(PodRun& run, std::string resourceVersion, std::uint64_t changes,
                     std::optional<TimePoint> wake) {
    run.settledResourceVersion = std::move(resourceVersion);
    run.changesWhenSettled = changes;
    run.wakeWhenSettled = wake;
  }

  void markFinalStatusSaved(const std::string& uid) {
    std::lock_guard lock(mu_);
    auto it = runs_.find(uid);
    if (it != runs_.end()) it->second->unsavedFinalStatus.reset();
  }

  ReconcileOutcome reconcile(const ReconcileRequest& request) {
    std::unique_lock lock(mu_);
    if (shutDown_) return ReconcileResult{};
    const std::string key = request.key();
    auto got = manager_.cache().getShared(kPods, request.namespace_, request.name);
    auto known = uidByKey_.find(key);
    if (!got || (known != uidByKey_.end() && known->second != meta::uid(**got))) {
      // The pod is gone, or a new pod took its name: the old one's containers go.
      if (known != uidByKey_.end()) {
        forgetRun(known->second);
        uidByKey_.erase(known);
      }
      if (!got) return ReconcileResult{};
    }
    const ObjectPtr podPtr = *got;
    const Json& pod = *podPtr;
    if (podNodeName(pod).empty()) return ReconcileResult{};
    auto node = manager_.cache().getShared(kNodes, "", podNodeName(pod));
    if (!node) return ReconcileResult{};  // not a node of this cluster (yet): its add wakes us
    if (!isNodeReady(**node)) return ReconcileResult{};  // the node is lost

    const TimePoint now = manager_.executor().now();
    const bool alreadyKnown = runs_.count(meta::uid(pod)) > 0;
    if (!alreadyKnown && isPodTerminal(pod) && !meta::isDeleting(pod)) {
      return ReconcileResult{};  // finished before this kubelet saw it: nothing runs
    }
    PodRun& run = runFor(pod, **node, now);
    uidByKey_[key] = run.uid;

    if (meta::isDeleting(pod)) return syncTerminatingPod(lock, run, pod, now);
    if (isPodTerminal(pod) && !run.finished) {
      // Someone else ended the pod (an eviction): its containers are killed.
      killAll(run);
      run.finished = true;
      releaseIp(run);
      return ReconcileResult{};
    }
    if (run.finished) return syncTerminatedPod(lock, run, pod);
    return syncPod(lock, run, podPtr, now);
  }

  // A pod being deleted: its processes stop at once; after the termination delay (capped by its
  // grace period) the kubelet deletes it for good, with a uid precondition.
  ReconcileOutcome syncTerminatingPod(std::unique_lock<std::mutex>& lock, PodRun& run,
                                      const Json& pod, TimePoint now) {
    if (!run.deleting) {
      run.deleting = true;
      killAll(run);
      Duration grace = seconds(meta::deletionGracePeriodSeconds(pod).value_or(0));
      run.deleteAt = now + std::min(options_.terminationDelay, grace);
    }
    if (now < run.deleteAt) return ReconcileResult{run.deleteAt - now};
    const std::string uid = run.uid;
    lock.unlock();
    DeleteOptions options;
    options.gracePeriodSeconds = 0;
    options.preconditions.uid = uid;
    auto deleted =
        manager_.client().deleteObject(kPods, meta::namespace_(pod), meta::name(pod), options);
    if (!deleted && !isNotFound(deleted.error()) && !isConflict(deleted.error())) {
      return reconcileError(deleted.error());
    }
    return ReconcileResult{};
  }

  // A finished pod: its final status is written once, and then nothing happens.
  ReconcileOutcome syncTerminatedPod(std::unique_lock<std::mutex>& lock, PodRun& run,
                                     const Json& pod) {
    if (!run.unsavedFinalStatus) return ReconcileResult{};
    Json updated = withStatus(pod, *run.unsavedFinalStatus);
    const std::string uid = run.uid;
    lock.unlock();
    auto written = manager_.client().updateStatusShared(kPods, std::move(updated));
    if (!written && !isNotFound(written.error())) return reconcileError(written.error());
    markFinalStatusSaved(uid);
    return ReconcileResult{};
  }

  // A running pod: its containers step on, and its status is written when it changed.
  ReconcileOutcome syncPod(std::unique_lock<std::mutex>& lock, PodRun& run, const ObjectPtr& podPtr,
                           TimePoint now) {
    const Json& pod = *podPtr;
    // Before the sandbox is due, step() does nothing (after it, a sandbox that waits for an IP is
    // retried on every reconcile, as no timer foresees an IP coming free).
    const bool sandboxSettled =
        run.sandboxReady || now < run.seenAt + options_.containerCreatingDelay;
    if (sandboxSettled && !run.settledResourceVersion.empty() &&
        run.changes == run.changesWhenSettled &&
        (!run.wakeWhenSettled || now < *run.wakeWhenSettled) &&
        meta::resourceVersion(pod) == run.settledResourceVersion) {
      return run.wakeWhenSettled ? ReconcileResult{*run.wakeWhenSettled - now} : ReconcileResult{};
    }

    step(run, podPtr, now);
    Json status = statusOf(run, pod, now);
    const std::string phase = status["phase"];
    if (phase == "Succeeded" || phase == "Failed") {
      killAll(run);
      run.finished = true;
      releaseIp(run);
      run.unsavedFinalStatus = status;
    }
    std::optional<TimePoint> wake = nextWake(run, now);
    const bool changed = !pod.contains("status") || pod["status"] != status;
    const bool finished = run.finished;
    const std::string uid = run.uid;
    const std::uint64_t changes = run.changes;
    if (!changed) settle(run, meta::resourceVersion(pod), changes, wake);
    lock.unlock();

    if (changed) {
      Json updated = withStatus(pod, std::move(status));
      auto written = manager_.client().updateStatusShared(kPods, std::move(updated));
      if (!written) {
        if (isNotFound(written.error())) return ReconcileResult{};
        return reconcileError(written.error());  // 409: again, on a fresher cache
      }
      std::lock_guard relock(mu_);
      if (auto it = runs_.find(uid); it != runs_.end()) {
        settle(*it->second, meta::resourceVersion(**written), changes, wake);
      }
    }
    if (finished) markFinalStatusSaved(uid);
    return wake ? ReconcileResult{*wake - now} : ReconcileResult{};
  }

  Manager& manager_;
  BehaviorRegistry defaultBehaviors_;  // when the options name none
  BehaviorRegistry& behaviors_;
  Network* network_;
  const KubeletOptions options_;
  mutable std::mutex mu_;
  Controller* controller_ = nullptr;
  std::unordered_map<std::string, std::unique_ptr<PodRun>> runs_;  // by pod uid
  std::unordered_map<std::string, std::string> uidByKey_;          // "ns/name" -> uid
  std::map<std::string, NodeIpam> ipams_;                          // by node name
  std::uint64_t nextRunId_ = 0;
  bool shutDown_ = false;
};

Kubelet::Kubelet(Manager& manager, KubeletOptions options)
    : impl_(std::make_shared<Impl>(manager, options)) {}
Kubelet::~Kubelet() { impl_->shutDown(); }

Result<std::unique_ptr<Kubelet>> addKubelet(Manager& manager, KubeletOptions options) {
  std::unique_ptr<Kubelet> kubelet(new Kubelet(manager, options));
  if (auto started = kubelet->impl_->start(); !started) return tl::unexpected(started.error());
  return kubelet;
}

std::size_t Kubelet::runningProcesses() const { return impl_->runningProcesses(); }
std::size_t Kubelet::trackedPods() const { return impl_->trackedPods(); }

}  // namespace fakekube
