#include "fakekube/http/internal/request_parameters.h"

#include <fmt/format.h>

#include <charconv>
#include <string>

namespace fakekube {

Result<std::optional<bool>> boolParameter(const RestRequest& request, const char* name) {
  std::optional<std::string> value = request.param(name);
  if (!value) return std::optional<bool>();
  const std::string& v = *value;
  if (v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True") {
    return std::optional<bool>(true);
  }
  if (v == "0" || v == "f" || v == "F" || v == "false" || v == "FALSE" || v == "False" ||
      v.empty()) {
    return std::optional<bool>(false);
  }
  return tl::unexpected(Status::badRequest(fmt::format(
      "invalid value for {}: strconv.ParseBool: parsing {}: invalid syntax", name, goQuote(v))));
}

Result<std::optional<std::int64_t>> intParameter(const RestRequest& request, const char* name) {
  std::optional<std::string> value = request.param(name);
  if (!value || value->empty()) return std::optional<std::int64_t>();
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), n);
  if (ec != std::errc() || end != value->data() + value->size()) {
    return tl::unexpected(Status::badRequest(
        fmt::format("invalid value for {}: strconv.ParseInt: parsing {}: invalid syntax", name,
                    goQuote(*value))));
  }
  return std::optional<std::int64_t>(n);
}

}  // namespace fakekube
