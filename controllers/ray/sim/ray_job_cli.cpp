#include "controllers/ray/sim/ray_job_cli.h"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <vector>

#include "controllers/ray/constants.h"
#include "controllers/ray/sim/internal/shell.h"
#include "fakekube/api/object_meta.h"

namespace fakekube::ray {

namespace {

struct Address {
  std::string host;
  int port = kDefaultDashboardPort;
  std::string shown;  // as given, for messages

  std::string url() const { return fmt::format("http://{}:{}", host, port); }
};

// http://HOST[:PORT][/...] or HOST[:PORT].
std::optional<Address> parseAddress(std::string_view text) {
  Address address;
  address.shown = std::string(text);
  if (text.starts_with("http://")) text.remove_prefix(7);
  if (auto slash = text.find('/'); slash != std::string_view::npos) text = text.substr(0, slash);
  if (text.empty()) return std::nullopt;
  if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
    std::string port(text.substr(colon + 1));
    if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos ||
        port.size() > 5) {
      return std::nullopt;
    }
    address.port = std::stoi(port);
    text = text.substr(0, colon);
  }
  address.host = std::string(text);
  return address;
}

// The URL of a python urlopen('URL' ...) health check, if `code` is one.
std::optional<std::string> urlopenTarget(const std::string& code) {
  const std::string marker = "urlopen('";
  auto at = code.find(marker);
  if (at == std::string::npos) return std::nullopt;
  auto end = code.find('\'', at + marker.size());
  if (end == std::string::npos) return std::nullopt;
  return code.substr(at + marker.size(), end - at - marker.size());
}

// j[key] when j is an object and it is a string, else `fallback` (answers are read defensively:
// value() would throw on a member of another type).
std::string textOf(const Json& j, const char* key, std::string fallback = "") {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool isTerminal(std::string_view status) {
  return status == "SUCCEEDED" || status == "FAILED" || status == "STOPPED";
}

// The parsed arguments of one `ray job <verb>`.
struct JobArguments {
  std::map<std::string, std::string> values;
  std::set<std::string> flags;
  std::vector<std::string> positional;
  std::vector<std::string> entrypoint;  // after --
};

JobArguments parseJobArguments(const std::vector<std::string>& argv, std::size_t from) {
  static const std::set<std::string> kWithValue = {"--address",
                                                   "--submission-id",
                                                   "--job-id",
                                                   "--runtime-env-json",
                                                   "--metadata-json",
                                                   "--entrypoint-num-cpus",
                                                   "--entrypoint-num-gpus",
                                                   "--entrypoint-memory",
                                                   "--entrypoint-resources",
                                                   "--working-dir",
                                                   "--runtime-env",
                                                   "--headers",
                                                   "--log-style",
                                                   "--log-color",
                                                   "--verify"};
  JobArguments args;
  for (std::size_t i = from; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--") {
      args.entrypoint.assign(argv.begin() + static_cast<std::ptrdiff_t>(i) + 1, argv.end());
      break;
    }
    if (a.starts_with("--")) {
      auto eq = a.find('=');
      std::string name = eq == std::string::npos ? a : a.substr(0, eq);
      if (eq != std::string::npos) {
        args.values[name] = a.substr(eq + 1);
      } else if (kWithValue.contains(name) && i + 1 < argv.size()) {
        args.values[name] = argv[++i];
      } else {
        args.flags.insert(name);
      }
      continue;
    }
    if (a == "-f") {
      args.flags.insert("--follow");
      continue;
    }
    args.positional.push_back(a);
  }
  return args;
}

// A line the `ray` command prints: into the container's log, and to options.output when set.
void printLine(const RayCliOptions& options, ProcessContext& context, std::string line) {
  context.print(line);
  if (!options.output) return;
  const Json& pod = context.pod();
  options.output({meta::namespace_(pod), meta::name(pod), context.container().value("name", ""),
                  std::move(line), context.now()});
}

// One container's shell and its `ray` commands.
class CliProgram : public std::enable_shared_from_this<CliProgram> {
 public:
  CliProgram(RayCliOptions options, std::shared_ptr<ProcessContext> context)
      : options_(std::move(options)), context_(std::move(context)) {
    for (const auto& e : context_->container().value("env", Json::array())) {
      if (e.is_object() && e.contains("name") && e.contains("value") && e["value"].is_string()) {
        env_[e["name"].get<std::string>()] = e["value"].get<std::string>();
      }
    }
  }

