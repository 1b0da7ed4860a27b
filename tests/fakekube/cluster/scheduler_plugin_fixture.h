// Pods and nodes for the placement plugins' table tests (kube-scheduler's st.MakePod /
// st.MakeNode, reduced to what the plugins read).
#pragma once

#include <string>

#include "fakekube/api/json.h"
#include "fakekube/api/object.h"
#include "fakekube/cluster/internal/scheduler_snapshot.h"

namespace fakekube::scheduling::testing {

// A Ready node named `name` with `labels` (no others).
inline ObjectPtr node(const std::string& name, const Json& labels = Json::object()) {
  return std::make_shared<const Json>(
      Json{{"apiVersion", "v1"},
           {"kind", "Node"},
           {"metadata", {{"name", name}, {"labels", labels}}},
           {"spec", Json::object()},
           {"status", {{"conditions", Json::array({{{"type", "Ready"}, {"status", "True"}}})}}}});
}

// A pod with `spec` (its containers left out), labels and namespace; its uid is
// "<namespace>/<name>".
inline Json podWithSpec(const std::string& name, const Json& spec,
                        const Json& labels = Json::object(), const std::string& ns = "default") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name}, {"namespace", ns}, {"uid", ns + "/" + name}, {"labels", labels}}},
          {"spec", spec},
          {"status", {{"phase", "Pending"}}}};
}

inline ObjectPtr shared(Json object) { return std::make_shared<const Json>(std::move(object)); }

}  // namespace fakekube::scheduling::testing
