#include "fakekube/apiserver/internal/patching.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/internal/strategic_merge_patch.h"
#include "fakekube/api/json_patch.h"
#include "fakekube/api/merge_patch.h"

namespace fakekube::patching {

namespace {

constexpr std::size_t kFieldManagerMaxLength = 128;

std::string stringMember(const Json& object, std::string_view name) {
  if (!object.is_object()) return "";
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::optional<Status> validateOptions(PatchType type, const PatchOptions& options) {
  FieldErrors errors;
  if (type != PatchType::Apply) {
    if (options.force) {
      errors.push_back(FieldError::forbidden("force", "may not be specified for non-apply patch"));
    }
  } else if (options.fieldManager.empty()) {
    errors.push_back(FieldError::required("fieldManager", "is required for apply patch"));
  }
  const std::string& manager = options.fieldManager;
  if (manager.size() > kFieldManagerMaxLength) {
    errors.push_back(FieldError::tooLong(
        "fieldManager", fmt::format("must have at most {} bytes", kFieldManagerMaxLength)));
  }
  for (std::size_t i = 0; i < manager.size(); ++i) {
    const auto c = static_cast<unsigned char>(manager[i]);
    if (c < 0x20 || c == 0x7f) {  // unicode.IsPrint fails on the control characters
      errors.push_back(FieldError::invalidString(
          "fieldManager", manager,
          fmt::format("invalid character U+{:04X} (at position {})", c, i)));
    }
  }
  if (errors.empty()) return std::nullopt;
  return Status::invalid("meta.k8s.io", "PatchOptions", "", errors);
}

Result<Json> patchedObject(const Json& current, PatchType type, std::string_view patchText,
                           const PatchSchema& schema) {
  switch (type) {
    case PatchType::Json: {
      auto patched = applyJsonPatch(current, patchText);
      if (!patched && patched.error().code == 422 && patched.error().details.causes.empty()) {
        // A JSON patch that does not apply is a generic 422 (NewGenericServerResponse without a
        // resource): a fixed message, no causes. (A patched object nested too deep to decode is
        // the 422 Invalid of the decoder, which names the field "patch".)
        return tl::unexpected(Status::generic(
            422, "Invalid", "the server rejected our request due to an error in our request"));
      }
      return patched;
    }
    case PatchType::Merge:
      return applyMergePatch(current, patchText);
    case PatchType::StrategicMerge:
      return applyStrategicMergePatch(current, patchText, schema);
    case PatchType::Apply:
      break;
  }
  return tl::unexpected(Status::internal("apply is not a patch of the current object"));
}

std::optional<Status> checkAppliedConfiguration(const ResourceInfo& info,
                                                const GroupVersionResource& gvr,
                                                const Json& applied) {
  // versionCheckManager: the applied object's group, version and kind must be the request's.
  const GroupVersion gv = GroupVersion::parse(stringMember(applied, "apiVersion"));
  const std::string kind = stringMember(applied, "kind");
  if (gv.group != gvr.group || gv.version != gvr.version || kind != info.kind) {
    return Status::badRequest(
        fmt::format("invalid object type: {}/{}, Kind={}", gv.group, gv.version, kind));
  }
  if (applied.contains("metadata") && applied["metadata"].is_object() &&
      applied["metadata"].contains("managedFields") &&
      !applied["metadata"]["managedFields"].is_null()) {
    return Status::badRequest("metadata.managedFields must be nil");
  }
  return std::nullopt;
}

}  // namespace fakekube::patching
