// The fast JSON writer: its output parses back to the same document, with JSON's escapes, and it
// never throws where dump() would.
#include "fakekube/api/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace fakekube {
namespace {

TEST(JsonWriterTest, OutputParsesBackToTheSameDocument) {
  Json doc = Json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "labels": {"a": "b"}, "annotations": {}},
    "spec": {"containers": [{"name": "c", "image": "x:1", "args": ["--a=1", "", "ü"]}],
             "priority": -3, "big": 18446744073709551615, "ratio": 0.25, "flag": false,
             "nothing": null, "empty": [], "nested": [[1, 2], {"k": [true]}]}})");
  std::string text = toJsonText(doc);
  EXPECT_EQ(Json::parse(text), doc);
  EXPECT_EQ(text, doc.dump()) << "same bytes as dump() for ordinary documents";
}

// The bound a store checks its size limit with is never below what the writer writes, for plain
// text, the longest escapes, invalid UTF-8 and numbers at their widest.
TEST(JsonWriterTest, SizeBoundIsNeverBelowTheTextWritten) {
  const Json docs[] = {
      Json::parse(R"({"metadata": {"name": "p", "labels": {"a": "b"}}, "spec": {"n": [1, 2.5]}})"),
      {{"controls", std::string(100, '\x01')}, {"quotes", std::string(50, '"')}},
      {{std::string(20, '\x1f'), std::string("\xff\xfe\x80", 3)}},
      {{"min", std::numeric_limits<std::int64_t>::min()},
       {"max", std::numeric_limits<std::uint64_t>::max()},
       {"double", -1.2345678901234567e-300},
       {"whole", 1e21},
       {"list", Json::array({nullptr, true, false, Json::object(), Json::array()})}},
      Json(),
      Json("x"),
      Json::array(),
      Json::object()};
  for (const Json& doc : docs) {
    const std::size_t written = toJsonText(doc).size();
    EXPECT_GE(jsonTextSizeBound(doc), written) << toJsonText(doc);
    EXPECT_LE(jsonTextSizeBound(doc), 6 * written + 40) << "a bound, not a guess";
  }
}

TEST(JsonWriterTest, EscapesWhatJsonStringsCannotHold) {
  Json doc = {{"s", std::string("quote\" backslash\\ newline\n tab\t cr\r bell\x07 nul") +
                        std::string(1, '\0')}};
  std::string text = toJsonText(doc);
  EXPECT_EQ(text, R"({"s":"quote\" backslash\\ newline\n tab\t cr\r bell\u0007 nul\u0000"})");
  EXPECT_EQ(Json::parse(text), doc);
}

// Strings are scanned eight bytes at a time: a byte that needs escaping must be found at every
// offset within a word and in the tail after the last whole word, next to bytes that need none.
TEST(JsonWriterTest, FindsEveryByteToEscapeAtEveryOffset) {
  const std::string specials[] = {"\"",   "\\",   "\n",       "\t",          std::string(1, '\0'),
                                  "\x01", "\x1f", "\xC3\xA9", "\xE2\x82\xAC"};
  const std::string plain[] = {" ", "~", "\x7f", "!", "#", "[", "]", "a"};
  for (const std::string& special : specials) {
    for (std::size_t before = 0; before < 20; ++before) {
      for (std::size_t after : {0, 1, 7, 8, 9}) {
        std::string text(before, 'x');
        text += special;
        text += std::string(after, 'y');
        Json doc = {{text, text}};
        std::string written = toJsonText(doc);
        ASSERT_EQ(written, doc.dump()) << "special byte after " << before << " plain bytes";
      }
    }
  }
  for (const std::string& p : plain) {
    for (std::size_t length = 1; length < 20; ++length) {
      std::string text;
      for (std::size_t i = 0; i < length; ++i) text += p;
      EXPECT_EQ(toJsonText(Json(text)), "\"" + text + "\"") << "copied as it is";
    }
  }
}

TEST(JsonWriterTest, KeepsValidUtf8AndReplacesInvalidBytes) {
  Json valid = {{"s", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"}};
  EXPECT_EQ(Json::parse(toJsonText(valid)), valid);
  Json invalid = {{"s", std::string("a\xFF"
                                    "b\xC3")}};
  EXPECT_THROW((void)invalid.dump(), Json::type_error) << "what the writer avoids";
  EXPECT_EQ(toJsonText(invalid),
            "{\"s\":\"a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD\"}");
}

TEST(JsonWriterTest, DoublesStayDoublesAndNonFiniteBecomesNull) {
  EXPECT_EQ(toJsonText(Json(1.0)), "1.0");
  EXPECT_EQ(toJsonText(Json(0.5)), "0.5");
  EXPECT_TRUE(Json::parse(toJsonText(Json(1.0))).is_number_float());
  EXPECT_EQ(toJsonText(Json(std::numeric_limits<double>::quiet_NaN())), "null");
  EXPECT_EQ(toJsonText(Json(std::numeric_limits<double>::infinity())), "null");
  EXPECT_EQ(Json::parse(toJsonText(Json(1e300))).get<double>(), 1e300);
}

TEST(JsonWriterTest, AppendsToWhatTheBufferHolds) {
  std::string buffer = "prefix:";
  appendJson(buffer, Json::array({1, "two"}));
  EXPECT_EQ(buffer, "prefix:[1,\"two\"]");
  std::string big;
  Json large = Json::array();
  for (int i = 0; i < 2000; ++i) large.push_back(std::string(50, 'x'));
  appendJson(big, large);
  EXPECT_EQ(Json::parse(big), large) << "the buffer grows as needed";
}

// A list is written item by item into one buffer: each append starts in a buffer that is large,
// has spare capacity, or is full, and must leave exactly what was written behind it.
TEST(JsonWriterTest, ManyAppendsToOneGrowingBufferAreExactConcatenations) {
  std::string out;
  std::string expected;
  out.reserve(1 << 16);  // spare capacity far beyond what one item needs
  for (int i = 0; i < 3000; ++i) {
    Json item = {{"i", i}, {"pad", std::string(static_cast<std::size_t>(i % 300), 'p')}};
    if (i > 0) {
      out.push_back(',');
      expected.push_back(',');
    }
    appendJson(out, item);
    expected += item.dump();
    ASSERT_EQ(out.size(), expected.size()) << "after item " << i;
  }
  EXPECT_EQ(out, expected);
}

}  // namespace
}  // namespace fakekube
