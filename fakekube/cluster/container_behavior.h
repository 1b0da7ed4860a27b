// Container behaviour: what a simulated container *does* once the kubelet simulation starts it.
//
// A container's process is a small C++ object (Process) chosen by a BehaviorRegistry from the
// container's image or command. The process lives in virtual time: it acts through its
// ProcessContext, which lets it
//   exit(code)              end the process (the kubelet then applies the pod's restartPolicy)
//   setReady(bool)          answer readiness, as a readinessProbe would (ready by default; the
//                           kubelet still waits for the readiness delay before reporting Ready)
//   after(delay, fn)        run fn on the executor later, unless the process has ended by then
//   print(text)             write to the container's log (each line stamped with now();
//                           `kubectl logs` reads it, container_logs.h)
//   pod(), container(), podIp(), restartCount(), now(), executor()
//   listen(port, handler)   serve HTTP-shaped requests on (pod IP, port) until the process ends
//   call(host, port, req)   reach another program by Service name, ClusterIP or pod IP, or one of
//                           the pod's own containers on localhost (network.h)
// The kubelet stops a process (Process::stop) when the pod is deleted or its node's pods are
// evicted; after that, or after exit(), every context call does nothing (listen and call fail).
// Calls from a process take effect in a task of their own, so a process may exit() inside start().
//
// The registry tries its rules most recent first, so a test adds the general rule, then the
// exceptions; a rule matches an exact image, an image prefix, a substring of the command line
// (command and args joined by spaces), or any predicate of the pod and container. With no match:
// the default behaviour, "run forever" for containers and "exit 0 after 1 s" for init containers.
//
// Built-in behaviours: runForever(), exitAfter(d, code), crashLoop(d, code) (exit after d every
// time it is started, which restartPolicy Always turns into CrashLoopBackOff), neverReady().
// Each prints one line when it starts, saying what was simulated:
//   fakekube: simulated container "web" (image nginx:1.27, command nginx -g daemon off;): runs
//   until stopped
// The Ray simulation (controllers/ray/sim/: the Ray head serving the Jobs API, workers,
// wait-gcs-ready, the submitter's `ray job` script) is a set of behaviours on this hook.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/cluster/network.h"
#include "fakekube/sim/clock.h"
#include "fakekube/sim/executor.h"

namespace fakekube {

class ProcessContext {
 public:
  virtual ~ProcessContext() = default;

  // Ends the process with `code` (the first call counts).
  virtual void exit(int code) = 0;
  // The process's readiness, as its readiness probe would report it.
  virtual void setReady(bool ready) = 0;
  // Runs fn after `delay` of the executor's clock, if the process is still running then.
  virtual void after(Duration delay, std::function<void()> fn) = 0;
  // Whether the process is still running (not exited, not stopped).
  virtual bool alive() const = 0;
  // Writes `text` and a newline to the container's log, as puts() would: each piece between
  // '\n's is one log line, stamped with now(). Nothing happens once the process ended.
  virtual void print(std::string_view text) = 0;

  virtual TimePoint now() const = 0;
  virtual Executor& executor() const = 0;
  // The pod as it was when the container started, and the container's spec.
  virtual const Json& pod() const = 0;
  virtual const Json& container() const = 0;
  virtual const std::string& podIp() const = 0;
  virtual int restartCount() const = 0;

  // Serves (pod IP, port) until the process ends. Fails when the address is in use or there is
  // no network.
  virtual NetworkResult<void> listen(int port, HttpHandler handler) = 0;
  // Calls host:port from this pod (short Service names resolve in the pod's namespace;
  // localhost and 127.0.0.1 are this pod, whichever of its containers listens).
  virtual NetworkResult<HttpResponse> call(std::string_view host, int port,
                                           const HttpRequest& request) = 0;
};

class Process {
 public:
  virtual ~Process() = default;
  // The container started. The context stays valid as long as the process holds it.
  virtual void start(std::shared_ptr<ProcessContext> context) = 0;
  // The kubelet kills the container (pod deleted, evicted). Listeners are closed by the kubelet.
  virtual void stop() {}
};

using ProcessFactory = std::function<std::unique_ptr<Process>()>;

namespace behavior {
// Runs until stopped; ready.
ProcessFactory runForever();
// Exits with `code` after `duration` (each time it is started).
ProcessFactory exitAfter(Duration duration, int code);
// Exits with `code` after `duration`, every time: a crash loop under restartPolicy Always.
ProcessFactory crashLoop(Duration duration, int code = 1);
// Runs until stopped and never becomes ready.
ProcessFactory neverReady();
// A process made of one function: start(context) calls it; stop() does nothing.
ProcessFactory fromFunction(std::function<void(std::shared_ptr<ProcessContext>)> fn);
}  // namespace behavior

class BehaviorRegistry {
 public:
  using Matcher = std::function<bool(const Json& pod, const Json& container, bool init)>;

  // runForever() for containers, exitAfter(1 s, 0) for init containers.
  BehaviorRegistry();

  // Rules; the most recently added matching rule wins.
  void onImage(std::string image, ProcessFactory factory);
  void onImagePrefix(std::string prefix, ProcessFactory factory);
  void onCommand(std::string substring, ProcessFactory factory);
  void on(Matcher matcher, ProcessFactory factory);

  void setDefault(ProcessFactory factory);
  void setInitDefault(ProcessFactory factory);

  // The factory for this container of this pod.
  ProcessFactory match(const Json& pod, const Json& container, bool init) const;

  // "command... args..." joined by single spaces.
  static std::string commandLine(const Json& container);

 private:
  struct Rule {
    Matcher matcher;
    ProcessFactory factory;
  };
  std::vector<Rule> rules_;
  ProcessFactory default_;
  ProcessFactory initDefault_;
};

}  // namespace fakekube
