#include "fakekube/api/yaml.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <string>

#include "fakekube/api/json_writer.h"

namespace fakekube {

namespace {

constexpr std::string_view kCoreTagPrefix = "tag:yaml.org,2002:";

// A conversion failure, reported with the line go-yaml would name.
struct YamlError {
  int line = 0;  // 1-based
  std::string message;
};

bool oneOf(std::string_view s, std::initializer_list<std::string_view> options) {
  return std::find(options.begin(), options.end(), s) != options.end();
}

// strconv.ParseInt(s, 0, 64) and ParseUint: a sign, then 0x / 0o / 0b / leading-0 octal or decimal.
std::optional<Json> parseGoInteger(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() >= 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) {
    base = 8;
    s.remove_prefix(2);
  } else if (s.size() >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
    base = 2;
    s.remove_prefix(2);
  } else if (s.size() >= 2 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  std::uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (negative) {
    if (magnitude > kMax + 1) return std::nullopt;
    return Json(magnitude == kMax + 1 ? std::numeric_limits<std::int64_t>::min()
                                      : -static_cast<std::int64_t>(magnitude));
  }
  if (magnitude > kMax) return Json(magnitude);  // ParseUint's range
  return Json(static_cast<std::int64_t>(magnitude));
}

// A float as it arrives after sigs.k8s.io/yaml's JSON round trip: integral values are integers.
Json floatValue(double value) {
  if (std::trunc(value) == value && std::fabs(value) < 9.2e18) {
    return Json(static_cast<std::int64_t>(value));
  }
  return Json(value);
}

// strconv.ParseFloat's value for text kFloat matched. Not std::stod, which throws for a value out
// of double's range: beyond it this is +-infinity (which the caller refuses), below it 0.
double parseFloat(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

// go-yaml v2's resolve() for a plain scalar.
std::optional<Json> resolvePlain(const std::string& text, std::string* unsupported) {
  if (oneOf(text, {"", "~", "null", "Null", "NULL"})) return Json(nullptr);
  if (oneOf(text, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) {
    return Json(true);
  }
  if (oneOf(text, {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})) {
    return Json(false);
  }
  if (oneOf(text, {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF",
                   "-.inf", "-.Inf", "-.INF"})) {
    *unsupported = text;
    return std::nullopt;
  }
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  const char first = text[0];
  const bool number =
      first == '.' || first == '+' || first == '-' || (first >= '0' && first <= '9');
  if (number) {
    std::string plain = text;
    if (first != '.') {
      plain.erase(std::remove(plain.begin(), plain.end(), '_'), plain.end());
      if (auto integer = parseGoInteger(plain)) return integer;
    }
    if (std::regex_match(plain, kFloat)) {
      double value = parseFloat(plain);
      if (std::isinf(value)) {
        *unsupported = text;
        return std::nullopt;
      }
      return floatValue(value);
    }
  }
  return Json(text);
}

// go-yaml's reader error for the first invalid UTF-8 sequence of `text`, if any.
std::optional<std::string> invalidUtf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    std::size_t width = c < 0x80             ? 1
                        : (c & 0xE0) == 0xC0 ? 2
                        : (c & 0xF0) == 0xE0 ? 3
                        : (c & 0xF8) == 0xF0 ? 4
                                             : 0;
    if (width == 0) return "invalid leading UTF-8 octet";
    if (i + width > n) return "incomplete UTF-8 octet sequence";
    std::uint32_t value = width == 1   ? c
                          : width == 2 ? (c & 0x1F)
                          : width == 3 ? (c & 0x0F)
                                       : (c & 0x07);
    for (std::size_t k = 1; k < width; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return "invalid trailing UTF-8 octet";
      value = (value << 6) | (s[i + k] & 0x3F);
    }
    const bool shortest = width == 1 || (width == 2 && value >= 0x80) ||
                          (width == 3 && value >= 0x800) || (width == 4 && value >= 0x10000);
    if (!shortest) return "invalid length of a UTF-8 sequence";
    if ((value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF)
      return "invalid Unicode character";
    i += width;
  }
  return std::nullopt;
}

class Converter {
 public:
  // An alias converts its anchor's node again, so a few lines of anchors can stand for billions of
  // nodes. go-yaml stops such documents ("excessive aliasing"); here the nodes converted are
  // bounded by the text: without aliases a node takes at least a byte.
  explicit Converter(std::size_t textSize)
      : nodeBudget_(std::min<std::size_t>(4'000'000, 1000 + 100 * textSize)) {}

  std::optional<YamlError> error;
  static constexpr int kMaxDepth = 500;

  Json convert(const YAML::Node& node) {
    if (error) return nullptr;
    if (++nodes_ > nodeBudget_) {
      fail(node, "json: document contains excessive aliasing");
      return nullptr;
    }
    // An alias may name a map that holds it (`&a {<<: *a}`): each turn of that cycle recurses, so
    // the depth is bounded as the parser bounds a document's nesting.
    if (depth_ >= kMaxDepth) {
      fail(node, "exceeded max depth of 500");
      return nullptr;
    }
    struct DepthGuard {
      int& depth;
      explicit DepthGuard(int& d) : depth(d) { ++depth; }
      ~DepthGuard() { --depth; }
    } guard(depth_);
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
      case YAML::NodeType::Map:
        return map(node);
    }
    return nullptr;
  }

 private:
  std::size_t nodes_ = 0;
  int depth_ = 0;
  std::size_t nodeBudget_;

  void fail(const YAML::Node& node, std::string message) {
    if (!error) error = YamlError{node.Mark().line + 1, std::move(message)};
  }

  Json scalar(const YAML::Node& node) {
    const std::string& text = node.Scalar();
    const std::string& tag = node.Tag();
    if (tag == "!") return text;  // quoted
    std::string shortTag;
    if (tag.starts_with(kCoreTagPrefix)) {
      shortTag = tag.substr(kCoreTagPrefix.size());
    } else if (tag != "?") {
      return text;  // an application tag: go-yaml leaves the text alone
    }
    if (shortTag == "str" || shortTag == "binary") return text;
    std::string unsupported;
    auto value = resolvePlain(text, &unsupported);
    if (!value) {
      fail(node, fmt::format("json: unsupported value: {}", unsupported));
      return nullptr;
    }
    const bool matches = shortTag.empty() || shortTag == "timestamp" ||
                         (shortTag == "int" && value->is_number_integer()) ||
                         (shortTag == "float" && value->is_number()) ||
                         (shortTag == "bool" && value->is_boolean()) ||
                         (shortTag == "null" && value->is_null());
    if (!matches) {
      fail(node, fmt::format("cannot decode !!str `{}` as a !!{}", text, shortTag));
      return nullptr;
    }
    return *value;
  }

  // A map key as sigs.k8s.io/yaml turns it into a JSON member name.
  std::optional<std::string> key(const YAML::Node& node) {
    if (!node.IsScalar()) {
      if (node.IsNull()) return "null";
      fail(node, "invalid map key: a map or sequence cannot be a key");
      return std::nullopt;
    }
    Json value = scalar(node);
    if (value.is_string()) return value.get<std::string>();
    if (value.is_null()) return "null";
    return value.dump();
  }

  Json map(const YAML::Node& node) {
    Json object = Json::object();
    auto& members = object.get_ref<Json::object_t&>();
    std::set<std::string> explicitKeys;
    Json merged = Json::object();  // what `<<` brings in; explicit keys win over it
    for (const auto& entry : node) {
      const YAML::Node& k = entry.first;
      if (k.IsScalar() && k.Tag() == "?" && k.Scalar() == "<<") {
        mergeInto(merged, entry.second);
        continue;
      }
      auto name = key(k);
      if (!name) return nullptr;
      if (!explicitKeys.insert(*name).second) {
        fail(k, fmt::format("key {} already set in map", toJsonText(Json(*name))));
        return nullptr;
      }
      // Appended, and sorted once below: a mapping of n keys in reverse order costs n log n, not
      // the n^2 of inserting each in its place (json_object_map.h).
      members.appendUnsorted(*name, convert(entry.second));
    }
    for (auto& [name, value] : merged.items()) {
      if (!explicitKeys.count(name)) members.appendUnsorted(name, std::move(value));
    }
    members.sortMembers();
    return object;
  }

  // `<<: *a` or `<<: [*a, *b]` (earlier maps win).
  void mergeInto(Json& merged, const YAML::Node& value) {
    auto add = [&](const YAML::Node& source) {
      if (!source.IsMap()) {
        fail(source, "map merge requires map or sequence of maps as the value");
        return;
      }
      Json converted = convert(source);
      if (!converted.is_object()) return;
      for (auto& [name, v] : converted.items()) {
        if (!merged.contains(name)) merged[name] = std::move(v);
      }
    };
    if (value.IsSequence()) {
      for (const auto& item : value) add(item);
    } else {
      add(value);
    }
  }
};

}  // namespace

Result<Json> decodeYaml(std::string_view text) {
  // go-yaml reads UTF-8 only; yaml-cpp would pass invalid bytes through into the document.
  if (auto problem = invalidUtf8(text)) {
    return tl::unexpected(
        Status::badRequest(fmt::format("error converting YAML to JSON: yaml: {}", *problem)));
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's parser recurses and stops at 500 levels (go-yaml's at 10000); JSON bodies, which
    // kubectl sends, have the JSON decoder's 10000.
    return tl::unexpected(Status::badRequest(
        fmt::format("error converting YAML to JSON: yaml: line {}: exceeded max depth of 500",
                    e.mark.line + 1)));
  } catch (const YAML::Exception& e) {
    return tl::unexpected(Status::badRequest(
        fmt::format("error converting YAML to JSON: yaml: line {}: {}", e.mark.line + 1, e.msg)));
  }
  Converter converter(text.size());
  Json out = converter.convert(root);
  if (converter.error) {
    const YamlError& e = *converter.error;
    if (e.message == "json: document contains excessive aliasing") {
      return tl::unexpected(Status::badRequest(
          "error converting YAML to JSON: yaml: document contains excessive aliasing"));
    }
    if (e.message.starts_with("json: ")) {
      return tl::unexpected(
          Status::badRequest(fmt::format("error converting YAML to JSON: {}", e.message)));
    }
    return tl::unexpected(Status::badRequest(
        fmt::format("error converting YAML to JSON: yaml: unmarshal errors:\n  line {}: {}", e.line,
                    e.message)));
  }
  return out;
}

}  // namespace fakekube
