// Selection: the label and field selectors of a LIST or WATCH, parsed and checked against what
// the kind supports, and matched against objects. LIST and WATCH must select exactly alike.
#pragma once

#include <string_view>

#include "fakekube/api/field_selector.h"
#include "fakekube/api/json.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/api/resource_registry.h"
#include "fakekube/api/status.h"

namespace fakekube {

struct Selection {
  LabelSelector labels;
  FieldSelector fields;

  // 400 BadRequest for a malformed selector, or `field label not supported: <label>` for a field
  // the kind does not index.
  static Result<Selection> parse(const ResourceInfo& info, std::string_view labelSelector,
                                 std::string_view fieldSelector);

  bool empty() const { return labels.empty() && fields.empty(); }
  bool matches(const Json& object) const;
};

}  // namespace fakekube
