// The selector of PodTopologySpread's system default constraints (kube-scheduler's
// helper.DefaultSelector): for a pod, the merged spec.selector of the Services in its namespace
// that select it (a Service without a selector selects nothing), plus the selector of its
// controller when that is a ReplicationController, ReplicaSet or StatefulSet. Empty: nothing
// selects the pod, and no default constraint applies to it.
//
// ServiceSelectorIndex keeps the Services' selectors from the informer's events, each filed under
// one of its (key, value) pairs: the one fewest other Services are filed under when it arrives,
// which for generated Services is the pair naming their owner. A pod then reads only the
// Services filed under its own labels, not every Service of the namespace.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "fakekube/api/json.h"
#include "fakekube/api/label_selector.h"
#include "fakekube/client/client.h"

namespace fakekube::scheduling {

class ServiceSelectorIndex {
 public:
  void upsert(const Json& service);
  void remove(const Json& service);
  // labels.Merge of the selectors of the Services in `ns` that select `labels`.
  Json mergedSelectorFor(std::string_view ns, const Json& labels) const;

 private:
  struct Entry {
    Json selector;
    std::string filedUnder;  // pairKey
  };
  static std::string pairKey(std::string_view ns, std::string_view key, std::string_view value);

  std::unordered_map<std::string, Entry> services_;  // "<ns>/<name>"
  std::unordered_map<std::string, std::unordered_set<std::string>> byPair_;
};

// The default selector of `pod`: `serviceSelector` (ServiceSelectorIndex::mergedSelectorFor)
// and the selector of its controller (ReplicationController, ReplicaSet, StatefulSet), read
// through `reader`; nullopt when it is empty.
std::optional<LabelSelector> defaultSpreadSelector(const Json& pod, Json serviceSelector,
                                                   Reader& reader);

}  // namespace fakekube::scheduling
