#include "fakekube/api/internal/custom_resource_definition_builder.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "fakekube/api/yaml.h"

namespace fakekube {
namespace {

Json printerColumnsJson(const std::vector<PrinterColumn>& columns) {
  Json out = Json::array();
  for (const PrinterColumn& column : columns) {
    Json entry = {{"name", column.name}, {"type", column.type}, {"jsonPath", column.jsonPath}};
    if (column.priority != 0) entry["priority"] = column.priority;
    if (!column.description.empty()) entry["description"] = column.description;
    out.push_back(std::move(entry));
  }
  return out;
}

Json namesJson(const CustomResourceKind& kind) {
  std::string singular = kind.kind;
  std::transform(singular.begin(), singular.end(), singular.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  Json names = {{"kind", kind.kind},
                {"listKind", kind.kind + "List"},
                {"plural", kind.plural},
                {"singular", singular}};
  if (!kind.shortNames.empty()) names["shortNames"] = kind.shortNames;
  if (!kind.categories.empty()) names["categories"] = kind.categories;
  return names;
}

Json openApiSchema(const CustomResourceKind& kind) {
  Json properties = kind.properties;
  properties["apiVersion"] = {{"type", "string"}};
  properties["kind"] = {{"type", "string"}};
  properties["metadata"] = {{"type", "object"}};
  return {{"type", "object"}, {"properties", std::move(properties)}};
}

}  // namespace

Json customResourceDefinition(const CustomResourceKind& kind) {
  Json version = {{"name", kind.version},
                  {"served", true},
                  {"storage", true},
                  {"subresources", {{"status", Json::object()}}},
                  {"schema", {{"openAPIV3Schema", openApiSchema(kind)}}}};
  if (!kind.printerColumns.empty()) {
    version["additionalPrinterColumns"] = printerColumnsJson(kind.printerColumns);
  }
  Json metadata = {{"name", kind.plural + "." + kind.group}};
  for (const auto& [key, value] : kind.annotations) metadata["annotations"][key] = value;
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", std::move(metadata)},
          {"spec",
           {{"group", kind.group},
            {"names", namesJson(kind)},
            {"scope", kind.namespaced ? "Namespaced" : "Cluster"},
            {"versions", Json::array({std::move(version)})}}}};
}

Json schemaFromYaml(const char* yaml) {
  auto document = decodeYaml(yaml);
  if (!document) throw std::logic_error("schema constant: " + document.error().message);
  return std::move(*document);
}

}  // namespace fakekube
