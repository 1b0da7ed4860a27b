#include "fakekube/http/internal/query_string.h"

#include <gtest/gtest.h>

namespace fakekube {
namespace {

TEST(QueryStringTest, APairIsSplitAtItsFirstEqualsSign) {
  EXPECT_EQ(parseQuery("labelSelector=dc=y"), (QueryParameters{{"labelSelector", "dc=y"}}));
  EXPECT_EQ(parseQuery("continue=abc=="), (QueryParameters{{"continue", "abc=="}}));
  EXPECT_EQ(parseQuery("a=b!=c"), (QueryParameters{{"a", "b!=c"}}));
}

TEST(QueryStringTest, ValuesAreUnescapedWithPlusAsSpace) {
  EXPECT_EQ(parseQuery("labelSelector=a+in+(b%2Cc)"),
            (QueryParameters{{"labelSelector", "a in (b,c)"}}));
  EXPECT_EQ(parseQuery("x=%3d%3D"), (QueryParameters{{"x", "=="}}));
}

TEST(QueryStringTest, OrderAndRepeatsAreKept) {
  EXPECT_EQ(parseQuery("dryRun=All&limit=5&dryRun=All"),
            (QueryParameters{{"dryRun", "All"}, {"limit", "5"}, {"dryRun", "All"}}));
}

TEST(QueryStringTest, ANameWithoutAValueHasAnEmptyValue) {
  EXPECT_EQ(parseQuery("watch&limit="), (QueryParameters{{"watch", ""}, {"limit", ""}}));
}

TEST(QueryStringTest, EmptyPairsAreSkipped) {
  EXPECT_EQ(parseQuery("&&a=1&"), (QueryParameters{{"a", "1"}}));
  EXPECT_TRUE(parseQuery("").empty());
}

TEST(QueryStringTest, PairsGoWouldRejectAreDropped) {
  // A semicolon (no longer a separator in Go) and malformed escapes drop only their pair.
  EXPECT_EQ(parseQuery("a=1;b=2&c=3"), (QueryParameters{{"c", "3"}}));
  EXPECT_EQ(parseQuery("a=%zz&b=%4&c=%41"), (QueryParameters{{"c", "A"}}));
  EXPECT_EQ(unescapeQueryComponent("%"), std::nullopt);
  EXPECT_EQ(unescapeQueryComponent("%4"), std::nullopt);
  EXPECT_EQ(unescapeQueryComponent("%41%42"), "AB");
}

}  // namespace
}  // namespace fakekube
