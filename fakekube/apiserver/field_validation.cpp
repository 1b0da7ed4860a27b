#include "fakekube/apiserver/internal/field_validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/api/internal/builtin_pruning.h"
#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/internal/structural_schema.h"

namespace fakekube::fieldvalidation {

namespace {

std::string memberString(const Json& object, std::string_view name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// The apiVersion the body is decoded in: its own, else the one the request addresses.
std::string apiVersionOf(const ResourceInfo& info, const Json& object) {
  std::string apiVersion = memberString(object, "apiVersion");
  return apiVersion.empty() ? info.apiVersion() : apiVersion;
}

// runtime.NewStrictDecodingError's text.
std::string strictDecodingError(const std::vector<std::string>& unknown) {
  std::vector<std::string> errors;
  errors.reserve(unknown.size());
  for (const std::string& path : unknown) errors.push_back("unknown field " + goQuote(path));
  return fmt::format("strict decoding error: {}", fmt::join(errors, ", "));
}

void warn(const std::vector<std::string>& unknown, const WriteWarnings& options) {
  if (options.fieldValidation != FieldValidation::Warn || options.warnings == nullptr) return;
  for (const std::string& path : unknown) {
    options.warnings->push_back("unknown field " + goQuote(path));
  }
}

// fmt's %+v of a value decoded into interface{} (a patch map): maps as map[k:v ...] with sorted
// keys, slices as [a b], strings bare, nil as <nil>.
void appendGoValue(std::string& out, const Json& v) {
  if (v.is_null()) {
    out += "<nil>";
  } else if (v.is_string()) {
    out += v.get_ref<const std::string&>();
  } else if (v.is_object()) {
    out += "map[";
    bool first = true;
    for (const auto& [key, item] : v.get_ref<const Json::object_t&>()) {
      if (!first) out += ' ';
      first = false;
      out += key;
      out += ':';
      appendGoValue(out, item);
    }
    out += ']';
  } else if (v.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i > 0) out += ' ';
      appendGoValue(out, v[i]);
    }
    out += ']';
  } else if (v.is_number_float()) {
    out += fmt::format("{}", v.get<double>());
  } else {
    out += v.dump();  // integers and booleans
  }
}

// The value patch.go shows for a patch that fails strict decoding.
std::string renderedPatch(const Json& patched, PatchType type, std::string_view patchText) {
  if (type != PatchType::StrategicMerge) return patched.dump();
  auto patch = parseJsonText(patchText);
  std::string out;
  if (patch) appendGoValue(out, *patch);
  return out;
}

// The unknown members of a custom resource, which its schema's decoding (prune, then defaults)
// drops from `object`: the same strict-decoding paths as a built-in's, capped the same way.
std::vector<std::string> decodeCustomResource(const StructuralSchema& schema, Json& object) {
  std::vector<MemberPath> dropped;
  schema.decode(object, &dropped);
  std::vector<std::string> unknown;
  unknown.reserve(std::min(dropped.size(), kMaxUnknownFieldsReported));
  for (const MemberPath& path : dropped) {
    if (unknown.size() == kMaxUnknownFieldsReported) break;
    unknown.push_back(strictDecodingPath(path));
  }
  return unknown;
}

// The schema a custom resource's body is decoded by; nullptr for built-ins, and where the
// definition declares none (nothing is pruned then).
const StructuralSchema* customSchema(const ResourceInfo& info, const std::string& apiVersion) {
  if (!info.custom) return nullptr;
  return info.schemaFor(GroupVersion::parse(apiVersion).version);
}

// Whether anybody hears of the unknown fields: when nobody does, a custom resource is left to
// the write's own decoding, which prunes them the same way (one walk instead of two).
bool reported(const WriteWarnings& options) {
  return options.fieldValidation == FieldValidation::Strict ||
         (options.fieldValidation == FieldValidation::Warn && options.warnings != nullptr);
}

// Prunes `object` by its kind's schema, built-in or custom, answering what it dropped.
std::vector<std::string> dropUnknownFields(const ResourceInfo& info, const std::string& apiVersion,
                                           Json& object) {
  if (const StructuralSchema* schema = customSchema(info, apiVersion)) {
    return decodeCustomResource(*schema, object);
  }
  return pruneUnknownFields(apiVersion, info.kind, object);
}

}  // namespace

