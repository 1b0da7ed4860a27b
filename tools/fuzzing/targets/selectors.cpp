// Label and field selectors from the query string: a parsed selector prints as a string that
// parses to the same selector, and matching never throws.
#include <nlohmann/json.hpp>

#include "fakekube/api/field_selector.h"
#include "fakekube/api/label_selector.h"
#include "tools/fuzzing/targets.h"

namespace fakekube::fuzz {

void labelSelector(std::string_view input) {
  auto selector = LabelSelector::parse(input);
  if (!selector) return;
  const std::string text = selector->str();
  auto again = LabelSelector::parse(text);
  require(again.has_value(), "a label selector's str() does not parse");
  require(again->str() == text, "a label selector's str() does not round-trip");
  const Json labels = {{"app", "web"}, {"tier", "1"}, {"env", ""}};
  (void)selector->matches(labels);
  (void)selector->matches(Json());
}

void fieldSelector(std::string_view input) {
  auto selector = FieldSelector::parse(input);
  if (!selector) return;
  // fields.ParseSelector orders terms by their text as written, so "b==x,b=a" prints "b=x,b=a"
  // and reads back as "b=a,b=x": the same terms, and from then on the same string.
  const std::string text = selector->str();
  auto again = FieldSelector::parse(text);
  require(again.has_value(), "a field selector's str() does not parse");
  require(again->fields().size() == selector->fields().size(), "str() loses or adds terms");
  auto third = FieldSelector::parse(again->str());
  require(third.has_value() && third->str() == again->str(),
          "a field selector's str() does not settle after one round trip");
  const Json pod = {{"metadata", {{"name", "p"}, {"namespace", "default"}}},
                    {"spec", {{"nodeName", "n1"}}},
                    {"status", {{"phase", "Running"}}}};
  (void)selector->matchesObject(pod);
}

}  // namespace fakekube::fuzz
