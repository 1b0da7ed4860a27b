// The options of each verb, mirroring metav1.{Create,Update,Patch,Delete,List}Options.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fakekube {

// What a write does with the fields of a built-in object its Go type does not have
// (metav1.FieldValidation; api/internal/builtin_pruning.h). They are dropped in every case; the
// directive says what the caller hears of it. (Server-side apply refuses them whatever it says.)
enum class FieldValidation {
  Ignore,  // nothing
  Warn,    // a warning each, `unknown field "spec.foo"` (kube-apiserver's default)
  Strict,  // the request fails (400, or 422 for a patch) and nothing is written
};

// A write's warnings, as kube-apiserver sends them in `Warning: 299 - "..."` headers. A caller
// that wants them points `warnings` at a vector the server appends to (only during the call);
// the HTTP server turns them into headers, which RestClient reads back into `warnings`.
struct WriteWarnings {
  FieldValidation fieldValidation = FieldValidation::Warn;
  std::vector<std::string>* warnings = nullptr;
};

struct CreateOptions : WriteWarnings {
  bool dryRun = false;
  std::string fieldManager;
};

struct UpdateOptions : WriteWarnings {
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

struct PatchOptions : WriteWarnings {
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