std::optional<Status> decodeBody(const ResourceInfo& info, Json& object,
                                 const WriteWarnings& options) {
  if (!object.is_object() || (info.custom && !reported(options))) return std::nullopt;
  const std::string apiVersion = apiVersionOf(info, object);
  std::vector<std::string> unknown = dropUnknownFields(info, apiVersion, object);
  if (unknown.empty()) return std::nullopt;
  if (options.fieldValidation == FieldValidation::Strict) {
    return Status::badRequest(fmt::format(
        "{} in version {} cannot be handled as a {}: {}", info.kind,
        goQuote(GroupVersion::parse(apiVersion).version), info.kind, strictDecodingError(unknown)));
  }
  warn(unknown, options);
  return std::nullopt;
}

std::optional<Status> decodePatched(const ResourceInfo& info, Json& patched, PatchType type,
                                    std::string_view patchText, const WriteWarnings& options) {
  if (!patched.is_object() || (info.custom && !reported(options))) return std::nullopt;
  const std::string apiVersion = apiVersionOf(info, patched);
  if (options.fieldValidation != FieldValidation::Strict) {
    warn(dropUnknownFields(info, apiVersion, patched), options);
    return std::nullopt;
  }
  // Strict shows the patched object as it was before decoding: prune a copy.
  Json pruned = patched;
  std::vector<std::string> unknown = dropUnknownFields(info, apiVersion, pruned);
  if (unknown.empty()) {
    patched = std::move(pruned);
    return std::nullopt;
  }
  return Status::invalid(
      "", "", "",
      {FieldError::invalidString("patch", renderedPatch(patched, type, patchText),
                                 strictDecodingError(unknown))});
}

std::optional<Status> checkApplied(const ResourceInfo& info, const Json& applied,
                                   const PatchSchema& schema) {
  if (!applied.is_object()) return std::nullopt;
  const std::string apiVersion = apiVersionOf(info, applied);
  std::vector<std::string> undeclared;
  if (const StructuralSchema* custom = customSchema(info, apiVersion)) {
    // The definition's schema, pruning a copy, finds what structured-merge-diff's schema (made
    // from the same definition) does not declare.
    Json copy = applied;
    std::vector<MemberPath> dropped;
    custom->decode(copy, &dropped);
    for (const MemberPath& path : dropped) {
      undeclared.push_back(appliedFieldPath(applied, path, schema));
    }
  } else {
    undeclared = undeclaredFields(apiVersion, info.kind, applied, schema);
  }
  if (undeclared.empty()) return std::nullopt;
  // structured-merge-diff's ValidationErrors: one line, or "errors:" and one indented line each.
  std::string errors;
  if (undeclared.size() == 1) {
    errors = undeclared.front() + ": field not declared in schema";
  } else {
    errors = "errors:";
    for (const std::string& path : undeclared) {
      errors += "\n  " + path + ": field not declared in schema";
    }
  }
  const GroupVersion gv = GroupVersion::parse(apiVersion);
  std::string ns, name;
  if (auto metadata = applied.find("metadata");
      metadata != applied.end() && metadata->is_object()) {
    ns = memberString(*metadata, "namespace");
    name = memberString(*metadata, "name");
  }
  return Status::generic(
      500, "",
      fmt::format("failed to create typed patch object ({}/{}; {}/{}, Kind={}): {}", ns, name,
                  gv.group, gv.version, info.kind, errors));
}

}  // namespace fakekube::fieldvalidation
