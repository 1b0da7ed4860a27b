// jsonObject builds the same document as nlohmann's initializer-list constructor, moving its
// values in.
#include "fakekube/api/internal/json_build.h"

#include <gtest/gtest.h>

#include <string>

namespace fakekube {
namespace {

TEST(JsonBuildTest, BuildsTheObjectTheInitializerListBuilds) {
  std::string name = "app";
  const Json built =
      jsonObject("name", name, "count", 3, "ratio", 0.5, "on", true, "nothing", nullptr, "nested",
                 jsonObject("fieldRef", jsonObject("fieldPath", "metadata.name")), "list",
                 Json::array({1, "two"}));
  const Json expected = {
      {"name", "app"},      {"count", 3},
      {"ratio", 0.5},       {"on", true},
      {"nothing", nullptr}, {"nested", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}},
      {"list", {1, "two"}}};
  EXPECT_EQ(built, expected);
  EXPECT_TRUE(jsonObject().is_object()) << "no members: an empty object, not null";
  EXPECT_EQ(jsonObject().dump(), "{}");
}

TEST(JsonBuildTest, MovesItsValuesIn) {
  std::string longText(64, 'x');
  Json value = Json::array({longText});
  const Json built = jsonObject("list", std::move(value));
  EXPECT_TRUE(value.is_null()) << "the moved-from value is left null";
  EXPECT_EQ(built["list"][0], longText);
}

}  // namespace
}  // namespace fakekube
