// CheckClusterResource of the coscheduling plugin (core.go): whether the nodes' free resources,
// counted without the group's own pods, add up to a PodGroup's minResources (and its minMember
// pods), and the "resource gap" when they do not.
//
// The gap is printed as scheduler-plugins prints it, fmt's %v of a v1.ResourceList: Quantity's
// String has a pointer receiver, so each value shows as the Quantity struct,
// {{<value> <scale>} {<nil>}  <format>}, after the subtractions that left it:
//
//   resource gap: map[cpu:{{4000 -3} {<nil>}  DecimalSI} pods:{{1 0} {<nil>}  DecimalSI}]
//
// which is why quantities here are kept as Go keeps them (GoQuantity: an int64 and a decimal
// scale, and the format of the text they were parsed from) rather than as canonical integers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/cluster/scheduler_framework.h"

namespace fakekube::coscheduling {

// resource.Quantity in its int64Amount form: value x 10^scale.
struct GoQuantity {
  std::int64_t value = 0;
  std::int32_t scale = 0;
  std::string format = "DecimalSI";  // DecimalSI, BinarySI, DecimalExponent

  // resource.ParseQuantity's fast path; nullopt for text it does not take (or that needs its
  // arbitrary-precision form: a binary suffix with a fraction, too many digits).
  static std::optional<GoQuantity> parse(std::string_view text);
  // A quantity from a JSON value (a string, or a number as json.Unmarshal reads it).
  static std::optional<GoQuantity> fromJson(const Json& value);

  int sign() const { return value > 0 ? 1 : value < 0 ? -1 : 0; }
  // Quantity.Sub: the result takes the smaller scale.
  void sub(const GoQuantity& other);
  // fmt's %v of the Quantity value.
  std::string goString() const;
};

using GoResourceList = std::map<std::string, GoQuantity>;

// The minResources of a PodGroup, with "pods" = minMember (as PreFilter builds the request).
// nullopt when a quantity cannot be read.
std::optional<GoResourceList> minResourcesRequest(const Json& podGroup);

// CheckClusterResource: nullopt when `nodes` (each counted without the pods of `groupFullName`)
// hold `request`; else the error message, "resource gap: map[...]".
std::optional<std::string> checkClusterResource(const std::vector<scheduling::NodeResources>& nodes,
                                                GoResourceList request,
                                                const std::string& groupFullName);

}  // namespace fakekube::coscheduling
