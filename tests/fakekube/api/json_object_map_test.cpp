// JsonObjectMap: a JSON object's members in a vector sorted by name. It must behave as the
// std::map it replaced wherever nlohmann and our code look (order, lookup, insert, erase,
// equality), and building one from untrusted text must not cost n^2.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/json.h"

namespace fakekube {
namespace {

using Members = Json::object_t;

std::vector<std::string> namesOf(const Json& object) {
  std::vector<std::string> names;
  for (auto it = object.begin(); it != object.end(); ++it) names.push_back(it.key());
  return names;
}

// The same random inserts, overwrites and erases on a std::map and on a Json object leave the
// same members in the same order.
TEST(JsonObjectMapTest, RandomEditsMatchStdMap) {
  std::mt19937 random(11);
  std::map<std::string, int> expected;
  Json object = Json::object();
  for (int step = 0; step < 20000; ++step) {
    const std::string name = "k" + std::to_string(random() % 300);
    switch (random() % 4) {
      case 0:
      case 1:
        expected[name] = step;
        object[name] = step;
        break;
      case 2:
        expected.emplace(name, step);
        object.emplace(name, step);
        break;
      default:
        EXPECT_EQ(object.erase(name), expected.erase(name));
    }
  }
  ASSERT_EQ(object.size(), expected.size());
  auto it = object.begin();
  for (const auto& [name, value] : expected) {
    EXPECT_EQ(it.key(), name);
    EXPECT_EQ(it.value(), value);
    ++it;
  }
}

// Lookups by scan (small objects) and by binary search (larger ones) find every name present,
// and no other: names of equal length and first byte, the empty name, prefixes.
TEST(JsonObjectMapTest, FindsEveryNamePresentAndNoOther) {
  const std::vector<std::string> pool = {
      "",     "a",    "b",        "ab",       "ba",     "aa",
      "abc",  "abd",  "abC",      "z",        "zz",     std::string("a\0", 2),
      "kind", "spec", "metadata", "metadatA", "status", "statuses"};
  std::mt19937 random(5);
  for (std::size_t size = 0; size <= pool.size(); ++size) {
    std::vector<std::string> names = pool;
    std::shuffle(names.begin(), names.end(), random);
    Json object = Json::object();
    for (std::size_t i = 0; i < size; ++i) object[names[i]] = static_cast<int>(i);
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto found = object.find(names[i]);
      if (i < size) {
        ASSERT_NE(found, object.end()) << size << " " << names[i];
        EXPECT_EQ(*found, static_cast<int>(i));
      } else {
        EXPECT_EQ(found, object.end()) << size << " " << names[i];
        EXPECT_FALSE(object.contains(names[i]));
      }
    }
  }
}

// A small object's scan compares names of equal length and first byte inline, in overlapping
// words: for every length from 1 to 40 and every position past the first byte, a name that
// differs from a member in that byte alone is not found, and the member is.
TEST(JsonObjectMapTest, ScanTellsApartNamesDifferingInAnyOneByte) {
  for (std::size_t length = 1; length <= 40; ++length) {
    std::string name(length, 'x');
    for (std::size_t i = 0; i < length; ++i) name[i] = static_cast<char>('a' + i % 26);
    for (std::size_t position = 1; position < length; ++position) {
      std::string other = name;
      other[position] = static_cast<char>(other[position] ^ 0x20);
      Json object = Json::object();
      object[name] = 1;
      object["kind"] = 2;
      ASSERT_LE(object.size(), 8u);  // the scan, not the binary search
      EXPECT_EQ(object.find(other), object.end()) << length << " " << position;
      ASSERT_NE(object.find(name), object.end()) << length;
      object[other] = 3;
      EXPECT_EQ(object[name], 1) << length << " " << position;
      EXPECT_EQ(object[other], 3) << length << " " << position;
    }
  }
}

TEST(JsonObjectMapTest, EmplaceKeepsTheValueOfANamePresent) {
  Members members;
  EXPECT_TRUE(members.emplace("b", 1).second);
  EXPECT_TRUE(members.emplace("a", 2).second);
  auto [it, added] = members.emplace("b", 3);
  EXPECT_FALSE(added);
  EXPECT_EQ(it->first, "b");
  EXPECT_EQ(it->second, 1);
  EXPECT_EQ(members.count("a"), 1U);
  EXPECT_EQ(members.count("c"), 0U);
  EXPECT_EQ(members.begin()->first, "a");
}

TEST(JsonObjectMapTest, EraseByIteratorReturnsTheNextMember) {
  Json object = {{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}};
  for (auto it = object.begin(); it != object.end();) {
    it = it.value().get<int>() % 2 == 0 ? object.erase(it) : std::next(it);
  }
  EXPECT_EQ(object.dump(), R"({"a":1,"c":3})");
}

TEST(JsonObjectMapTest, ComparesAsTheMapDid) {
  const Json a = {{"x", 1}, {"y", {{"z", true}}}};
  Json b = Json::object();
  b["y"]["z"] = true;
  b["x"] = 1;
  EXPECT_EQ(a, b);
  b["x"] = 2;
  EXPECT_NE(a, b);
  EXPECT_LT(a, b);
}

// update() and a range insert: std::map's rules (update overwrites, insert keeps what is there).
TEST(JsonObjectMapTest, UpdateOverwritesAndRangeInsertKeeps) {
  Json object = {{"a", 1}, {"c", 3}};
  object.update(Json{{"c", 30}, {"b", 20}});
  EXPECT_EQ(object.dump(), R"({"a":1,"b":20,"c":30})");
  Json other = {{"a", 100}, {"d", 4}};
  object.insert(other.begin(), other.end());
  EXPECT_EQ(object.dump(), R"({"a":1,"b":20,"c":30,"d":4})");
}

// A nested object keeps its members' addresses when its parent changes: they live in the nested
// object's own allocation.
TEST(JsonObjectMapTest, ANestedObjectsMembersStayPutWhenTheParentGrows) {
  Json object = {{"m", {{"name", "x"}}}};
  const Json* name = &object["m"]["name"];
  for (int i = 0; i < 100; ++i) object["k" + std::to_string(i)] = i;
  EXPECT_EQ(name, &object["m"]["name"]);
  EXPECT_EQ(*name, "x");
}

// Text decoded by parseJsonText: members in order whatever the text's order, the later of two
// duplicates kept (as nlohmann's parser does), the same document as Json::parse gives.
TEST(JsonObjectMapTest, DecodedTextIsSortedWithTheLastDuplicateKept) {
  const std::string text = R"({"z":1,"a":{"y":[{"q":1,"p":2}],"b":2},"m":3,"a2":4,"m":5})";
  auto decoded = parseJsonText(text);
  ASSERT_TRUE(decoded.has_value()) << decoded.error();
  EXPECT_EQ(decoded->dump(), R"({"a":{"b":2,"y":[{"p":2,"q":1}]},"a2":4,"m":5,"z":1})");
  EXPECT_EQ(*decoded, Json::parse(text));
  EXPECT_EQ((*decoded)["m"], 5);
  // Lookups work on the sorted result.
  EXPECT_TRUE(decoded->contains("a2"));
  EXPECT_EQ((*decoded)["a"]["y"][0]["p"], 2);
}

TEST(JsonObjectMapTest, DecodeErrorsReadAsTheParsersMessage) {
  auto decoded = parseJsonText(R"({"a":1,})");
  ASSERT_FALSE(decoded.has_value());
  EXPECT_NE(decoded.error().find("syntax error"), std::string::npos) << decoded.error();
}

// Members in reverse order, as a hostile body might send them: appended as they come and sorted
// once when the object ends (inserting each in its place would move every member before it).
TEST(JsonObjectMapTest, ManyMembersInReverseOrderDecodeSorted) {
  std::string text = "{";
  constexpr int kMembers = 20000;
  for (int i = kMembers; i > 0; --i) {
    text += "\"k" + std::to_string(100000 + i) + "\":" + std::to_string(i);
    if (i > 1) text += ",";
  }
  text += "}";
  auto decoded = parseJsonText(text);
  ASSERT_TRUE(decoded.has_value());
  ASSERT_EQ(decoded->size(), static_cast<std::size_t>(kMembers));
  int expected = 1;
  for (auto it = decoded->begin(); it != decoded->end(); ++it, ++expected) {
    ASSERT_EQ(it.key(), "k" + std::to_string(100000 + expected));
    ASSERT_EQ(it.value(), expected);
  }
}

}  // namespace
}  // namespace fakekube
