#include "controllers/coscheduling/internal/cluster_resource.h"

#include <fmt/format.h>

#include <cctype>
#include <nlohmann/json.hpp>

#include "controllers/coscheduling/internal/coscheduling_api.h"
#include "fakekube/api/json_lookup.h"

namespace fakekube::coscheduling {
namespace {

// 10^exponent times value, if it fits.
std::optional<std::int64_t> scaledUp(std::int64_t value, std::int32_t exponent) {
  for (std::int32_t i = 0; i < exponent; ++i) {
    if (value > INT64_MAX / 10 || value < INT64_MIN / 10) return std::nullopt;
    value *= 10;
  }
  return value;
}

struct QuantitySuffix {
  std::string format;
  std::int32_t exponent = 0;  // base 10, or base 2 for BinarySI
};

std::optional<QuantitySuffix> parseQuantitySuffix(std::string_view suffix) {
  static const std::map<std::string_view, std::int32_t> decimal = {
      {"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
      {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  static const std::map<std::string_view, std::int32_t> binary = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  if (auto it = decimal.find(suffix); it != decimal.end())
    return QuantitySuffix{"DecimalSI", it->second};
  if (auto it = binary.find(suffix); it != binary.end())
    return QuantitySuffix{"BinarySI", it->second};
  if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view digits = suffix.substr(1);
    bool negative = !digits.empty() && (digits[0] == '-' || digits[0] == '+') && digits[0] == '-';
    if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
    if (digits.empty() || digits.size() > 4) return std::nullopt;
    std::int32_t exponent = 0;
    for (char c : digits) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      exponent = exponent * 10 + (c - '0');
    }
    return QuantitySuffix{"DecimalExponent", negative ? -exponent : exponent};
  }
  return std::nullopt;
}

// NodeInfo's free resources without the pods of the group (getNodeResource), as
// util.ResourceList gives them: cpu in milli DecimalSI, the rest whole, BinarySI but for the
// scalar resources.
GoResourceList freeOnNode(const scheduling::NodeResources& node, const std::string& group) {
  ResourceList requested;
  std::int64_t pods = 0;
  for (const auto& pod : node.pods) {
    if (podGroupFullName(*pod.pod) == group) continue;
    ++pods;
    for (const auto& [name, amount] : pod.requests) requested[name] += amount;
  }
  auto left = [&](const std::string& name) {
    auto it = node.allocatable.find(name);
    const std::int64_t allocatable = it == node.allocatable.end() ? 0 : it->second;
    auto used = requested.find(name);
    return allocatable - (used == requested.end() ? 0 : used->second);
  };
  auto allocatablePods = node.allocatable.find("pods");
  GoResourceList free = {
      {"cpu", {left("cpu"), -3, "DecimalSI"}},
      {"memory", {left("memory"), 0, "BinarySI"}},
      {"pods",
       {(allocatablePods == node.allocatable.end() ? 0 : allocatablePods->second) - pods, 0,
        "BinarySI"}},
      {"ephemeral-storage", {left("ephemeral-storage"), 0, "BinarySI"}}};
  for (const auto& [name, amount] : node.allocatable) {
    if (free.count(name)) continue;
    free[name] = {left(name), 0, name.starts_with("hugepages-") ? "BinarySI" : "DecimalSI"};
  }
  return free;
}

}  // namespace

std::optional<GoQuantity> GoQuantity::parse(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::size_t i = 0;
  std::string whole, fraction;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) whole += text[i++];
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
      fraction += text[i++];
  }
  if (whole.empty() && fraction.empty()) return std::nullopt;
  auto suffix = parseQuantitySuffix(text.substr(i));
  if (!suffix) return std::nullopt;
  const std::string digits = whole + fraction;
  if (digits.size() > 18) return std::nullopt;  // the arbitrary-precision form
  std::int64_t value = digits.empty() ? 0 : std::stoll(digits);
  GoQuantity quantity;
  quantity.format = suffix->format;
  if (suffix->format == "BinarySI") {
    if (!fraction.empty() || value > (INT64_MAX >> suffix->exponent)) return std::nullopt;
    quantity.value = value << suffix->exponent;
  } else {
    quantity.value = value;
    quantity.scale = suffix->exponent - static_cast<std::int32_t>(fraction.size());
    if (quantity.scale < -9) return std::nullopt;
  }
  if (negative) quantity.value = -quantity.value;
  return quantity;
}

std::optional<GoQuantity> GoQuantity::fromJson(const Json& value) {
  if (value.is_string()) return parse(value.get<std::string>());
  if (value.is_number_integer()) return parse(value.dump());
  return std::nullopt;
}

void GoQuantity::sub(const GoQuantity& other) {
  if (value == 0) format = other.format;
  if (other.value == 0) return;
  if (value == 0) {
    value = -other.value;
    scale = other.scale;
    return;
  }
  if (scale == other.scale) {
    value -= other.value;
  } else if (scale > other.scale) {
    value = scaledUp(value, scale - other.scale).value_or(value) - other.value;
    scale = other.scale;
  } else {
    value -= scaledUp(other.value, other.scale - scale).value_or(other.value);
  }
}

std::string GoQuantity::goString() const {
  return fmt::format("{{{{{} {}}} {{<nil>}}  {}}}", value, scale, format);
}

std::optional<GoResourceList> minResourcesRequest(const Json& podGroup) {
  GoResourceList request;
  for (const auto& [name, amount] : jsonAt(podGroup, {"spec", "minResources"}).items()) {
    auto quantity = GoQuantity::fromJson(amount);
    if (!quantity) return std::nullopt;
    request[name] = *quantity;
  }
  const Json& minMember = jsonAt(podGroup, {"spec", "minMember"});
  request["pods"] = {minMember.is_number_integer() ? minMember.get<std::int64_t>() : 0, 0,
                     "DecimalSI"};
  return request;
}

std::optional<std::string> checkClusterResource(const std::vector<scheduling::NodeResources>& nodes,
                                                GoResourceList request,
                                                const std::string& groupFullName) {
  for (const auto& node : nodes) {
    const GoResourceList free = freeOnNode(node, groupFullName);
    for (auto it = request.begin(); it != request.end();) {
      auto available = free.find(it->first);
      if (available != free.end()) it->second.sub(available->second);
      it = it->second.sign() <= 0 ? request.erase(it) : std::next(it);
    }
    if (request.empty()) return std::nullopt;
  }
  std::vector<std::string> parts;
  for (const auto& [name, quantity] : request) {
    parts.push_back(fmt::format("{}:{}", name, quantity.goString()));
  }
  return fmt::format("resource gap: map[{}]", fmt::join(parts, " "));
}

}  // namespace fakekube::coscheduling