  void start() {
    // The script runs in a task of its own: the first command may call other programs, and
    // Process::start runs inside the kubelet.
    std::weak_ptr<CliProgram> weak = weak_from_this();
    context_->after(Duration{0}, [weak] {
      if (auto self = weak.lock()) self->run();
    });
  }

  void stop() {
    std::shared_ptr<ShellRun> run;
    {
      std::lock_guard lock(mu_);
      stopped_ = true;
      run = run_;
    }
    if (run) run->cancel();
  }

  void print(std::string line) { printLine(options_, *context_, std::move(line)); }

 private:
  // The shell and its script from command + args: `bash [-flags]... [--] SCRIPT`. A container
  // that is not a shell runs its words as one command.
  void run() {
    std::vector<std::string> argv;
    for (const char* field : {"command", "args"}) {
      for (const auto& part : context_->container().value(field, Json::array())) {
        if (part.is_string()) argv.push_back(part.get<std::string>());
      }
    }
    if (argv.empty()) {
      context_->exit(0);
      return;
    }
    std::string shell = argv[0];
    if (auto slash = shell.rfind('/'); slash != std::string::npos) shell = shell.substr(slash + 1);
    bool errexit = false;
    std::string text;
    if (shell == "bash" || shell == "sh") {
      bool script = false;
      std::size_t i = 1;
      for (; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a == "--") {
          ++i;
          break;
        }
        if (a.size() < 2 || a[0] != '-') break;
        if (a.find('c') != std::string::npos) script = true;
        if (a.find('e') != std::string::npos) errexit = true;
      }
      if (!script || i >= argv.size()) {
        print(fmt::format("{}: only `{} -c SCRIPT` is simulated", shell, shell));
        context_->exit(2);
        return;
      }
      text = argv[i];
    } else {
      std::vector<std::string> quoted;
      for (const auto& a : argv) quoted.push_back(shellQuote(a));
      text = fmt::format("{}", fmt::join(quoted, " "));
    }
    auto script = parseShell(text, [this](std::string_view name) -> const std::string* {
      auto it = env_.find(std::string(name));
      return it == env_.end() ? nullptr : &it->second;
    });
    if (!script) {
      print(fmt::format("{}: -c: line 1: {}", shell, script.error().message));
      context_->exit(2);
      return;
    }
    ShellOptions options;
    options.errexit = errexit;
    std::weak_ptr<ProcessContext> context = context_;
    options.after = [context](Duration delay, std::function<void()> fn) {
      if (auto c = context.lock()) c->after(delay, std::move(fn));
    };
    std::weak_ptr<CliProgram> weak = weak_from_this();
    options.print = [weak](std::string line) {
      if (auto self = weak.lock()) self->print(std::move(line));
    };
    options.command = [weak](ShellRun& run, const ShellCall& call, std::function<void(int)> done) {
      if (auto self = weak.lock()) self->command(run, call, std::move(done));
    };
    {
      std::lock_guard lock(mu_);
      if (stopped_) return;
    }
    auto run = ShellRun::start(*script, std::move(options), [context](int status) {
      if (auto c = context.lock()) c->exit(status);
    });
    std::lock_guard lock(mu_);
    run_ = run;
    if (stopped_) run->cancel();
  }

  static std::string shellQuote(const std::string& word) {
    std::string out = "'";
    for (char c : word) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    return out + "'";
  }

  void command(ShellRun& run, const ShellCall& call, std::function<void(int)> done) {
    const auto& argv = call.argv;
    std::string name = argv[0];
    if (auto slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
    if (name.starts_with("python") && argv.size() >= 3 && argv[1] == "-c") {
      if (auto url = urlopenTarget(argv[2])) {
        healthCheck(run, call, *url, std::move(done));
        return;
      }
    }
    if (name == "ray" && argv.size() >= 2 && argv[1] == "job" && argv.size() >= 3) {
      rayJob(run, call, std::move(done));
      return;
    }
    if (name == "ray" && argv.size() >= 2 && argv[1] == "health-check") {
      JobArguments args = parseJobArguments(argv, 2);
      auto address = parseAddress(args.values["--address"]);
      if (!address) {
        done(1);
        return;
      }
      auto answer = context_->call(address->host, address->port, HttpRequest{.path = "/"});
      if (!answer) run.print(call, answer.error().message);
      done(answer ? 0 : 1);
      return;
    }
    if (run.runBuiltin(call, done)) return;
    run.print(call, fmt::format("bash: line 1: {}: command not found", argv[0]));
    done(127);
  }

  void healthCheck(ShellRun& run, const ShellCall& call, const std::string& url,
                   std::function<void(int)> done) {
    auto address = parseAddress(url);
    std::string path = "/";
    if (auto at = url.find('/', url.starts_with("http://") ? 7 : 0); at != std::string::npos) {
      path = url.substr(at);
    }
    if (!address) {
      run.print(call, fmt::format("ValueError: unknown url type: '{}'", url));
      done(1);
      return;
    }
    auto answer = context_->call(address->host, address->port, HttpRequest{.path = path});
    if (!answer) {
      run.print(call,
                fmt::format("urllib.error.URLError: <urlopen error {}>", answer.error().message));
      done(1);
      return;
    }
    if (answer->status != 200) {
      run.print(call, fmt::format("urllib.error.HTTPError: HTTP Error {}", answer->status));
      done(1);
      return;
    }
    done(answer->body.find("success") != std::string::npos ? 0 : 1);
  }

  // GET/POST/DELETE on the dashboard at `address`; nullopt (printed) on a connection failure.
  std::optional<HttpResponse> dashboard(ShellRun& run, const ShellCall& call,
                                        const Address& address, HttpRequest request) {
    request.headers["Content-Type"] = "application/json";
    auto answer = context_->call(address.host, address.port, request);
    if (!answer) {
      run.print(call, fmt::format("ConnectionError: Failed to connect to Ray at address: {}.",
                                  address.shown));
      return std::nullopt;
    }
    return *answer;
  }

  void rayJob(ShellRun& run, const ShellCall& call, std::function<void(int)> done) {
    const std::string verb = call.argv[2];
    JobArguments args = parseJobArguments(call.argv, 3);
    std::string addressText = args.values["--address"];
    if (addressText.empty()) {
      auto it = env_.find("RAY_ADDRESS");
      if (it != env_.end()) addressText = it->second;
    }
    auto address = parseAddress(addressText);
    if (!address) {
      run.print(call,
                "ConnectionError: Could not find any running Ray instance. Please specify "
                "the one to connect to by setting `--address` flag or `RAY_ADDRESS` "
                "environment variable.");
      done(1);
      return;
    }
    // Every `ray job` command says where it goes first.
    run.print(call, fmt::format("Job submission server address: {}", address->url()));
    std::string id = args.positional.empty() ? "" : args.positional[0];
    if (verb == "status") {
      auto answer = dashboard(run, call, *address, HttpRequest{.path = "/api/jobs/" + id});
      if (!answer) return done(1);
      if (answer->status == 404) {
        run.print(call, fmt::format("RuntimeError: Request failed with status code 404: {}.",
                                    answer->body));
        return done(1);
      }
      Json info = Json::parse(answer->body, nullptr, false);
      if (answer->status != 200 || !info.is_object()) return done(1);
      run.print(call, fmt::format("Job status for '{}': {}.", id, textOf(info, "status")));
      run.print(call, fmt::format("Status message: {}", textOf(info, "message")));
      return done(0);
    }
    if (verb == "submit") return submit(run, call, *address, args, std::move(done));
    if (verb == "logs") {
      if (args.flags.contains("--follow")) {
        auto printed = std::make_shared<std::size_t>(0);
        follow(run.shared_from_this(), call, *address, id, printed, std::move(done));
        return;
      }
      auto answer =
          dashboard(run, call, *address, HttpRequest{.path = "/api/jobs/" + id + "/logs"});
      if (!answer || answer->status != 200) return done(1);
      Json logs = Json::parse(answer->body, nullptr, false);
      printLines(run, call, textOf(logs, "logs"));
      return done(0);
    }
    if (verb == "stop") {
      auto answer = dashboard(run, call, *address,
                              HttpRequest{.method = "POST", .path = "/api/jobs/" + id + "/stop"});
      if (!answer || answer->status != 200) return done(1);
      run.print(call, fmt::format("Attempting to stop job '{}'", id));
      return done(0);
    }
    if (verb == "delete") {
      auto answer = dashboard(run, call, *address,
                              HttpRequest{.method = "DELETE", .path = "/api/jobs/" + id});
      if (!answer || answer->status != 200) return done(1);
      run.print(call, fmt::format("Job '{}' deleted successfully", id));
      return done(0);
    }
    if (verb == "list") {
      auto answer = dashboard(run, call, *address, HttpRequest{.path = "/api/jobs/"});
      if (!answer || answer->status != 200) return done(1);
      run.print(call, answer->body);
      return done(0);
    }
    run.print(call, fmt::format("Error: No such command '{}'.", verb));
    done(2);
  }

  void submit(ShellRun& run, const ShellCall& call, const Address& address,
              const JobArguments& args, std::function<void(int)> done) {
    Json body = {{"entrypoint", list2cmdline(args.entrypoint)}};
    auto value = [&](const char* flag) -> const std::string* {
      auto it = args.values.find(flag);
      return it == args.values.end() ? nullptr : &it->second;
    };
    std::string id;
    if (const auto* v = value("--submission-id")) id = *v;
    if (id.empty()) {
      if (const auto* v = value("--job-id")) id = *v;
    }
    if (!id.empty()) body["submission_id"] = id;
    for (auto [flag, field] :
         {std::pair{"--runtime-env-json", "runtime_env"}, std::pair{"--metadata-json", "metadata"},
          std::pair{"--entrypoint-resources", "entrypoint_resources"}}) {
      if (const auto* v = value(flag)) {
        Json parsed = Json::parse(*v, nullptr, false);
        if (parsed.is_discarded()) {
          run.print(call, fmt::format("json.decoder.JSONDecodeError: {} is not valid JSON", flag));
          return done(1);
        }
        body[field] = parsed;
      }
    }
    for (auto [flag, field] : {std::pair{"--entrypoint-num-cpus", "entrypoint_num_cpus"},
                               std::pair{"--entrypoint-num-gpus", "entrypoint_num_gpus"}}) {
      if (const auto* v = value(flag)) {
        char* end = nullptr;
        double n = std::strtod(v->c_str(), &end);
        if (end != v->c_str() + v->size()) {
          run.print(call, fmt::format("Error: Invalid value for '{}': '{}' is not a valid float.",
                                      flag, *v));
          return done(2);
        }
        body[field] = n;
      }
    }
    auto answer =
        dashboard(run, call, address,
                  HttpRequest{.method = "POST", .path = "/api/jobs/", .body = body.dump()});
    if (!answer) return done(1);
    if (answer->status < 200 || answer->status > 299) {
      run.print(call, fmt::format("RuntimeError: Request failed with status code {}: {}.",
                                  answer->status, answer->body));
      return done(1);
    }
    Json response = Json::parse(answer->body, nullptr, false);
    const std::string submitted = textOf(response, "submission_id", textOf(response, "job_id", id));
    run.print(call, "-------------------------------------------------------");
    run.print(call, fmt::format("Job '{}' submitted successfully", submitted));
    run.print(call, "-------------------------------------------------------");
    run.print(call, "Next steps");
    run.print(call, fmt::format("  Query the logs of the job:\n    ray job logs {}", submitted));
    run.print(call,
              fmt::format("  Query the status of the job:\n    ray job status {}", submitted));
    run.print(call,
              fmt::format("  Request the job to be stopped:\n    ray job stop {}", submitted));
    if (args.flags.contains("--no-wait")) return done(0);
    run.print(call, "Tailing logs until the job exits (disable with --no-wait):");
    auto printed = std::make_shared<std::size_t>(0);
    follow(run.shared_from_this(), call, address, submitted, printed, std::move(done),
           /*failedOnly=*/true);
  }

  void printLines(ShellRun& run, const ShellCall& call, std::string_view text) {
    while (!text.empty()) {
      auto nl = text.find('\n');
      run.print(call, std::string(text.substr(0, nl)));
      if (nl == std::string_view::npos) break;
      text.remove_prefix(nl + 1);
    }
  }

  // `ray job logs --follow`: print what is new, and end once the job is terminal.
  // `ray job submit` without --no-wait follows too, but fails only for FAILED
  // (`failedOnly`): a STOPPED job ends it with 0, as Ray's CLI does.
  void follow(std::shared_ptr<ShellRun> run, ShellCall call, Address address, std::string id,
              std::shared_ptr<std::size_t> printed, std::function<void(int)> done,
              bool failedOnly = false) {
    auto logs = dashboard(*run, call, address, HttpRequest{.path = "/api/jobs/" + id + "/logs"});
    auto info = dashboard(*run, call, address, HttpRequest{.path = "/api/jobs/" + id});
    if (!logs || !info) return done(1);
    if (logs->status == 404 || info->status == 404) {
      run->print(call,
                 fmt::format("RuntimeError: Request failed with status code 404: {}.", info->body));
      return done(1);
    }
    Json text = Json::parse(logs->body, nullptr, false);
    std::string all = textOf(text, "logs");
    if (all.size() > *printed) {
      printLines(*run, call, std::string_view(all).substr(*printed));
      *printed = all.size();
    }
    Json details = Json::parse(info->body, nullptr, false);
    const std::string status = textOf(details, "status");
    if (isTerminal(status)) {
      run->print(call, "-----------------------------------");
      if (status == "SUCCEEDED") {
        run->print(call, fmt::format("Job '{}' succeeded", id));
      } else if (status == "FAILED") {
        run->print(call, fmt::format("Job '{}' failed", id));
      } else {
        run->print(call, fmt::format("Job '{}' was stopped", id));
      }
      run->print(call, "-----------------------------------");
      if (failedOnly) return done(status == "FAILED" ? 1 : 0);
      return done(status == "SUCCEEDED" ? 0 : 1);
    }
    std::weak_ptr<CliProgram> weak = weak_from_this();
    run->after(options_.followInterval, [weak, run, call, address, id, printed, done, failedOnly] {
      if (auto self = weak.lock()) {
        self->follow(run, call, address, id, printed, done, failedOnly);
      }
    });
  }

  RayCliOptions options_;
  std::shared_ptr<ProcessContext> context_;
  std::map<std::string, std::string> env_;
  std::mutex mu_;  // run_ and stopped_: the kubelet stops the process from its own task
  std::shared_ptr<ShellRun> run_;
  bool stopped_ = false;
};

