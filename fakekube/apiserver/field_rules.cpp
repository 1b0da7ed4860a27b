#include "fakekube/apiserver/internal/field_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_writer.h"

namespace fakekube::strategy {

std::string supportedValues(std::initializer_list<std::string_view> values) {
  std::string out = "supported values: ";
  bool first = true;
  for (std::string_view value : values) {
    if (!first) out += ", ";
    out += goQuote(value);
    first = false;
  }
  return out;
}

void checkEnumeration(FieldErrors& errors, const Json& value, const std::string& path,
                      std::initializer_list<std::string_view> values, std::string requiredDetail) {
  if (value.is_null() || (value.is_string() && value.get_ref<const std::string&>().empty())) {
    errors.push_back(FieldError::required(path, std::move(requiredDetail)));
    return;
  }
  if (!value.is_string()) return;  // typed decoding reports the wrong type
  const std::string& text = value.get_ref<const std::string&>();
  if (std::find(values.begin(), values.end(), text) != values.end()) return;
  errors.push_back(FieldError::notSupported(path, goQuote(text), supportedValues(values)));
}

bool integerValue(const Json& value, std::int64_t& out) {
  if (value.is_number_unsigned()) {
    out = static_cast<std::int64_t>(value.get<std::uint64_t>());
    return true;
  }
  if (value.is_number_integer()) {
    out = value.get<std::int64_t>();
    return true;
  }
  return false;
}

void checkNonNegative(FieldErrors& errors, const Json& value, const std::string& path) {
  std::int64_t number = 0;
  if (integerValue(value, number) && number < 0) {
    errors.push_back(
        FieldError::invalid(path, std::to_string(number), "must be greater than or equal to 0"));
  }
}

std::string stringValue(const Json& value) {
  return value.is_string() ? value.get<std::string>() : std::string();
}

std::string renderValue(const Json& value) {
  if (value.is_string()) return goQuote(value.get_ref<const std::string&>());
  return toJsonText(value);
}

std::vector<std::string> isValidPortNum(std::int64_t port) {
  if (port >= 1 && port <= 65535) return {};
  return {"must be between 1 and 65535, inclusive"};
}

std::vector<std::string> isValidPortName(std::string_view name) {
  std::vector<std::string> reasons;
  if (name.size() > 15) reasons.push_back("must be no more than 15 characters");
  const bool charset = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
  if (!charset) {
    reasons.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  }
  if (std::none_of(name.begin(), name.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
    reasons.push_back("must contain at least one letter (a-z)");
  }
  if (name.find("--") != std::string_view::npos) {
    reasons.push_back("must not contain consecutive hyphens");
  }
  if (!name.empty() && (name.front() == '-' || name.back() == '-')) {
    reasons.push_back("must not begin or end with a hyphen");
  }
  return reasons;
}

Json& objectMember(Json& parent, std::string_view key) {
  Json& member = jsonMember(parent, key);
  if (!member.is_object()) member = Json::object();
  return member;
}

std::string indexPath(const std::string& path, std::size_t index) {
  return fmt::format("{}[{}]", path, index);
}

std::string keyPath(const std::string& path, std::string_view key) {
  return fmt::format("{}[{}]", path, key);
}

}  // namespace fakekube::strategy
