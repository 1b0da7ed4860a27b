// The patch bodies: JSON patch, merge patch, strategic merge patch and server-side apply, each
// applied to a document given before a "\n---\n" line (or a Pod). A patch that applies yields a
// document within the nesting limit that the writer can write; one that does not is an error
// value with a 4xx or the 500 strategic merge patch answers for its internal errors.
#include <nlohmann/json.hpp>

#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/internal/patch_schema.h"
#include "fakekube/api/internal/server_side_apply.h"
#include "fakekube/api/internal/strategic_merge_patch.h"
#include "fakekube/api/json_patch.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/merge_patch.h"
#include "tools/fuzzing/targets.h"

namespace fakekube::fuzz {

namespace {

const Json& defaultPod() {
  static const Json pod = Json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "namespace": "default", "labels": {"app": "web"},
                 "finalizers": ["a/b"], "ownerReferences": [{"uid": "u1", "name": "o"}]},
    "spec": {"containers": [{"name": "main", "image": "nginx", "ports": [{"containerPort": 80}],
                             "env": [{"name": "A", "value": "1"}]},
                            {"name": "side", "image": "busybox"}],
             "volumes": [{"name": "v", "emptyDir": {}}], "tolerations": [{"key": "k"}]},
    "status": {"conditions": [{"type": "Ready", "status": "True"}]}})");
  return pod;
}

// The document to patch: the input's, when it has one that decodes, else the Pod.
Json documentOf(std::string_view text) {
  if (text.empty()) return defaultPod();
  auto parsed = parseJsonText(text);
  return parsed ? std::move(*parsed) : defaultPod();
}

void checkOutcome(const Result<Json>& patched) {
  if (!patched) {
    const int code = patched.error().code;
    require((code >= 400 && code < 500) || code == 500, "a patch error is not a Status code");
    return;
  }
  require(jsonNestingDepth(*patched) <= kMaxJsonNestingDepth, "a patch nested past the limit");
  (void)toJsonText(*patched);
}

}  // namespace

void jsonPatch(std::string_view input) {
  auto [document, patch] = splitDocument(input);
  checkOutcome(applyJsonPatch(documentOf(document), patch));
}

void mergePatch(std::string_view input) {
  auto [document, patch] = splitDocument(input);
  const Json doc = documentOf(document);
  auto patched = applyMergePatch(doc, patch);
  checkOutcome(patched);
  // The merge patch between the two documents turns the one into the other.
  if (patched && doc.is_object() && patched->is_object()) {
    Json back = doc;
    mergePatchInPlace(back, createMergePatch(doc, *patched));
    require(toJsonText(back) == toJsonText(*patched), "createMergePatch does not round-trip");
  }
}

void strategicPatch(std::string_view input) {
  auto [document, patch] = splitDocument(input);
  checkOutcome(
      applyStrategicMergePatch(documentOf(document), patch, PatchSchema::forKind("", "Pod")));
}

void serverSideApply(std::string_view input) {
  auto [document, body] = splitDocument(input);
  auto applied = parseAppliedConfiguration(body);
  if (!applied) {
    require(applied.error().code == 400, "an apply body error is not a 400");
    return;
  }
  require(applied->is_object(), "an apply configuration is not an object");
  Json live = documentOf(document);
  mergeAppliedConfiguration(live, *applied, PatchSchema::forKind("", "Pod"));
  checkOutcome(live);
}

}  // namespace fakekube::fuzz
