// The options of each verb, mirroring metav1.{Create,Update,Patch,Delete,List}Options.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fakekube {

struct CreateOptions {
  bool dryRun = false;
  std::string fieldManager;
};

struct UpdateOptions {
  bool dryRun = false;
  std::string fieldManager;
};

enum class PatchType {
  Json,            // application/json-patch+json (RFC 6902)
  Merge,           // application/merge-patch+json (RFC 7386)
  StrategicMerge,  // application/strategic-merge-patch+json (built-in kinds only)
  Apply,           // application/apply-patch+yaml (server-side apply)
};
const char* patchTypeName(PatchType type);  // the media type

struct PatchOptions {
  bool dryRun = false;
  std::string fieldManager;
  bool force = false;  // server-side apply only
};

struct Preconditions {
  std::optional<std::string> uid;
  std::optional<std::string> resourceVersion;
};

struct DeleteOptions {
  // "Background", "Foreground" or "Orphan"; unset means the kind's default (Background).
  std::optional<std::string> propagationPolicy;
  Preconditions preconditions;
  std::optional<std::int64_t> gracePeriodSeconds;
  bool dryRun = false;
};

struct ListOptions {
  std::string labelSelector;
  std::string fieldSelector;
  std::int64_t limit = 0;  // 0 = no limit
  std::string continueToken;
  // "" = most recent, "0" = any, "N" = not older than N (or exactly N with Exact).
  std::string resourceVersion;
  std::string resourceVersionMatch;  // "", "NotOlderThan", "Exact"
};

}  // namespace fakekube
