// Durations as Go's time.ParseDuration reads them, the spelling kubectl and KubeRay users type:
// a sequence of decimal numbers, each with an optional fraction and a unit ("90s", "1.5h",
// "1h30m", "250ms"); units ns, us (or µs), ms, s, m, h. "0" needs no unit. A sign is accepted
// as Go accepts one. Anything else is a 400 naming the input, as Go's error does.
#pragma once

#include <string_view>

#include "fakekube/api/status.h"
#include "fakekube/sim/clock.h"

namespace fakekube::cli {

Result<Duration> parseGoDuration(std::string_view text);

}  // namespace fakekube::cli
