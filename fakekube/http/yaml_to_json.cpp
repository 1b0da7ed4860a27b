#include "fakekube/http/yaml_to_json.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

namespace fakekube {

namespace {

bool oneOf(const std::string& s, std::initializer_list<const char*> options) {
  for (const char* o : options) {
    if (s == o) return true;
  }
  return false;
}

std::optional<std::int64_t> parseInteger(std::string s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.erase(0, 1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.erase(0, 2);
  } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
    base = 8;
    s.erase(0, 2);
  }
  s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
  if (s.empty()) return std::nullopt;
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  if (!negative && value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return std::nullopt;
  }
  return negative ? -static_cast<std::int64_t>(value) : static_cast<std::int64_t>(value);
}

Json scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  // "!" marks a quoted scalar, an explicit tag anything else than "?": both stay strings.
  if (node.Tag() != "?") return text;
  if (oneOf(text, {"", "~", "null", "Null", "NULL"})) return nullptr;
  if (oneOf(text, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"})) {
    return true;
  }
  if (oneOf(text, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"})) {
    return false;
  }
  if (auto integer = parseInteger(text)) return *integer;
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(text, kFloat)) {
    std::string digits = text;
    digits.erase(std::remove(digits.begin(), digits.end(), '_'), digits.end());
    return std::stod(digits);
  }
  if (oneOf(text, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) {
    return std::numeric_limits<double>::infinity();
  }
  if (oneOf(text, {"-.inf", "-.Inf", "-.INF"})) return -std::numeric_limits<double>::infinity();
  if (oneOf(text, {".nan", ".NaN", ".NAN"})) return std::nan("");
  return text;
}

Json convert(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return scalar(node);
    case YAML::NodeType::Sequence: {
      Json array = Json::array();
      for (const auto& item : node) array.push_back(convert(item));
      return array;
    }
    case YAML::NodeType::Map: {
      Json object = Json::object();
      for (const auto& entry : node) object[entry.first.as<std::string>()] = convert(entry.second);
      return object;
    }
  }
  return nullptr;
}

}  // namespace

Result<Json> yamlToJson(std::string_view text) {
  try {
    std::vector<YAML::Node> documents = YAML::LoadAll(std::string(text));
    if (documents.size() > 1) {
      return tl::unexpected(Status::badRequest("the body holds more than one YAML document"));
    }
    if (documents.empty()) return Json(nullptr);
    return convert(documents.front());
  } catch (const YAML::Exception& e) {
    return tl::unexpected(
        Status::badRequest(std::string("error converting YAML to JSON: ") + e.what()));
  }
}

}  // namespace fakekube
