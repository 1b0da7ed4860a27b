// JSON bodies: whatever parses (within the nesting limit) writes back to text that parses to an
// equal document, and the writer never emits invalid UTF-8 or a document the limit would refuse.
#include "fakekube/api/internal/json_decode.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/json_writer.h"
#include "tools/fuzzing/targets.h"

namespace fakekube::fuzz {

void jsonDecode(std::string_view input) {
  auto parsed = parseJsonText(input);
  if (!parsed) return;
  require(jsonNestingDepth(*parsed) <= kMaxJsonNestingDepth, "decoded past the nesting limit");
  const std::string text = toJsonText(*parsed);
  auto again = parseJsonText(text);
  require(again.has_value(), "written JSON does not parse");
  // NaN never parses; strings with invalid UTF-8 are rewritten (U+FFFD), so compare text.
  require(toJsonText(*again) == text, "written JSON does not read back the same");
}

}  // namespace fakekube::fuzz
