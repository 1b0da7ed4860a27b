// StoryTrace: `fakekube demo --trace FILE.json`: the demo's stories as Chrome trace-event JSON,
// which Perfetto (ui.perfetto.dev) and chrome://tracing open, in the shape fixtures/chrome_trace.h
// gives a crashtest run (so fixtures/timeline_page.h draws it as well):
//
//   one process, "fakekube demo"
//   a "chapters" track      each chapter of the timeline a slice, from its title to the next
//   one track per controller "<component>/<controller>": cluster/deployment, cluster/scheduler,
//                           kuberay/rayjob, volcano/volcano-scheduler, ...; each reconcile a
//                           slice ("reconcile default/demo-job"; a reconcile takes no virtual
//                           time, so slices are drawn 1 ms wide)
//
// Every story runs on a SimExecutor of its own whose clock starts at the same instant; the
// trace lays the stories one after another on one virtual-time axis (a story starts 1 s after
// the last thing the one before it recorded). A story is noticed by its clock going back.
// Timestamps are in microseconds. Single-threaded, as the stories are.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::cli {

class StoryTrace {
 public:
  // A chapter's title, at the executor's now.
  void chapter(SimExecutor& executor, const std::string& title);
  // What a manager's options take to draw the reconciles of its controllers on the tracks
  // "<component>/<controller>". The trace and the executor must outlive the manager.
  ReconcileObserver observer(SimExecutor& executor, const std::string& component);

  Json chromeTrace() const;

 private:
  struct Slice {
    std::string track;
    std::string name;
    std::int64_t begin = 0;  // microseconds on the demo's axis
    std::int64_t end = 0;
  };

  // The executor's now on the demo's axis.
  std::int64_t at(SimExecutor& executor);

  std::vector<Slice> chapters_;
  std::vector<Slice> reconciles_;
  std::int64_t offset_ = 0;    // where the running story's clock starts on the axis
  std::int64_t storyNow_ = 0;  // the running story's clock, last seen
  std::int64_t last_ = 0;      // the latest instant recorded
};

// What every story of `fakekube demo` is told with.
struct StoryOptions {
  bool color = false;
  // --trace / --timeline: where the chapters and the reconciles go (null: nowhere).
  StoryTrace* trace = nullptr;

  // The options of a manager a story runs on `executor`: with a trace, the reconciles of its
  // controllers are drawn on "<component>/<controller>".
  ManagerOptions manager(SimExecutor& executor, const std::string& component) const {
    ManagerOptions options;
    if (trace != nullptr) options.reconcileObserver = trace->observer(executor, component);
    return options;
  }
};

}  // namespace fakekube::cli
