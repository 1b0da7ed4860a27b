#include "fakekube/http/internal/request_framing.h"

#include <gtest/gtest.h>

namespace fakekube {
namespace {

using Values = std::vector<std::string>;

TEST(RequestFramingTest, ARequestWithNeitherHeaderHasNoBody) {
  auto framing = requestBodyFraming("HTTP/1.1", {}, {});
  ASSERT_TRUE(framing.has_value());
  EXPECT_FALSE(framing->chunked);
  EXPECT_EQ(framing->contentLength, 0u);
}

TEST(RequestFramingTest, ADecimalLengthIsTheBodysLength) {
  EXPECT_EQ(requestBodyFraming("HTTP/1.1", {}, {"42"})->contentLength, 42u);
  EXPECT_EQ(requestBodyFraming("HTTP/1.1", {}, {" 7 "})->contentLength, 7u);
  // Repeated but equal: one length.
  EXPECT_EQ(requestBodyFraming("HTTP/1.1", {}, {"5", " 5"})->contentLength, 5u);
}

TEST(RequestFramingTest, ALengthThatIsNotPlainDigitsIs400) {
  for (const char* bad :
       {"-1", "+5", "abc", "1e3", "0x10", "5 5", "99999999999999999999", "9223372036854775808"}) {
    auto framing = requestBodyFraming("HTTP/1.1", {}, {bad});
    ASSERT_FALSE(framing.has_value()) << bad;
    EXPECT_EQ(framing.error().code, 400) << bad;
    EXPECT_EQ(framing.error().reason, "BadRequest");
  }
  auto empty = requestBodyFraming("HTTP/1.1", {}, {""});
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().message, "invalid empty Content-Length");
  EXPECT_TRUE(requestBodyFraming("HTTP/1.1", {}, {"9223372036854775807"}).has_value());
}

TEST(RequestFramingTest, ConflictingLengthsAre400) {
  auto framing = requestBodyFraming("HTTP/1.1", {}, {"5", "6"});
  ASSERT_FALSE(framing.has_value());
  EXPECT_EQ(framing.error().code, 400);
  EXPECT_EQ(framing.error().message,
            "http: message cannot contain multiple Content-Length headers; got [\"5\" \"6\"]");
}

TEST(RequestFramingTest, OnlyASingleChunkedCodingIsUnderstood) {
  auto chunked = requestBodyFraming("HTTP/1.1", {"Chunked"}, {});
  ASSERT_TRUE(chunked.has_value());
  EXPECT_TRUE(chunked->chunked);
  EXPECT_FALSE(chunked->contentLength.has_value());
  for (const Values& bad : {Values{"chunked, identity"}, Values{"gzip"}, Values{"identity"},
                            Values{"chunked", "chunked"}}) {
    auto framing = requestBodyFraming("HTTP/1.1", bad, {});
    ASSERT_FALSE(framing.has_value()) << bad[0];
    EXPECT_EQ(framing.error().code, 501) << bad[0];
  }
}

TEST(RequestFramingTest, ChunkedCodingWinsOverALength) {
  auto framing = requestBodyFraming("HTTP/1.1", {"chunked"}, {"10"});
  ASSERT_TRUE(framing.has_value());
  EXPECT_TRUE(framing->chunked);
}

TEST(RequestFramingTest, TransferEncodingIsIgnoredOnHttp10) {
  auto framing = requestBodyFraming("HTTP/1.0", {"gzip"}, {"3"});
  ASSERT_TRUE(framing.has_value());
  EXPECT_FALSE(framing->chunked);
  EXPECT_EQ(framing->contentLength, 3u);
}

}  // namespace
}  // namespace fakekube
