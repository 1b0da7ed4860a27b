// The other body formats: Kubernetes protobuf, YAML, and resource quantities. Each decodes to a
// value or a 4xx error value; a decoded document is within the nesting limit and writable.
#include <nlohmann/json.hpp>

#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/internal/protobuf.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/quantity.h"
#include "fakekube/api/yaml.h"
#include "tools/fuzzing/targets.h"

namespace fakekube::fuzz {

namespace {

void checkDocument(const Result<Json>& decoded) {
  if (!decoded) {
    const int code = decoded.error().code;
    require(code >= 400 && code < 500, "a decode error is not a 4xx Status");
    return;
  }
  require(jsonNestingDepth(*decoded) <= kMaxJsonNestingDepth, "decoded past the nesting limit");
  (void)toJsonText(*decoded);
}

}  // namespace

void protobufBody(std::string_view input) { checkDocument(decodeKubernetesProtobuf(input)); }

void yamlDocument(std::string_view input) { checkDocument(decodeYaml(input)); }

void quantity(std::string_view input) {
  auto milli = parseMilliQuantity(input);
  auto units = parseQuantity(input);
  if (milli && units) {
    // Units are milli-units rounded up, whenever both fit.
    const std::int64_t m = *milli;
    const std::int64_t expected = m / 1000 + (m % 1000 > 0 ? 1 : 0);
    require(*units == expected, "units are not milli-units rounded up");
  }
  (void)parseResourceQuantity("cpu", input);
  (void)parseResourceQuantity("memory", input);
}

}  // namespace fakekube::fuzz
