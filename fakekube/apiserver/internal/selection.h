// Selection: the label and field selectors of a LIST or WATCH, parsed and checked against what
// the kind supports, and matched against objects. LIST and WATCH must select exactly alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fakekube/api/field_selector.h"
#include "fakekube/api/json.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/api/status.h"

namespace fakekube {

// Selections match stored objects: for a kind served over another kind's storage, the field
// labels are converted to the stored kind's (regarding.name to involvedObject.name), as
// kube-apiserver converts them before its storage selects.
struct Selection {
  LabelSelector labels;
  FieldSelector fields;
  // ResourceInfo::selectableField of the stored kind; nullptr reads each label as its path.
  std::optional<std::string_view> (*selectableField)(const Json&, std::string_view) = nullptr;

  // 400 BadRequest for a malformed selector, or `field label not supported: <label>` for a field
  // the kind does not index.
  static Result<Selection> parse(const ResourceInfo& info, std::string_view labelSelector,
                                 std::string_view fieldSelector);

  bool empty() const { return labels.empty() && fields.empty(); }
  bool matches(const Json& object) const;
};

// The resourceVersion of a LIST or WATCH as a store revision: 400 BadRequest `invalid resource
// version: <rv>` unless it is a decimal number of at most 18 digits.
Result<std::int64_t> parseResourceVersion(const std::string& rv);

}  // namespace fakekube
