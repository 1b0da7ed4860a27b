#include "fakekube/api/merge_patch.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/internal/json_decode.h"

namespace fakekube {

namespace {

// nlohmann's exception text without its "[json.exception.parse_error.101] " tag.
std::string exceptionMessage(const std::exception& e) {
  std::string_view w = e.what();
  if (w.starts_with("[json.exception.")) {
    if (size_t close = w.find("] "); close != std::string_view::npos) w.remove_prefix(close + 2);
  }
  return std::string(w);
}

}  // namespace

void mergePatchInPlace(Json& doc, const Json& patch) {
  if (!patch.is_object()) {
    doc = patch;
    return;
  }
  if (!doc.is_object()) doc = Json::object();
  // The underlying map rather than items(), whose proxies would take a few hundred bytes of each
  // frame of this recursion (one per level, up to kMaxJsonNestingDepth, json_decode.h).
  for (const auto& [key, value] : patch.get_ref<const Json::object_t&>()) {
    if (value.is_null()) {
      doc.erase(key);
    } else if (value.is_object()) {
      // operator[] inserts a null member when absent, which the recursion turns into {}.
      mergePatchInPlace(doc[key], value);
    } else {
      doc[key] = value;
    }
  }
}

Result<Json> applyMergePatch(const Json& doc, std::string_view patchText) {
  auto parsed = parseJsonText(patchText);
  if (!parsed) {
    return Error(Status::badRequest(fmt::format("error decoding patch: {}", parsed.error())));
  }
  const Json& patch = *parsed;
  if (!patch.is_object()) {
    return Error(Status::badRequest(fmt::format(
        "error decoding patch: a merge patch must be a JSON object, not {}", patch.type_name())));
  }
  try {
    Json out = doc;
    mergePatchInPlace(out, patch);
    return out;
  } catch (const std::exception& e) {
    // Not expected: merging only reads and assigns checked values.
    return Error(Status::internal(fmt::format("applying merge patch: {}", exceptionMessage(e))));
  }
}

Json createMergePatch(const Json& original, const Json& modified) {
  if (!original.is_object() || !modified.is_object()) return modified;
  Json patch = Json::object();
  for (const auto& [key, value] : original.get_ref<const Json::object_t&>()) {
    if (!modified.contains(key)) patch[key] = nullptr;
  }
  for (const auto& [key, value] : modified.get_ref<const Json::object_t&>()) {
    auto old = original.find(key);
    if (old == original.end()) {
      patch[key] = value;
    } else if (*old != value) {
      patch[key] = old->is_object() && value.is_object() ? createMergePatch(*old, value) : value;
    }
  }
  return patch;
}

}  // namespace fakekube
