// YAML to JSON with go-yaml v2's scalar typing, as the API server reads apply bodies.
#include "fakekube/api/yaml.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace fakekube {
namespace {

Json decoded(std::string_view text) {
  auto result = decodeYaml(text);
  if (!result) {
    ADD_FAILURE() << result.error().str();
    return Json();
  }
  return *result;
}

TEST(YamlTest, PlainScalarsAreTypedByYaml11Rules) {
  Json out = decoded(R"(
int: 8080
quoted: "8080"
single: '080'
yes: yes
onValue: On
no: n
tilde: ~
empty:
float: 1.5
leadingDot: .5
integral: 3.0
exponent: 1e3
hex: 0x1F
octal: 0755
binary: 0b101
underscores: 1_000
negative: -7
notOctal: 08
date: 2024-01-01
text: hello world
tagged: !!str 12
version: 1.27.3
)");
  EXPECT_EQ(out["int"], 8080);
  EXPECT_EQ(out["quoted"], "8080");
  EXPECT_EQ(out["single"], "080");
  EXPECT_EQ(out["true"], true);  // the key `yes` is the boolean true, named "true"
  EXPECT_EQ(out["true"].type(), Json::value_t::boolean);
  EXPECT_EQ(out["onValue"], true);
  EXPECT_EQ(out["false"], false);  // `no: n`
  EXPECT_TRUE(out["tilde"].is_null());
  EXPECT_TRUE(out["empty"].is_null());
  EXPECT_EQ(out["float"], 1.5);
  EXPECT_EQ(out["leadingDot"], 0.5);
  EXPECT_TRUE(out["integral"].is_number_integer());
  EXPECT_EQ(out["integral"], 3);
  EXPECT_EQ(out["exponent"], 1000);
  EXPECT_EQ(out["hex"], 31);
  EXPECT_EQ(out["octal"], 493);
  EXPECT_EQ(out["binary"], 5);
  EXPECT_EQ(out["underscores"], 1000);
  EXPECT_EQ(out["negative"], -7);
  EXPECT_EQ(out["notOctal"], 8);  // not an octal integer, but a float
  EXPECT_EQ(out["date"], "2024-01-01");
  EXPECT_EQ(out["text"], "hello world");
  EXPECT_EQ(out["tagged"], "12");
  EXPECT_EQ(out["version"], "1.27.3");
}

TEST(YamlTest, NestedStructuresAndKeys) {
  Json out = decoded(R"(
apiVersion: v1
kind: ConfigMap
metadata:
  name: c1
  labels: {app: web}
data:
  1: one
list:
- a
- {b: 2}
)");
  EXPECT_EQ(out, Json::parse(R"({"apiVersion": "v1", "kind": "ConfigMap",
                                 "metadata": {"name": "c1", "labels": {"app": "web"}},
                                 "data": {"1": "one"}, "list": ["a", {"b": 2}]})"));
}

TEST(YamlTest, AnchorsAndMergeKeys) {
  Json out = decoded(R"(
base: &base {a: 1, b: 2}
derived:
  <<: *base
  b: 3
copy: *base
)");
  EXPECT_EQ(out["derived"], Json::parse(R"({"a": 1, "b": 3})"));
  EXPECT_EQ(out["copy"], Json::parse(R"({"a": 1, "b": 2})"));
}

TEST(YamlTest, OnlyTheFirstDocumentIsRead) {
  EXPECT_EQ(decoded("a: 1\n---\nb: 2\n"), Json::parse(R"({"a": 1})"));
  EXPECT_TRUE(decoded("").is_null());
}

TEST(YamlTest, ErrorsAreBadRequests) {
  auto duplicate = decodeYaml("a: 1\na: 2\n");
  ASSERT_FALSE(duplicate);
  EXPECT_EQ(duplicate.error().code, 400);
  EXPECT_EQ(duplicate.error().message,
            "error converting YAML to JSON: yaml: unmarshal errors:\n  line 2: key \"a\" already "
            "set in map");
  auto broken = decodeYaml("a: [1, 2\nb: 3\n");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().code, 400);
  EXPECT_EQ(broken.error().message.rfind("error converting YAML to JSON: yaml: line ", 0), 0u)
      << broken.error().message;
  auto infinite = decodeYaml("a: .inf\n");
  ASSERT_FALSE(infinite);
  EXPECT_EQ(infinite.error().message,
            "error converting YAML to JSON: json: unsupported value: .inf");
}

// A float beyond double's range is infinity, refused as .inf is; below it, 0 (strconv.ParseFloat).
// The fuzzer found the overflow aborting the process (std::stod's out_of_range).
TEST(YamlTest, FloatsOutOfDoublesRangeAreErrorsNotCrashes) {
  const std::string huge = "1" + std::string(400, '9') + ".5";
  auto overflow = decodeYaml("a: " + huge + "\n");
  ASSERT_FALSE(overflow);
  EXPECT_EQ(overflow.error().code, 400);
  EXPECT_EQ(overflow.error().message,
            "error converting YAML to JSON: json: unsupported value: " + huge);
  auto exponent = decodeYaml("a: .5e999\n");
  ASSERT_FALSE(exponent);
  EXPECT_EQ(exponent.error().code, 400);
  auto underflow = decodeYaml("a: 1e-400\n");
  ASSERT_TRUE(underflow) << underflow.error().message;
  EXPECT_EQ((*underflow)["a"], 0);
}

TEST(YamlTest, InvalidUtf8IsGoYamlsReaderError) {
  // go-yaml reads UTF-8 only (a fuzzer found the bytes reaching a field error's dump(), which
  // throws on them).
  auto leading = decodeYaml("a: \xff\n");
  ASSERT_FALSE(leading);
  EXPECT_EQ(leading.error().code, 400);
  EXPECT_EQ(leading.error().message,
            "error converting YAML to JSON: yaml: invalid leading UTF-8 octet");
  EXPECT_EQ(decodeYaml("a: \xe2\x82").error().message,
            "error converting YAML to JSON: yaml: incomplete UTF-8 octet sequence");
  EXPECT_EQ(decodeYaml("a: \xe2(b\n").error().message,
            "error converting YAML to JSON: yaml: invalid trailing UTF-8 octet");
  EXPECT_EQ(decodeYaml("a: \xc0\xaf"
                       "b\n")
                .error()
                .message,
            "error converting YAML to JSON: yaml: invalid length of a UTF-8 sequence");
  auto fine = decodeYaml("a: caf\xc3\xa9 \xf0\x9f\x98\x80\n");
  ASSERT_TRUE(fine);
  EXPECT_EQ((*fine)["a"], "caf\xc3\xa9 \xf0\x9f\x98\x80");
}

}  // namespace
}  // namespace fakekube
