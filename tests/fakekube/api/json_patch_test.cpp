#include "fakekube/api/json_patch.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/json_text.h"

namespace fakekube {
namespace {

using testing::J;

// Applies `patch` to `doc` (both JSON text) and returns the result; fails the test on error.
Json jsonPatched(std::string_view doc, std::string_view patch) {
  auto r = applyJsonPatch(J(doc), patch);
  EXPECT_TRUE(r.has_value()) << patch << ": " << (r ? "" : r.error().str());
  return r ? *r : Json();
}

// The error applying `patch` to `doc` gives; fails the test if it applied.
Status jsonPatchFailure(std::string_view doc, std::string_view patch) {
  auto r = applyJsonPatch(J(doc), patch);
  EXPECT_FALSE(r.has_value()) << patch << " applied: " << (r ? r->dump() : "");
  return r ? Status() : r.error();
}

void expectBadRequest(std::string_view doc, std::string_view patch) {
  Status s = jsonPatchFailure(doc, patch);
  EXPECT_EQ(s.code, 400) << patch << ": " << s.str();
  EXPECT_TRUE(isBadRequest(s)) << patch;
  EXPECT_TRUE(s.message.starts_with("error decoding patch: ")) << s.message;
}

void expectUnprocessable(std::string_view doc, std::string_view patch) {
  Status s = jsonPatchFailure(doc, patch);
  EXPECT_EQ(s.code, 422) << patch << ": " << s.str();
  EXPECT_TRUE(isInvalid(s)) << patch;
}

// --- RFC 6902 Appendix A ---

TEST(JsonPatchTest, A1AddingAnObjectMember) {
  EXPECT_EQ(jsonPatched(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])"),
            J(R"({"baz":"qux","foo":"bar"})"));
}

TEST(JsonPatchTest, A2AddingAnArrayElement) {
  EXPECT_EQ(
      jsonPatched(R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])"),
      J(R"({"foo":["bar","qux","baz"]})"));
}

TEST(JsonPatchTest, A3RemovingAnObjectMember) {
  EXPECT_EQ(jsonPatched(R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])"),
            J(R"({"foo":"bar"})"));
}

TEST(JsonPatchTest, A4RemovingAnArrayElement) {
  EXPECT_EQ(jsonPatched(R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])"),
            J(R"({"foo":["bar","baz"]})"));
}

TEST(JsonPatchTest, A5ReplacingAValue) {
  EXPECT_EQ(jsonPatched(R"({"baz":"qux","foo":"bar"})",
                        R"([{"op":"replace","path":"/baz","value":"boo"}])"),
            J(R"({"baz":"boo","foo":"bar"})"));
}

TEST(JsonPatchTest, A6MovingAValue) {
  EXPECT_EQ(jsonPatched(R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
                        R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])"),
            J(R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"));
}

TEST(JsonPatchTest, A7MovingAnArrayElement) {
  EXPECT_EQ(jsonPatched(R"({"foo":["all","grass","cows","eat"]})",
                        R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])"),
            J(R"({"foo":["all","cows","eat","grass"]})"));
}

TEST(JsonPatchTest, A8TestingAValueSuccess) {
  const char* doc = R"({"baz":"qux","foo":["a",2,"c"]})";
  EXPECT_EQ(jsonPatched(doc, R"([{"op":"test","path":"/baz","value":"qux"},
                             {"op":"test","path":"/foo/1","value":2}])"),
            J(doc));
}

TEST(JsonPatchTest, A9TestingAValueError) {
  Status s = jsonPatchFailure(R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])");
  EXPECT_EQ(s.code, 422);
  EXPECT_EQ(s.reason, "Invalid");
  EXPECT_EQ(s.message, "testing value /baz failed");
}

TEST(JsonPatchTest, A10AddingANestedMemberObject) {
  EXPECT_EQ(jsonPatched(R"({"foo":"bar"})",
                        R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])"),
            J(R"({"foo":"bar","child":{"grandchild":{}}})"));
}

TEST(JsonPatchTest, A11IgnoringUnrecognizedElements) {
  EXPECT_EQ(
      jsonPatched(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])"),
      J(R"({"foo":"bar","baz":"qux"})"));
}

TEST(JsonPatchTest, A12AddingToANonexistentTarget) {
  Status s =
      jsonPatchFailure(R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])");
  EXPECT_EQ(s.code, 422);
  EXPECT_EQ(s.message,
            R"(jsonpatch add operation does not apply: doc is missing path: "/baz/bat")");
}

TEST(JsonPatchTest, A13DuplicateMembersLastOneWinsAsInGo) {
  // RFC 6902 calls this patch invalid; Go's encoding/json (and so the API server) keeps the last
  // "op", which here is a remove of a missing member.
  expectUnprocessable(R"({"foo":"bar"})",
                      R"([{"op":"add","path":"/baz","value":"qux","op":"remove"}])");
}

