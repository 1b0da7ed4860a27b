#include "fakekube/http/builtin_schemas.h"

#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace fakekube {

namespace {

struct FieldSchema {
  std::string name;
  std::string type;
  bool required = false;
  std::string description;
};

struct Definition {
  std::vector<FieldSchema> fields;
};

struct Table {
  std::unordered_map<std::string, Definition> definitions;
  std::vector<BuiltinKindSchema> kinds;
  // Per definition, the kinds it is the schema of.
  std::unordered_map<std::string, std::vector<const BuiltinKindSchema*>> kindsOf;
};

std::vector<std::string_view> splitTabs(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
    if (tab == std::string_view::npos) return out;
    start = tab + 1;
  }
}

std::string unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out.push_back(text[i + 1] == 'n' ? '\n' : text[i + 1]);
      ++i;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

Table parse() {
  Table table;
  std::string_view text = builtinSchemaTable();
  Definition* current = nullptr;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.empty()) continue;
    if (line.starts_with("D ")) {
      current = &table.definitions[std::string(line.substr(2))];
    } else if (line.starts_with("K ")) {
      auto parts = splitTabs(line.substr(2));
      if (parts.size() != 4) continue;
      table.kinds.push_back({std::string(parts[0]), std::string(parts[1]), std::string(parts[2]),
                             std::string(parts[3])});
    } else if (current != nullptr) {
      auto parts = splitTabs(line);
      if (parts.size() != 4) continue;
      current->fields.push_back(
          {std::string(parts[0]), std::string(parts[1]), parts[2] == "r", unescape(parts[3])});
    }
  }
  for (const auto& k : table.kinds) table.kindsOf[k.definition].push_back(&k);
  return table;
}

const Table& table() {
  static const Table instance = parse();
  return instance;
}

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

Json definitionSchema(const std::string& name, const Definition& d, OpenApiForm form,
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
  const auto& kinds = table().kindsOf;
  if (auto it = kinds.find(name); it != kinds.end()) {
    Json gvks = Json::array();
    for (const auto* k : it->second) {
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
    auto d = table().definitions.find(name);
    if (d == table().definitions.end()) return kNull;
    std::vector<std::string> found;
    Json schema = definitionSchema(name, d->second, form, found);
    it = forms.emplace(name, std::make_pair(std::move(schema), std::move(found))).first;
  }
  refs = it->second.second;
  return it->second.first;
}

}  // namespace

const std::vector<BuiltinKindSchema>& builtinKindSchemas() { return table().kinds; }

std::string builtinDefinitionOf(std::string_view group, std::string_view version,
                                std::string_view kind) {
  for (const auto& k : table().kinds) {
    if (k.group == group && k.version == version && k.kind == kind) return k.definition;
  }
  return "";
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
