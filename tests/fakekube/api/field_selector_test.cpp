#include "fakekube/api/field_selector.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "tests/support/json_text.h"

namespace fakekube {
namespace {

using testing::J;

FieldSelector mustParseFieldSelector(std::string_view s) {
  auto r = FieldSelector::parse(s);
  EXPECT_TRUE(r.has_value()) << "parse(" << s << "): " << (r ? "" : r.error().str());
  return r ? *r : FieldSelector();
}

std::string fieldSelectorParseError(std::string_view s) {
  auto r = FieldSelector::parse(s);
  if (r) return "";
  EXPECT_EQ(r.error().code, 400) << s;
  EXPECT_TRUE(isBadRequest(r.error())) << s;
  return r.error().message;
}

const Json kPod = J(R"({
  "metadata": {"name": "web-1", "namespace": "default"},
  "spec": {"nodeName": "node-a", "restartPolicy": "Always", "unschedulable": true},
  "status": {"phase": "Running"}
})");
const Json kPendingPod = J(R"({
  "metadata": {"name": "web-2", "namespace": "default"},
  "spec": {},
  "status": {"phase": "Pending"}
})");

TEST(FieldSelectorTest, EmptySelectsEverything) {
  FieldSelector s = mustParseFieldSelector("");
  EXPECT_TRUE(s.empty());
  EXPECT_TRUE(s.fields().empty());
  EXPECT_EQ(s.str(), "");
  EXPECT_TRUE(s.matchesObject(kPod));
  EXPECT_TRUE(s.matchesObject(Json()));
  // Empty terms are skipped.
  EXPECT_TRUE(mustParseFieldSelector(",").empty());
}

TEST(FieldSelectorTest, Equals) {
  EXPECT_TRUE(mustParseFieldSelector("metadata.name=web-1").matchesObject(kPod));
  EXPECT_FALSE(mustParseFieldSelector("metadata.name=web-1").matchesObject(kPendingPod));
}

TEST(FieldSelectorTest, DoubleEquals) {
  FieldSelector s = mustParseFieldSelector("metadata.name==web-1");
  EXPECT_TRUE(s.matchesObject(kPod));
  EXPECT_FALSE(s.matchesObject(kPendingPod));
  // "==" is the same term as "=".
  EXPECT_EQ(s, mustParseFieldSelector("metadata.name=web-1"));
  EXPECT_EQ(s.str(), "metadata.name=web-1");
}

TEST(FieldSelectorTest, NotEquals) {
  FieldSelector s = mustParseFieldSelector("status.phase!=Running");
  EXPECT_FALSE(s.matchesObject(kPod));
  EXPECT_TRUE(s.matchesObject(kPendingPod));
  EXPECT_EQ(s.str(), "status.phase!=Running");
}

TEST(FieldSelectorTest, MissingFieldComparesAsEmpty) {
  EXPECT_TRUE(mustParseFieldSelector("spec.nodeName=").matchesObject(kPendingPod));
  EXPECT_FALSE(mustParseFieldSelector("spec.nodeName=").matchesObject(kPod));
  EXPECT_FALSE(mustParseFieldSelector("spec.nodeName!=").matchesObject(kPendingPod));
  EXPECT_TRUE(mustParseFieldSelector("spec.nodeName!=").matchesObject(kPod));
  EXPECT_TRUE(mustParseFieldSelector("spec.nodeName!=node-a").matchesObject(kPendingPod));
  EXPECT_FALSE(mustParseFieldSelector("spec.nodeName=node-a").matchesObject(kPendingPod));
  EXPECT_FALSE(mustParseFieldSelector("spec.nodeName=node-a").matchesObject(Json()));
}

TEST(FieldSelectorTest, BooleansCompareAsText) {
  EXPECT_TRUE(mustParseFieldSelector("spec.unschedulable=true").matchesObject(kPod));
  EXPECT_FALSE(mustParseFieldSelector("spec.unschedulable=false").matchesObject(kPod));
}

TEST(FieldSelectorTest, CommaIsAnd) {
  FieldSelector s = mustParseFieldSelector("status.phase=Running,metadata.namespace=default");
  EXPECT_TRUE(s.matchesObject(kPod));
  EXPECT_FALSE(s.matchesObject(kPendingPod));
  EXPECT_FALSE(
      mustParseFieldSelector("metadata.name=web-1,status.phase!=Running").matchesObject(kPod));
}