TEST(JsonPatchTest, A14TildeEscapeOrdering) {
  const char* doc = R"({"/":9,"~1":10})";
  EXPECT_EQ(jsonPatched(doc, R"([{"op":"test","path":"/~01","value":10}])"), J(doc));
}

TEST(JsonPatchTest, A15ComparingStringsAndNumbers) {
  Status s =
      jsonPatchFailure(R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":"10"}])");
  EXPECT_EQ(s.code, 422);
  EXPECT_EQ(s.message, "testing value /~01 failed");
}

TEST(JsonPatchTest, A16AddingAnArrayValue) {
  EXPECT_EQ(
      jsonPatched(R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])"),
      J(R"({"foo":["bar",["abc","def"]]})"));
}

// --- beyond the appendix ---

TEST(JsonPatchTest, Copy) {
  EXPECT_EQ(jsonPatched(R"({"a":{"b":[1,2]},"c":{}})",
                        R"([{"op":"copy","from":"/a/b","path":"/c/d"},
                        {"op":"add","path":"/c/d/-","value":3}])"),
            J(R"({"a":{"b":[1,2]},"c":{"d":[1,2,3]}})"));
  Status s = jsonPatchFailure(R"({"a":1})", R"([{"op":"copy","from":"/x","path":"/y"}])");
  EXPECT_EQ(s.code, 422);
  EXPECT_EQ(s.message,
            R"(jsonpatch copy operation does not apply: doc is missing from path: "/x")");
}

TEST(JsonPatchTest, EscapedPointers) {
  EXPECT_EQ(
      jsonPatched(R"({"metadata":{"labels":{}}})",
                  R"([{"op":"add","path":"/metadata/labels/app.kubernetes.io~1name","value":"x"},
                        {"op":"add","path":"/metadata/labels/a~0b","value":"y"}])"),
      J(R"({"metadata":{"labels":{"app.kubernetes.io/name":"x","a~b":"y"}}})"));
  EXPECT_EQ(jsonPatched(R"({"a/b":1})", R"([{"op":"remove","path":"/a~1b"}])"), J("{}"));
}

TEST(JsonPatchTest, AddReplacesAnExistingMemberAndTheRoot) {
  EXPECT_EQ(jsonPatched(R"({"a":1})", R"([{"op":"add","path":"/a","value":2}])"), J(R"({"a":2})"));
  EXPECT_EQ(jsonPatched(R"({"a":1})", R"([{"op":"add","path":"","value":[1]}])"), J("[1]"));
  EXPECT_EQ(jsonPatched(R"({"a":1})", R"([{"op":"replace","path":"","value":{"b":2}}])"),
            J(R"({"b":2})"));
  // "value": null is a value.
  EXPECT_EQ(jsonPatched(R"({"a":1})", R"([{"op":"replace","path":"/a","value":null}])"),
            J(R"({"a":null})"));
}

TEST(JsonPatchTest, ArrayIndices) {
  EXPECT_EQ(jsonPatched(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/2","value":3}])"),
            J(R"({"a":[1,2,3]})"));
  EXPECT_EQ(jsonPatched(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/0","value":0}])"),
            J(R"({"a":[0,1,2]})"));
  EXPECT_EQ(jsonPatched(R"({"a":[1,2]})", R"([{"op":"replace","path":"/a/1","value":5}])"),
            J(R"({"a":[1,5]})"));

  Status s = jsonPatchFailure(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/3","value":3}])");
  EXPECT_EQ(s.code, 422);
  EXPECT_EQ(s.message, R"(jsonpatch add operation does not apply: index out of range: "/a/3")");
  expectUnprocessable(R"({"a":[1,2]})", R"([{"op":"remove","path":"/a/2"}])");
  expectUnprocessable(R"({"a":[1,2]})", R"([{"op":"remove","path":"/a/-"}])");
  expectUnprocessable(R"({"a":[1,2]})", R"([{"op":"replace","path":"/a/01","value":0}])");
  expectUnprocessable(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/-1","value":0}])");
  expectUnprocessable(R"({"a":[1,2]})", R"([{"op":"test","path":"/a/x","value":1}])");
}

TEST(JsonPatchTest, MissingPathsAreUnprocessable) {
  Status s = jsonPatchFailure(R"({"spec":{}})", R"([{"op":"remove","path":"/spec/x"}])");
  EXPECT_EQ(s.code, 422);
  EXPECT_EQ(s.reason, "Invalid");
  EXPECT_EQ(s.message,
            R"(jsonpatch remove operation does not apply: doc is missing path: "/spec/x")");

  s = jsonPatchFailure(R"({"spec":{}})", R"([{"op":"replace","path":"/spec/x","value":1}])");
  EXPECT_EQ(s.message,
            R"(jsonpatch replace operation does not apply: doc is missing path: "/spec/x")");

  s = jsonPatchFailure(R"({"spec":{}})", R"([{"op":"move","from":"/spec/x","path":"/y"}])");
  EXPECT_EQ(s.message,
            R"(jsonpatch move operation does not apply: doc is missing from path: "/spec/x")");

  s = jsonPatchFailure(R"({"metadata":{"name":"a"}})",
                       R"([{"op":"test","path":"/metadata/name","value":"b"}])");
  EXPECT_EQ(s.message, "testing value /metadata/name failed");
  s = jsonPatchFailure(R"({"metadata":{}})",
                       R"([{"op":"test","path":"/metadata/name","value":"b"}])");
  EXPECT_EQ(s.message, "testing value /metadata/name failed");

  // Walking through a scalar.
  expectUnprocessable(R"({"a":1})", R"([{"op":"add","path":"/a/b","value":1}])");
  expectUnprocessable(R"({"a":1})", R"([{"op":"remove","path":""}])");
}

