// The signals that stop `fakekube serve` and `fakekube operator` (SIGINT, SIGTERM), blocked in
// the calling thread before any other thread starts: every thread inherits the mask, so the
// sigwait() on the returned set is the only place they are seen.
#pragma once

#include <signal.h>

namespace fakekube::cli {

inline sigset_t blockStopSignals() {
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
  return stopSignals;
}

}  // namespace fakekube::cli
