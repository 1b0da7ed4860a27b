#include "fakekube/api/merge_patch.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/json_text.h"

namespace fakekube {
namespace {

using testing::J;

Json merged(std::string_view original, std::string_view patch) {
  Json doc = J(original);
  mergePatchInPlace(doc, J(patch));
  return doc;
}

// RFC 7386 Appendix A, every row.
TEST(MergePatchTest, Rfc7386AppendixA) {
  struct Case {
    const char* original;
    const char* patch;
    const char* result;
  };
  const Case cases[] = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
      {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
      {R"({"a":"foo"})", R"(null)", R"(null)"},
      {R"({"a":"foo"})", R"("bar")", R"("bar")"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(merged(c.original, c.patch), J(c.result)) << c.original << " + " << c.patch;
  }
}

// The worked example of RFC 7386 section 3.
TEST(MergePatchTest, Rfc7386Section3Example) {
  Json doc = J(R"({
    "title": "Goodbye!",
    "author": {"givenName": "John", "familyName": "Doe"},
    "tags": ["example", "sample"],
    "content": "This will be unchanged"
  })");
  auto r = applyMergePatch(doc, R"({
    "title": "Hello!",
    "phoneNumber": "+01-123-456-7890",
    "author": {"familyName": null},
    "tags": ["example"]
  })");
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(*r, J(R"({
    "title": "Hello!",
    "author": {"givenName": "John"},
    "tags": ["example"],
    "content": "This will be unchanged",
    "phoneNumber": "+01-123-456-7890"
  })"));
  // The input is not modified.
  EXPECT_EQ(doc["title"], "Goodbye!");
}

TEST(MergePatchTest, KubernetesObjectPatch) {
  auto r =
      applyMergePatch(J(R"({"metadata":{"name":"c","labels":{"a":"1","b":"2"}},"data":{"k":"v"}})"),
                      R"({"metadata":{"labels":{"a":null,"c":"3"}},"data":{"k2":"v2"}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, J(R"({"metadata":{"name":"c","labels":{"b":"2","c":"3"}},
                      "data":{"k":"v","k2":"v2"}})"));
}

TEST(MergePatchTest, InvalidJsonIsBadRequest) {
  auto r = applyMergePatch(J("{}"), "{not json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, 400);
  EXPECT_TRUE(isBadRequest(r.error()));
  EXPECT_TRUE(r.error().message.starts_with("error decoding patch: ")) << r.error().message;
}

TEST(MergePatchTest, NonObjectPatchIsBadRequestForObjects) {
  for (const char* patch : {"[1]", "null", "\"x\"", "3", "true"}) {
    auto r = applyMergePatch(J(R"({"a":1})"), patch);
    ASSERT_FALSE(r) << patch;
    EXPECT_EQ(r.error().code, 400) << patch;
    EXPECT_TRUE(r.error().message.starts_with("error decoding patch: ")) << r.error().message;
  }
}

TEST(MergePatchTest, CreateMergePatch) {
  EXPECT_EQ(createMergePatch(J(R"({"a":1})"), J(R"({"a":1})")), J("{}"));
  EXPECT_EQ(createMergePatch(J(R"({"a":1,"b":2})"), J(R"({"a":1})")), J(R"({"b":null})"));
  EXPECT_EQ(createMergePatch(J(R"({"a":1})"), J(R"({"a":2,"c":[1]})")), J(R"({"a":2,"c":[1]})"));
  EXPECT_EQ(createMergePatch(J(R"({"m":{"x":1,"y":2,"z":{"q":1}}})"),
                             J(R"({"m":{"x":1,"y":3,"z":{"q":1}}})")),
            J(R"({"m":{"y":3}})"));
  EXPECT_EQ(createMergePatch(J(R"({"l":[1,2,3]})"), J(R"({"l":[1,2]})")), J(R"({"l":[1,2]})"));
  EXPECT_EQ(createMergePatch(J(R"({"a":{"b":1}})"), J(R"({"a":"s"})")), J(R"({"a":"s"})"));
  EXPECT_EQ(createMergePatch(J(R"({"a":1})"), J("[1]")), J("[1]"));
}

TEST(MergePatchTest, CreateThenApplyRoundTrips) {
  const std::pair<const char*, const char*> pairs[] = {
      {R"({})", R"({"a":{"b":{"c":[1,{"d":2}]}}})"},
      {R"({"a":{"b":{"c":1}},"x":"y"})", R"({})"},
      {R"({"metadata":{"labels":{"a":"1"},"annotations":{"n":"v"}},"spec":{"replicas":1}})",
       R"({"metadata":{"labels":{"a":"2","b":"3"}},"spec":{"replicas":3,"paused":true}})"},
      {R"({"a":[1,2],"b":{"c":"d"}})", R"({"a":[2],"b":{"c":{"e":"f"}}})"},
      {R"({"a":{"b":1}})", R"({"a":5})"},
      {R"({"a":5})", R"({"a":{"b":1}})"},
  };
  for (const auto& [from, to] : pairs) {
    Json original = J(from);
    Json patch = createMergePatch(original, J(to));
    mergePatchInPlace(original, patch);
    EXPECT_EQ(original, J(to)) << from << " -> " << to << " via " << patch.dump();
  }
}

}  // namespace
}  // namespace fakekube