class ShellProcess final : public Process {
 public:
  explicit ShellProcess(RayCliOptions options) : options_(std::move(options)) {}
  void start(std::shared_ptr<ProcessContext> context) override {
    program_ = std::make_shared<CliProgram>(options_, std::move(context));
    program_->start();
  }
  void stop() override {
    if (program_) program_->stop();
  }

 private:
  RayCliOptions options_;
  std::shared_ptr<CliProgram> program_;
};

// --- wait-gcs-ready ---

// The GCS address `ray health-check --address X` names in a command line.
std::optional<Address> healthCheckAddress(const std::string& commandLine) {
  const std::string marker = "ray health-check --address ";
  auto at = commandLine.find(marker);
  if (at == std::string::npos) return std::nullopt;
  auto start = at + marker.size();
  auto end = commandLine.find_first_of(" ;\n\t", start);
  return parseAddress(commandLine.substr(start, end == std::string::npos ? end : end - start));
}

// The init container's loop; its timers hold it weakly, so a stopped process is never touched.
class GcsWaiter : public std::enable_shared_from_this<GcsWaiter> {
 public:
  GcsWaiter(RayCliOptions options, std::shared_ptr<ProcessContext> context)
      : options_(std::move(options)),
        context_(std::move(context)),
        startedAt_(context_->now()),
        address_(healthCheckAddress(BehaviorRegistry::commandLine(context_->container()))) {}

