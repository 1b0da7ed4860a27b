// Quantity: Kubernetes resource quantities ("500m", "2", "1.5", "1Gi", "512Mi", "1G", "1e3",
// "100k") as integers the scheduler can add and compare (k8s.io/apimachinery/pkg/api/resource).
//
// A quantity is a signed decimal number followed by a suffix:
//   binary SI    Ki Mi Gi Ti Pi Ei               (powers of 1024)
//   decimal SI   n u m "" k M G T P E            (powers of 1000; "m" is milli)
//   exponent     e<int> or E<int>                ("1e3" = 1000)
// The canonical integer of a resource is what the scheduler sums: milli-units for cpu ("500m" ->
// 500, "2" -> 2000), plain units for everything else (bytes for memory, counts for pods and
// nvidia.com/gpu). A value that is not whole in those units is rounded up, as Quantity.Value()
// and MilliValue() round up ("1.5m" cpu -> 2, "0.5" gpu -> 1).
//
// Bad input is an error value (400 BadRequest with Kubernetes' message), never a crash: an
// empty string, a malformed number, an unknown suffix, or a value that does not fit in 64 bits.
#pragma once

#include <cstdint>
#include <string_view>

#include "fakekube/api/status.h"

namespace fakekube {

// The value of `text` in thousandths of a unit ("500m" -> 500, "1Ki" -> 1024000).
Result<std::int64_t> parseMilliQuantity(std::string_view text);
// The value of `text` in units, rounded up ("1Gi" -> 1073741824, "100m" -> 1).
Result<std::int64_t> parseQuantity(std::string_view text);
// The canonical integer of `text` as a quantity of `resource`: milli-units for "cpu", units for
// every other resource.
Result<std::int64_t> parseResourceQuantity(std::string_view resource, std::string_view text);
// Whether a resource is counted in milli-units ("cpu").
bool isMilliResource(std::string_view resource);

}  // namespace fakekube
