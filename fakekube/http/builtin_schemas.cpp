#include "fakekube/http/internal/builtin_schemas.h"

#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace fakekube {

namespace {

std::string refPrefix(OpenApiForm form) {
  return form == OpenApiForm::V3 ? "#/components/schemas/" : "#/definitions/";
}

// The schema of a field's type; names the definitions it refers to in `refs`.
Json typeSchema(std::string_view type, OpenApiForm form, std::vector<std::string>& refs) {
  if (type.starts_with("[]")) {
    return {{"type", "array"}, {"items", typeSchema(type.substr(2), form, refs)}};
  }
  if (type.starts_with("map[]")) {
    return {{"type", "object"}, {"additionalProperties", typeSchema(type.substr(5), form, refs)}};
  }
  if (type.starts_with("#")) {
    refs.emplace_back(type.substr(1));
    return {{"$ref", refPrefix(form) + std::string(type.substr(1))}};
  }
  if (type == "date-time" || type == "date") {
    return {{"type", "string"}, {"format", type}};
  }
  return {{"type", type}};
}

Json definitionSchema(const std::string& name, const BuiltinDefinition& d, OpenApiForm form,
                      std::vector<std::string>& refs) {
  Json properties = Json::object();
  Json required = Json::array();
  for (const auto& f : d.fields) {
    Json schema = typeSchema(f.type, form, refs);
    // v3 puts a reference beside other keywords through allOf, as kube-apiserver does.
    if (form == OpenApiForm::V3 && schema.contains("$ref") && !f.description.empty()) {
      schema = Json{{"allOf", Json::array({std::move(schema)})}};
    }
    if (!f.description.empty()) schema["description"] = f.description;
    properties[f.name] = std::move(schema);
    if (f.required) required.push_back(f.name);
  }
  Json out = {{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) out["required"] = std::move(required);
  if (auto kinds = BuiltinSchemaTable::get().kindsOf(name); !kinds.empty()) {
    Json gvks = Json::array();
    for (const auto* k : kinds) {
      gvks.push_back({{"group", k->group}, {"kind", k->kind}, {"version", k->version}});
    }
    out["x-kubernetes-group-version-kind"] = std::move(gvks);
  }
  return out;
}

// Each form's schemas, built on first use.
const Json& schemaOf(const std::string& name, OpenApiForm form, std::vector<std::string>& refs) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::pair<Json, std::vector<std::string>>> cache[2];
  static const Json kNull;
  std::lock_guard lock(mu);
  auto& forms = cache[form == OpenApiForm::V3 ? 1 : 0];
  auto it = forms.find(name);
  if (it == forms.end()) {
    const BuiltinDefinition* d = BuiltinSchemaTable::get().definition(name);
    if (d == nullptr) return kNull;
    std::vector<std::string> found;
    Json schema = definitionSchema(name, *d, form, found);
    it = forms.emplace(name, std::make_pair(std::move(schema), std::move(found))).first;
  }
  refs = it->second.second;
  return it->second.first;
}

}  // namespace

const std::vector<BuiltinKindSchema>& builtinKindSchemas() {
  return BuiltinSchemaTable::get().kinds();
}

std::string builtinDefinitionOf(std::string_view group, std::string_view version,
                                std::string_view kind) {
  return BuiltinSchemaTable::get().definitionOf(group, version, kind);
}

void addBuiltinDefinitions(const std::string& definition, OpenApiForm form, Json& into) {
  std::vector<std::string> pending = {definition};
  while (!pending.empty()) {
    std::string name = std::move(pending.back());
    pending.pop_back();
    if (into.contains(name)) continue;
    std::vector<std::string> refs;
    const Json& schema = schemaOf(name, form, refs);
    if (schema.is_null()) continue;
    into[name] = schema;
    for (auto& r : refs) {
      if (!into.contains(r)) pending.push_back(std::move(r));
    }
  }
}

}  // namespace fakekube
