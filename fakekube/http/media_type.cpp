#include "fakekube/http/internal/media_type.h"

#include <cctype>
#include <vector>

namespace fakekube {

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split(std::string_view s, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t end = s.find(separator, start);
    parts.push_back(
        trim(s.substr(start, end == std::string_view::npos ? s.size() - start : end - start)));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

// One entry of an Accept header: the media type and the parameters Kubernetes uses.
struct MediaRange {
  std::string type;
  std::string as;
  std::string group;
  std::string version;
};

MediaRange parseRange(std::string_view text) {
  MediaRange range;
  std::vector<std::string> parts = split(text, ';');
  range.type = lower(parts.front());
  for (std::size_t i = 1; i < parts.size(); ++i) {
    auto eq = parts[i].find('=');
    if (eq == std::string::npos) continue;
    std::string key = lower(trim(std::string_view(parts[i]).substr(0, eq)));
    std::string value = trim(std::string_view(parts[i]).substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    if (key == "as") range.as = value;
    if (key == "g") range.group = value;
    if (key == "v") range.version = value;
  }
  return range;
}

bool jsonCompatible(const std::string& type) {
  return type == "application/json" || type == "application/*" || type == "*/*" || type.empty();
}

}  // namespace

NegotiatedForm negotiateForm(std::string_view accept) {
  for (const std::string& entry : split(accept, ',')) {
    MediaRange range = parseRange(entry);
    if (!jsonCompatible(range.type)) continue;
    if (range.as.empty()) return {};
    if (range.group != "meta.k8s.io" || (range.version != "v1" && range.version != "v1beta1")) {
      continue;  // e.g. apidiscovery.k8s.io's APIGroupDiscoveryList: not served here
    }
    const std::string apiVersion = "meta.k8s.io/" + range.version;
    if (range.as == "Table") return {ResponseForm::Table, apiVersion};
    if (range.as == "PartialObjectMetadata" || range.as == "PartialObjectMetadataList") {
      return {ResponseForm::PartialObjectMetadata, apiVersion};
    }
  }
  return {};
}

bool acceptsJson(std::string_view accept) {
  if (accept.empty()) return true;
  for (const std::string& entry : split(accept, ',')) {
    if (jsonCompatible(parseRange(entry).type)) return true;
  }
  return false;
}

std::optional<std::string> negotiateAggregatedDiscovery(std::string_view accept) {
  for (const std::string& entry : split(accept, ',')) {
    MediaRange range = parseRange(entry);
    if (!jsonCompatible(range.type)) continue;
    if (range.as.empty()) return std::nullopt;  // plain JSON first: the unaggregated documents
    if (range.group == "apidiscovery.k8s.io" && range.as == "APIGroupDiscoveryList" &&
        (range.version == "v2" || range.version == "v2beta1")) {
      return range.version;
    }
  }
  return std::nullopt;
}

std::string baseMediaType(std::string_view contentType) {
  return lower(trim(contentType.substr(0, contentType.find(';'))));
}

std::optional<PatchType> patchTypeFor(std::string_view contentType) {
  const std::string type = baseMediaType(contentType);
  if (type == "application/json-patch+json") return PatchType::Json;
  if (type == "application/merge-patch+json") return PatchType::Merge;
  if (type == "application/strategic-merge-patch+json") return PatchType::StrategicMerge;
  if (type == "application/apply-patch+yaml") return PatchType::Apply;
  return std::nullopt;
}

}  // namespace fakekube