TEST(JsonPatchTest, MoveIntoItsOwnChildIsRefused) {
  Status s =
      jsonPatchFailure(R"({"a":{"b":{}}})", R"([{"op":"move","from":"/a","path":"/a/b/c"}])");
  EXPECT_EQ(s.code, 422);
  // Moving onto itself is a no-op; "/ab" is not a child of "/a".
  EXPECT_EQ(jsonPatched(R"({"a":1})", R"([{"op":"move","from":"/a","path":"/a"}])"),
            J(R"({"a":1})"));
  EXPECT_EQ(jsonPatched(R"({"a":1})", R"([{"op":"move","from":"/a","path":"/ab"}])"),
            J(R"({"ab":1})"));
}

TEST(JsonPatchTest, TestComparesJsonValues) {
  const char* doc = R"({"n":1,"o":{"x":1,"y":[1,{"z":null}]}})";
  EXPECT_EQ(jsonPatched(doc, R"([{"op":"test","path":"/n","value":1.0},
                             {"op":"test","path":"/o","value":{"y":[1,{"z":null}],"x":1}},
                             {"op":"test","path":"","value":)" +
                                 std::string(doc) + "}]"),
            J(doc));
  expectUnprocessable(doc, R"([{"op":"test","path":"/o/y","value":[{"z":null},1]}])");
}

TEST(JsonPatchTest, AFailingOperationAppliesNothing) {
  Json doc = J(R"({"a":1})");
  auto r = applyJsonPatch(doc, R"([{"op":"add","path":"/b","value":2},
                                   {"op":"remove","path":"/missing"}])");
  ASSERT_FALSE(r);
  EXPECT_EQ(doc, J(R"({"a":1})"));
  EXPECT_EQ(jsonPatched(R"({"a":1})", "[]"), J(R"({"a":1})"));
}

TEST(JsonPatchTest, MalformedPatchesAreBadRequests) {
  const char* doc = R"({"a":1})";
  expectBadRequest(doc, "not json");
  expectBadRequest(doc, "[{");
  expectBadRequest(doc, R"({"op":"add","path":"/b","value":1})");
  expectBadRequest(doc, R"("[]")");
  expectBadRequest(doc, "[1]");
  expectBadRequest(doc, R"([{"path":"/a"}])");
  expectBadRequest(doc, R"([{"op":5,"path":"/a"}])");
  expectBadRequest(doc, R"([{"op":"frobnicate","path":"/a"}])");
  expectBadRequest(doc, R"([{"op":"remove"}])");
  expectBadRequest(doc, R"([{"op":"add","path":"/b"}])");
  expectBadRequest(doc, R"([{"op":"test","path":"/a"}])");
  expectBadRequest(doc, R"([{"op":"move","path":"/b"}])");
  expectBadRequest(doc, R"([{"op":"copy","path":"/b","from":3}])");
  expectBadRequest(doc, R"([{"op":"remove","path":"a"}])");
  expectBadRequest(doc, R"([{"op":"remove","path":"/a~2"}])");
  expectBadRequest(doc, R"([{"op":"remove","path":"/a~"}])");
  // Malformed anywhere is a 400, even after an operation that would fail to apply.
  expectBadRequest(doc, R"([{"op":"remove","path":"/missing"},{"op":"bogus","path":"/a"}])");

  Status s = jsonPatchFailure(doc, R"([{"op":"frobnicate","path":"/a"}])");
  EXPECT_EQ(s.message, R"(error decoding patch: operation 0 has unknown op "frobnicate")");
}

TEST(JsonPatchTest, TooManyOperations) {
  Json patch = Json::array();
  for (size_t i = 0; i <= kMaxJsonPatchOperations; ++i) {
    patch.push_back({{"op", "test"}, {"path", ""}, {"value", nullptr}});
  }
  auto r = applyParsedJsonPatch(Json(), patch);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, 413);
}

TEST(JsonPatchTest, ParsedForm) {
  Json patch = J(R"([{"op":"add","path":"/metadata/labels","value":{"a":"b"}}])");
  auto r = applyParsedJsonPatch(J(R"({"metadata":{"name":"x"}})"), patch);
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, J(R"({"metadata":{"name":"x","labels":{"a":"b"}}})"));
  auto bad = applyParsedJsonPatch(J("{}"), J("{}"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, 400);
}

}  // namespace
}  // namespace fakekube