TEST(FieldSelectorTest, FieldsAreReportedInKubernetesTermOrder) {
  FieldSelector s = mustParseFieldSelector("status.phase=Running,metadata.name=x,spec.nodeName!=n");
  EXPECT_EQ(s.fields(),
            (std::vector<std::string>{"metadata.name", "spec.nodeName", "status.phase"}));
  EXPECT_EQ(s.str(), "metadata.name=x,spec.nodeName!=n,status.phase=Running");
  // Nothing is trimmed: the caller rejects "metadata.name " as an unsupported field.
  FieldSelector spaced = mustParseFieldSelector("metadata.name = x");
  EXPECT_EQ(spaced.fields(), (std::vector<std::string>{"metadata.name "}));
  EXPECT_EQ(spaced.terms()[0].value, " x");
}

TEST(FieldSelectorTest, GetterInterface) {
  std::map<std::string, std::string, std::less<>> fields = {{"metadata.name", "a"},
                                                            {"status.phase", "Running"}};
  auto get = [&fields](std::string_view f) -> std::optional<std::string_view> {
    auto it = fields.find(f);
    if (it == fields.end()) return std::nullopt;
    return std::string_view(it->second);
  };
  EXPECT_TRUE(mustParseFieldSelector("metadata.name=a,status.phase=Running").matches(get));
  EXPECT_FALSE(mustParseFieldSelector("metadata.name=b").matches(get));
  EXPECT_TRUE(mustParseFieldSelector("spec.nodeName=").matches(get));
  EXPECT_TRUE(mustParseFieldSelector("spec.nodeName!=x").matches(get));
}

TEST(FieldSelectorTest, EscapedValues) {
  FieldSelector s = mustParseFieldSelector(R"(metadata.name=a\,b\=c\\d)");
  ASSERT_EQ(s.terms().size(), 1u);
  EXPECT_EQ(s.terms()[0].value, R"(a,b=c\d)");
  EXPECT_EQ(s.str(), R"(metadata.name=a\,b\=c\\d)");
  EXPECT_TRUE(s.matchesObject(J(R"({"metadata":{"name":"a,b=c\\d"}})")));
  EXPECT_EQ(escapeFieldSelectorValue(R"(x,y=z\)"), R"(x\,y\=z\\)");
  // An escaped comma does not split terms.
  EXPECT_EQ(mustParseFieldSelector(R"(a=1\,2,b=3)").terms().size(), 2u);
}

TEST(FieldSelectorTest, RequiresExactMatch) {
  FieldSelector s = mustParseFieldSelector("metadata.name=web-1,status.phase!=Failed");
  EXPECT_EQ(s.requiresExactMatch("metadata.name"), "web-1");
  EXPECT_EQ(s.requiresExactMatch("status.phase"), std::nullopt);
  EXPECT_EQ(s.requiresExactMatch("metadata.namespace"), std::nullopt);
}

TEST(FieldSelectorTest, ParseErrors) {
  EXPECT_EQ(fieldSelectorParseError("foo"), "invalid selector: 'foo'; can't understand 'foo'");
  EXPECT_EQ(fieldSelectorParseError("a=b,foo"),
            "invalid selector: 'a=b,foo'; can't understand 'foo'");
  EXPECT_EQ(fieldSelectorParseError("a in (b)"),
            "invalid selector: 'a in (b)'; can't understand 'a in (b)'");
  // Go prints the offending rune with %v, i.e. as a number.
  EXPECT_EQ(fieldSelectorParseError("a=b=c"),
            "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(fieldSelectorParseError("a!==b"),
            "invalid field selector: unescaped character in value: 61");
  EXPECT_EQ(fieldSelectorParseError(R"(a=b\x)"),
            R"(invalid field selector: invalid escape sequence: \x)");
  EXPECT_EQ(fieldSelectorParseError(R"(a=b\)"),
            R"(invalid field selector: invalid escape sequence: \)");
  EXPECT_EQ(fieldSelectorParseError("a=b"), "");
  EXPECT_EQ(fieldSelectorParseError("=b"),
            "");  // an empty field name parses; the caller rejects it
}

}  // namespace
}  // namespace fakekube
