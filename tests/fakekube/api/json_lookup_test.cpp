// json_lookup.h: reading a path that may be absent (jsonAt, with a path written out or known only
// at run time), the array and object views that never copy or throw, jsonMember for writing, and
// sameJson telling 1 from 1.0.
#include "fakekube/api/json_lookup.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fakekube {
namespace {

const Json kLookedUpPod = Json::parse(R"({
  "metadata": {"name": "web", "labels": {"app": "web"}},
  "spec": {"nodeName": "node-1", "containers": [{"name": "c"}]},
  "status": "not an object"
})");

TEST(JsonLookupTest, JsonAtFollowsAPathOrAnswersNull) {
  EXPECT_EQ(jsonAt(kLookedUpPod, {"spec", "nodeName"}), "node-1");
  EXPECT_EQ(&jsonAt(kLookedUpPod, {"metadata", "labels"}), &kLookedUpPod["metadata"]["labels"])
      << "a reference into the document, not a copy";
  EXPECT_EQ(&jsonAt(kLookedUpPod, {}), &kLookedUpPod);
  EXPECT_TRUE(jsonAt(kLookedUpPod, {"spec", "hostname"}).is_null()) << "a missing member";
  EXPECT_TRUE(jsonAt(kLookedUpPod, {"status", "phase"}).is_null())
      << "a step that is not an object";
  EXPECT_TRUE(jsonAt(kLookedUpPod, {"spec", "containers", "0"}).is_null())
      << "arrays are not indexed";
  EXPECT_TRUE(jsonAt(Json(), {"spec"}).is_null());
}

TEST(JsonLookupTest, JsonAtTakesAPathKnownAtRunTimeAlike) {
  for (const std::vector<std::string>& path :
       std::vector<std::vector<std::string>>{{"spec", "nodeName"},
                                             {"metadata", "labels", "app"},
                                             {"spec", "hostname"},
                                             {"status", "phase"},
                                             {}}) {
    std::string written;
    for (const auto& key : path) written += "/" + key;
    const Json* expected = &kLookedUpPod;
    for (const auto& key : path) {
      if (!expected->is_object() || !expected->contains(key)) {
        expected = nullptr;
        break;
      }
      expected = &(*expected)[key];
    }
    if (expected == nullptr) {
      EXPECT_TRUE(jsonAt(kLookedUpPod, path).is_null()) << written;
    } else {
      EXPECT_EQ(&jsonAt(kLookedUpPod, path), expected) << written;
    }
  }
}

TEST(JsonLookupTest, ArrayAndObjectViewsNeverThrow) {
  EXPECT_EQ(jsonArrayAt(kLookedUpPod["spec"], "containers").size(), 1u);
  EXPECT_TRUE(jsonArrayAt(kLookedUpPod["spec"], "nodeName").empty()) << "a string is no array";
  EXPECT_TRUE(jsonArrayAt(Json(42), "containers").empty());
  EXPECT_TRUE(jsonArrayAt(Json(42), "containers").is_array());
  EXPECT_EQ(jsonObjectAt(kLookedUpPod, "metadata")["name"], "web");
  EXPECT_TRUE(jsonObjectAt(kLookedUpPod, "status").empty()) << "a string is no object";
  EXPECT_TRUE(jsonObjectAt(kLookedUpPod, "status").is_object());
}

TEST(JsonLookupTest, JsonMemberInsertsNullAsOperatorBracketDoes) {
  Json object;
  jsonMember(object, "status") = "x";
  EXPECT_EQ(object, Json({{"status", "x"}})) << "null becomes an object";
  EXPECT_TRUE(jsonMember(object, "spec").is_null());
  EXPECT_TRUE(object.contains("spec"));
  EXPECT_EQ(jsonMember(object, "status"), "x") << "an existing member is found, not replaced";
  Json number = 1;
  EXPECT_THROW(jsonMember(number, "x"), nlohmann::json::type_error);
}

TEST(JsonLookupTest, JsonFindPointsIntoTheObjectOrAnswersNullptr) {
  Json pod = Json::parse(R"({"metadata":{"name":"p"},"spec":null,"status":[1]})");
  const Json* metadata = jsonFind(pod, "metadata");
  ASSERT_NE(metadata, nullptr);
  EXPECT_EQ(metadata, &pod["metadata"]) << "the member itself, not a copy";
  ASSERT_NE(jsonFind(pod, "spec"), nullptr) << "a null member is a member";
  EXPECT_TRUE(jsonFind(pod, "spec")->is_null());
  EXPECT_EQ(jsonFind(pod, "absent"), nullptr);
  EXPECT_EQ(jsonFind(pod, ""), nullptr);
  EXPECT_EQ(jsonFind(pod["status"], "0"), nullptr) << "an array has no members";
  EXPECT_EQ(jsonFind(Json("text"), "a"), nullptr);
  EXPECT_EQ(jsonFind(Json(), "a"), nullptr);
  // Past the scanned size, where the lookup searches by halves.
  Json wide = Json::object();
  for (int i = 0; i < 40; ++i) wide["key" + std::to_string(i)] = i;
  for (int i = 0; i < 40; ++i) {
    const Json* found = jsonFind(wide, "key" + std::to_string(i));
    ASSERT_NE(found, nullptr) << i;
    EXPECT_EQ(*found, i);
  }
  EXPECT_EQ(jsonFind(wide, "key40"), nullptr);
}

TEST(JsonLookupTest, SameJsonTellsNumberKindsApart) {
  EXPECT_TRUE(sameJson(Json::parse(R"({"a":[1,"x",{"b":null}]})"),
                       Json::parse(R"({"a":[1,"x",{"b":null}]})")));
  EXPECT_FALSE(sameJson(Json(1), Json(1.0)));
  EXPECT_TRUE(Json(1) == Json(1.0)) << "where operator== does not";
  EXPECT_FALSE(sameJson(Json::parse(R"({"a":[1]})"), Json::parse(R"({"a":[1.0]})")));
  EXPECT_FALSE(sameJson(Json::parse(R"({"a":1})"), Json::parse(R"({"a":1,"b":2})")));
  EXPECT_FALSE(sameJson(Json::parse("[1,2]"), Json::parse("[2,1]")));
  EXPECT_FALSE(sameJson(Json::parse(R"({"a":1})"), Json::parse(R"({"b":1})"))) << "names differ";
  const Json document = Json::parse(R"({"a":[1,{"b":2.5}]})");
  EXPECT_TRUE(sameJson(document, document)) << "a document is the same as itself";
}

}  // namespace
}  // namespace fakekube
