// JsonKeyLess orders object members exactly as std::less<std::string> does: documents keep the
// member order (and so the text) they had with nlohmann's default map.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "fakekube/api/json.h"

namespace fakekube {
namespace {

// Names around the comparison's eight-byte steps, sharing prefixes, with bytes above 0x7f (which
// a signed char comparison would put first) and embedded NULs.
std::vector<std::string> keys() {
  std::vector<std::string> out = {"",
                                  "a",
                                  "b",
                                  "metadata",
                                  "metadatA",
                                  "metadata0",
                                  "metadata\x80",
                                  "spec",
                                  "status",
                                  "statuses",
                                  "kind",
                                  std::string("a\0b", 3),
                                  std::string("a\0", 2),
                                  "\xff",
                                  "\x7f",
                                  "creationTimestamp",
                                  "containers"};
  std::mt19937 random(7);
  const std::string alphabet = std::string("ab\x00\x7f\x80\xff", 6);
  for (int i = 0; i < 400; ++i) {
    std::string key(random() % 20, 'a');
    for (char& c : key) c = alphabet[random() % alphabet.size()];
    out.push_back(key);
  }
  return out;
}

TEST(JsonKeyOrderTest, OrdersAsStdLessDoes) {
  const std::vector<std::string> all = keys();
  const JsonKeyLess less;
  const std::less<std::string> expected;
  for (const std::string& a : all) {
    for (const std::string& b : all) {
      ASSERT_EQ(less(a, b), expected(a, b))
          << ::testing::PrintToString(a) << " < " << ::testing::PrintToString(b);
    }
  }
}

TEST(JsonKeyOrderTest, AnObjectSerialisesInByteOrderOfItsNames) {
  Json object = Json::object();
  std::vector<std::string> names = keys();
  for (std::size_t i = 0; i < names.size(); ++i) object[names[i]] = i;
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::vector<std::string> order;
  for (auto it = object.begin(); it != object.end(); ++it) order.push_back(it.key());
  EXPECT_EQ(order, names);
  EXPECT_EQ(Json::parse(R"({"spec":1,"kind":2,"apiVersion":3})").dump(),
            R"({"apiVersion":3,"kind":2,"spec":1})");
}

TEST(JsonKeyOrderTest, LooksUpByViewWithoutBuildingAString) {
  const Json object = {{"metadata", {{"name", "x"}}}, {"spec", 1}};
  EXPECT_NE(object.find(std::string_view("metadata")), object.end());
  EXPECT_EQ(object.find(std::string_view("metadat")), object.end());
  EXPECT_TRUE(object.contains("spec"));
}

// Json is not nlohmann::json (its object map differs); a document built with one converts to the
// other by construction, with every member and the same text.
TEST(JsonKeyOrderTest, ConvertsToAndFromNlohmannJson) {
  const nlohmann::json plain = {{"metadata", {{"name", "x"}, {"labels", {{"b", "2"}, {"a", "1"}}}}},
                                {"spec", {{"replicas", 3}, {"ports", {80, 443}}}},
                                {"ratio", 0.5}};
  const Json ours(plain);
  EXPECT_EQ(ours.dump(), plain.dump());
  EXPECT_EQ(ours["spec"]["ports"][1], 443);
  const nlohmann::json back(ours);
  EXPECT_EQ(back, plain);
}

}  // namespace
}  // namespace fakekube