  void start() { next(Duration{0}); }

 private:
  void next(Duration delay) {
    std::weak_ptr<GcsWaiter> weak = weak_from_this();
    context_->after(delay, [weak] {
      if (auto self = weak.lock()) self->attempt();
    });
  }

  void print(std::string line) { printLine(options_, *context_, std::move(line)); }

  void attempt() {
    if (!address_) {
      print("wait-gcs-ready: no `ray health-check --address` in the command");
      context_->exit(1);
      return;
    }
    if (context_->call(address_->host, address_->port, HttpRequest{.path = "/"})) {
      print("GCS is ready.");
      context_->exit(0);
      return;
    }
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::seconds>(context_->now() - startedAt_).count();
    if (elapsed <= 120) {
      print(fmt::format("{} seconds elapsed: Waiting for GCS to be ready.", elapsed));
    } else {
      print(fmt::format(
          "{} seconds elapsed: Still waiting for GCS to be ready. For troubleshooting, refer to "
          "the FAQ at https://docs.ray.io/en/master/cluster/kubernetes/troubleshooting.html.",
          elapsed));
    }
    next(options_.gcsWaitInterval);
  }

  const RayCliOptions options_;
  const std::shared_ptr<ProcessContext> context_;
  const TimePoint startedAt_;
  const std::optional<Address> address_;
};

class WaitGcsReadyProcess final : public Process {
 public:
  explicit WaitGcsReadyProcess(RayCliOptions options) : options_(std::move(options)) {}

  void start(std::shared_ptr<ProcessContext> context) override {
    waiter_ = std::make_shared<GcsWaiter>(options_, std::move(context));
    waiter_->start();
  }

 private:
  RayCliOptions options_;
  std::shared_ptr<GcsWaiter> waiter_;
};

}  // namespace

ProcessFactory rayShellProcess(RayCliOptions options) {
  return [options = std::move(options)] { return std::make_unique<ShellProcess>(options); };
}

ProcessFactory waitGcsReady(RayCliOptions options) {
  return [options = std::move(options)] { return std::make_unique<WaitGcsReadyProcess>(options); };
}

}  // namespace fakekube::ray
