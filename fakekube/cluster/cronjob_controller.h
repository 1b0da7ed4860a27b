// The CronJob controller of kube-controller-manager (pkg/controller/cronjob, the v2 controller), on
// a Manager, on the executor's clock: Jobs from spec.jobTemplate at the times spec.schedule names
// (cron_schedule.h; spec.timeZone only "UTC" or "Etc/UTC").
//
//   scheduling   at each sync the most recent scheduled time not later than now and after
//                status.lastScheduleTime (the creation time at first) is due; earlier missed
//                ones are skipped (more than 100 earn a TooManyMissedTimes warning). With
//                spec.startingDeadlineSeconds a time older than that is missed, not run. The
//                controller requeues itself for the next scheduled time.
//   the Job      named <cronjob>-<scheduled time in minutes since the epoch>, the jobTemplate's
//                labels, annotations and spec, annotation batch.kubernetes.io/cronjob-scheduled-
//                timestamp, controlled by the CronJob. A name that already exists is not run twice.
//   concurrency  Allow runs alongside active Jobs; Forbid skips the time while one is active;
//                Replace deletes the active Jobs (background propagation) and runs the new one.
//   suspend      no new Jobs; active ones keep running.
//   status       active (references to the unfinished Jobs it owns), lastScheduleTime,
//                lastSuccessfulTime (the latest completionTime of a Complete Job).
//   history      finished Jobs beyond successfulJobsHistoryLimit (default 3) and
//                failedJobsHistoryLimit (default 1) are deleted, oldest first.
//
// Events as upstream: SuccessfulCreate, SawCompletedJob, SuccessfulDelete, MissSchedule,
// JobAlreadyActive, UnknownTimeZone / InvalidSchedule.
#pragma once

#include "fakekube/api/status.h"
#include "fakekube/runtime/controller.h"
#include "fakekube/runtime/manager.h"

namespace fakekube {

struct CronJobControllerOptions {
  // --concurrent-cron-job-syncs.
  int workers = 5;
  bool recordEvents = true;
};

// Registers the controller on `manager`; its name is "cronjob".
Result<Controller*> addCronJobController(Manager& manager, CronJobControllerOptions options = {});

}  // namespace fakekube
