#include "fakekube/api/label_selector.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/json_text.h"

namespace fakekube {
namespace {

using testing::J;

LabelSelector mustParse(std::string_view s) {
  auto r = LabelSelector::parse(s);
  EXPECT_TRUE(r.has_value()) << "parse(" << s << "): " << (r ? "" : r.error().str());
  return r ? *r : LabelSelector::nothing();
}

// Parses `s` and matches it against the labels object `labels` (JSON text).
bool selects(std::string_view s, std::string_view labels) {
  return mustParse(s).matches(J(labels));
}

// The 400 message parse gives for `s`, or "" if it parsed.
std::string parseError(std::string_view s) {
  auto r = LabelSelector::parse(s);
  if (r) return "";
  EXPECT_EQ(r.error().code, 400) << s;
  EXPECT_TRUE(isBadRequest(r.error())) << s;
  return r.error().message;
}

TEST(LabelSelectorTest, EmptySelectsEverything) {
  LabelSelector s = mustParse("");
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.str(), "");
  EXPECT_TRUE(s.matches(J(R"({"app":"web"})")));
  EXPECT_TRUE(s.matches(J("{}")));
  EXPECT_TRUE(s.matches(Json()));
  EXPECT_TRUE(mustParse("   ").empty());
  EXPECT_TRUE(LabelSelector().matches(Json()));
  EXPECT_TRUE(LabelSelector::everything().empty());
}

TEST(LabelSelectorTest, Equals) {
  EXPECT_TRUE(selects("app=web", R"({"app":"web","tier":"fe"})"));
  EXPECT_FALSE(selects("app=web", R"({"app":"db"})"));
  EXPECT_FALSE(selects("app=web", R"({"tier":"web"})"));
  EXPECT_FALSE(selects("app=web", "{}"));
  EXPECT_FALSE(selects("app=web", "null"));
  // A value is compared whole.
  EXPECT_FALSE(selects("app=web", R"({"app":"webserver"})"));
}

TEST(LabelSelectorTest, DoubleEquals) {
  EXPECT_TRUE(selects("app==web", R"({"app":"web"})"));
  EXPECT_FALSE(selects("app==web", R"({"app":"db"})"));
  EXPECT_FALSE(selects("app==web", "{}"));
}

TEST(LabelSelectorTest, NotEqualsMatchesObjectsWithoutTheKey) {
  EXPECT_TRUE(selects("app!=web", R"({"app":"db"})"));
  EXPECT_FALSE(selects("app!=web", R"({"app":"web"})"));
  EXPECT_TRUE(selects("app!=web", R"({"tier":"web"})"));
  EXPECT_TRUE(selects("app!=web", "{}"));
  EXPECT_TRUE(selects("app!=web", "null"));
}

TEST(LabelSelectorTest, In) {
  const char* s = "env in (prod,staging)";
  EXPECT_TRUE(selects(s, R"({"env":"prod"})"));
  EXPECT_TRUE(selects(s, R"({"env":"staging"})"));
  EXPECT_FALSE(selects(s, R"({"env":"dev"})"));
  EXPECT_FALSE(selects(s, R"({"other":"prod"})"));
  EXPECT_FALSE(selects(s, "null"));
}

TEST(LabelSelectorTest, NotInMatchesObjectsWithoutTheKey) {
  const char* s = "env notin (prod,staging)";
  EXPECT_TRUE(selects(s, R"({"env":"dev"})"));
  EXPECT_FALSE(selects(s, R"({"env":"prod"})"));
  EXPECT_FALSE(selects(s, R"({"env":"staging"})"));
  EXPECT_TRUE(selects(s, R"({"other":"prod"})"));
  EXPECT_TRUE(selects(s, "{}"));
  EXPECT_TRUE(selects(s, "null"));
}

TEST(LabelSelectorTest, Exists) {
  EXPECT_TRUE(selects("app", R"({"app":"web"})"));
  EXPECT_TRUE(selects("app", R"({"app":""})"));
  EXPECT_FALSE(selects("app", R"({"tier":"web"})"));
  EXPECT_FALSE(selects("app", "null"));
}

TEST(LabelSelectorTest, DoesNotExist) {
  EXPECT_TRUE(selects("!app", R"({"tier":"web"})"));
  EXPECT_TRUE(selects("!app", "{}"));
  EXPECT_TRUE(selects("!app", "null"));
  EXPECT_FALSE(selects("!app", R"({"app":""})"));
  EXPECT_FALSE(selects("!app", R"({"app":"web"})"));
}

TEST(LabelSelectorTest, GreaterThan) {
  EXPECT_TRUE(selects("replicas>3", R"({"replicas":"4"})"));
  EXPECT_TRUE(selects("replicas>3", R"({"replicas":"100"})"));
  EXPECT_TRUE(selects("replicas>3", R"({"replicas":"+7"})"));  // strconv.ParseInt accepts a sign
  EXPECT_FALSE(selects("replicas>3", R"({"replicas":"3"})"));
  EXPECT_FALSE(selects("replicas>3", R"({"replicas":"-5"})"));
  EXPECT_FALSE(selects("replicas>3", R"({"other":"9"})"));
  EXPECT_FALSE(selects("replicas>3", "null"));
}

TEST(LabelSelectorTest, LessThan) {
  EXPECT_TRUE(selects("replicas<3", R"({"replicas":"2"})"));
  EXPECT_TRUE(selects("replicas<3", R"({"replicas":"-1"})"));
  EXPECT_FALSE(selects("replicas<3", R"({"replicas":"3"})"));
  EXPECT_FALSE(selects("replicas<3", R"({"replicas":"30"})"));
  EXPECT_FALSE(selects("replicas<3", "{}"));
}

TEST(LabelSelectorTest, IntegerComparisonsNeverMatchNonIntegerValues) {
  for (const char* value :
       {"abc", "", "3.5", "1e3", "0x10", " 4", "4 ", "+", "--4", "99999999999999999999"}) {
    Json labels = {{"n", value}};
    EXPECT_FALSE(mustParse("n>0").matches(labels)) << value;
    EXPECT_FALSE(mustParse("n<1000").matches(labels)) << value;
  }
  // A label that is not a string (validation never lets one in) is no integer either.
  EXPECT_FALSE(mustParse("n>0").matches(J(R"({"n":5})")));
}

TEST(LabelSelectorTest, CommaIsAnd) {
  const char* s = "app=web,tier!=db,!legacy,env in (prod)";
  EXPECT_TRUE(selects(s, R"({"app":"web","tier":"fe","env":"prod"})"));
  EXPECT_TRUE(selects(s, R"({"app":"web","env":"prod"})"));
  EXPECT_FALSE(selects(s, R"({"app":"web","tier":"db","env":"prod"})"));
  EXPECT_FALSE(selects(s, R"({"app":"web","env":"prod","legacy":"yes"})"));
  EXPECT_FALSE(selects(s, R"({"app":"web","env":"dev"})"));
  EXPECT_FALSE(selects(s, R"({"env":"prod"})"));
}

TEST(LabelSelectorTest, WhitespaceBetweenTokensIsIgnored) {
  LabelSelector s = mustParse("  app = web ,\tenv in ( prod , dev ) , ! legacy , n > 2\n");
  EXPECT_EQ(s.str(), "app=web,env in (dev,prod),!legacy,n>2");
  EXPECT_TRUE(s.matches(J(R"({"app":"web","env":"dev","n":"3"})")));
  EXPECT_EQ(mustParse("a   notin(b)").str(), "a notin (b)");
}

TEST(LabelSelectorTest, EmptyValues) {
  EXPECT_TRUE(selects("a=", R"({"a":""})"));
  EXPECT_FALSE(selects("a=", R"({"a":"x"})"));
  EXPECT_FALSE(selects("a=", "{}"));
  EXPECT_TRUE(selects("a!=", R"({"a":"x"})"));
  EXPECT_TRUE(selects("a in ()", R"({"a":""})"));
  EXPECT_TRUE(selects("a in (,b)", R"({"a":""})"));
  EXPECT_TRUE(selects("a in (,b)", R"({"a":"b"})"));
  EXPECT_EQ(mustParse("x in (foo,,baz),y,z notin ()").str(), "x in (,baz,foo),y,z notin ()");
}

TEST(LabelSelectorTest, KeywordsAreIdentifiersOutsideOperatorPosition) {
  EXPECT_TRUE(selects("in in (in,notin)", R"({"in":"notin"})"));
  EXPECT_TRUE(selects("notin=in", R"({"notin":"in"})"));
}

TEST(LabelSelectorTest, PrefixedKeys) {
  EXPECT_TRUE(selects("app.kubernetes.io/name=web", R"({"app.kubernetes.io/name":"web"})"));
  EXPECT_FALSE(selects("app.kubernetes.io/name=web", R"({"name":"web"})"));
  EXPECT_TRUE(selects("!example.com/gone", R"({"name":"web"})"));
}

TEST(LabelSelectorTest, CanonicalStringSortsByKeyAndRoundTrips) {
  LabelSelector s = mustParse("b==1,a in (y,x,y),c,!d,e notin (z),f!=2,g>5,h<6");
  EXPECT_EQ(s.str(), "a in (x,y),b==1,c,!d,e notin (z),f!=2,g>5,h<6");
  auto again = LabelSelector::parse(s.str());
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, s);
  EXPECT_FALSE(s.empty());
  ASSERT_EQ(s.requirements().size(), 8u);
  EXPECT_EQ(s.requirements()[3].op, LabelSelector::Operator::DoesNotExist);
  EXPECT_EQ(s.requirements()[0].values, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(s.requirements()[6].number, 5);
}

TEST(LabelSelectorTest, RequiresExactMatch) {
  LabelSelector s = mustParse("a=1,b in (2),c in (3,4),d!=5,e==6");
  EXPECT_EQ(s.requiresExactMatch("a"), "1");
  EXPECT_EQ(s.requiresExactMatch("b"), "2");
  EXPECT_EQ(s.requiresExactMatch("c"), std::nullopt);
  EXPECT_EQ(s.requiresExactMatch("d"), std::nullopt);
  EXPECT_EQ(s.requiresExactMatch("e"), "6");
  EXPECT_EQ(s.requiresExactMatch("zz"), std::nullopt);
}

TEST(LabelSelectorTest, Nothing) {
  LabelSelector n = LabelSelector::nothing();
  EXPECT_FALSE(n.empty());
  EXPECT_TRUE(n.matchesNothing());
  EXPECT_FALSE(n.matches(Json()));
  EXPECT_FALSE(n.matches(J(R"({"a":"b"})")));
  EXPECT_FALSE(mustParse("").matchesNothing());
}

TEST(LabelSelectorTest, SyntaxErrorsAreBadRequestWithKubernetesMessages) {
  EXPECT_EQ(parseError("a in (b"), "unable to parse requirement: found '', expected: ',' or ')'");
  EXPECT_EQ(parseError("a in (b c)"),
            "unable to parse requirement: found 'c', expected: ',' or ')'");
  EXPECT_EQ(parseError("=x"), "found '=', expected: !, identifier, or 'end of string'");
  EXPECT_EQ(parseError("a in b"), "unable to parse requirement: found 'b' expected: '('");
  EXPECT_EQ(parseError("a in"), "unable to parse requirement: found '' expected: '('");
  EXPECT_EQ(parseError("a in (=)"),
            "unable to parse requirement: found '=', expected: ',', ')' or identifier");
  EXPECT_EQ(parseError("a b"),
            "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  EXPECT_EQ(parseError("a=b c"), "found 'c', expected: ',' or 'end of string'");
  EXPECT_EQ(parseError("a,"), "found '', expected: identifier after ','");
  EXPECT_EQ(parseError("a,,b"), "found ',', expected: identifier after ','");
  EXPECT_EQ(parseError(","), "found ',', expected: !, identifier, or 'end of string'");
  EXPECT_EQ(parseError("!"), "unable to parse requirement: found '', expected: identifier");
  EXPECT_EQ(parseError("!a=b"), "found '=', expected: ',' or 'end of string'");
  EXPECT_EQ(parseError("a=="), "");  // a == "" is fine
  EXPECT_EQ(parseError("a==="), "unable to parse requirement: found '=', expected: identifier");
  EXPECT_EQ(parseError("a=(b)"), "unable to parse requirement: found '(', expected: identifier");
}

TEST(LabelSelectorTest, IntegerOperatorsNeedAnIntegerOperand) {
  EXPECT_EQ(parseError("a>x"),
            "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' "
            "operators, the value must be an integer");
  EXPECT_NE(parseError("a<"), "");
  EXPECT_NE(parseError("a>1.5"), "");
  // "-1" is an integer but not a valid label value.
  EXPECT_NE(parseError("a>-1"), "");
}

TEST(LabelSelectorTest, KeysAndValuesAreValidated) {
  EXPECT_EQ(parseError("a$=b"),
            "unable to parse requirement: <nil>: Invalid value: \"a$\": name part must consist of "
            "alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  EXPECT_EQ(parseError("a=b$"),
            "unable to parse requirement: values[0][a]: Invalid value: \"b$\": a valid label must "
            "be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
            "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  EXPECT_NE(parseError("a/b/c=d"), "");
  EXPECT_NE(parseError("/a=b"), "");
  EXPECT_NE(parseError("Example.com/a=b"), "");  // the prefix is a lowercase DNS subdomain
  EXPECT_NE(parseError("-a=b"), "");
  EXPECT_NE(parseError(std::string(64, 'k') + "=v"), "");
  EXPECT_EQ(parseError(std::string(63, 'k') + "=v"), "");
  EXPECT_NE(parseError("k=" + std::string(64, 'v')), "");
  EXPECT_EQ(parseError("k=" + std::string(63, 'v')), "");
  EXPECT_NE(parseError("k in (ok,not_ok!)"), "");
  EXPECT_NE(parseError("k in (ok,-bad)"), "");
}

TEST(LabelSelectorTest, FromJsonEmptyAndNullSelectEverything) {
  for (const char* text :
       {"{}", "null", R"({"matchLabels":{},"matchExpressions":[]})", R"({"matchLabels":null})"}) {
    auto s = LabelSelector::fromJson(J(text));
    ASSERT_TRUE(s) << text;
    EXPECT_TRUE(s->empty()) << text;
    EXPECT_TRUE(s->matches(J(R"({"a":"b"})"))) << text;
    EXPECT_TRUE(s->matches(Json())) << text;
  }
}

TEST(LabelSelectorTest, FromJsonMatchLabels) {
  auto s = LabelSelector::fromJson(J(R"({"matchLabels":{"app":"web","tier":"fe"}})"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->str(), "app=web,tier=fe");
  EXPECT_TRUE(s->matches(J(R"({"app":"web","tier":"fe","x":"y"})")));
  EXPECT_FALSE(s->matches(J(R"({"app":"web"})")));
  EXPECT_FALSE(s->matches(Json()));
}

TEST(LabelSelectorTest, FromJsonMatchExpressions) {
  auto s = LabelSelector::fromJson(J(R"({
    "matchLabels": {"app": "web"},
    "matchExpressions": [
      {"key": "env", "operator": "In", "values": ["prod", "staging"]},
      {"key": "tier", "operator": "NotIn", "values": ["db"]},
      {"key": "owner", "operator": "Exists"},
      {"key": "legacy", "operator": "DoesNotExist", "values": []}
    ]})"));
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_EQ(s->str(), "app=web,env in (prod,staging),!legacy,owner,tier notin (db)");
  EXPECT_TRUE(s->matches(J(R"({"app":"web","env":"prod","owner":"me"})")));
  EXPECT_TRUE(s->matches(J(R"({"app":"web","env":"staging","owner":"me","tier":"fe"})")));
  EXPECT_FALSE(s->matches(J(R"({"app":"web","env":"dev","owner":"me"})")));
  EXPECT_FALSE(s->matches(J(R"({"app":"web","env":"prod","owner":"me","tier":"db"})")));
  EXPECT_FALSE(s->matches(J(R"({"app":"web","env":"prod"})")));
  EXPECT_FALSE(s->matches(J(R"({"app":"web","env":"prod","owner":"me","legacy":"1"})")));
  EXPECT_FALSE(s->matches(J(R"({"env":"prod","owner":"me"})")));

  // The same selector in string form is the same selector.
  auto parsed = LabelSelector::parse(s->str());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, *s);
}

TEST(LabelSelectorTest, FromJsonErrors) {
  auto error = [](std::string_view text) {
    auto s = LabelSelector::fromJson(J(text));
    if (s) return std::string();
    EXPECT_EQ(s.error().code, 400) << text;
    return s.error().message;
  };
  EXPECT_EQ(error(R"({"matchExpressions":[{"key":"a","operator":"Gt","values":["1"]}]})"),
            "\"Gt\" is not a valid label selector operator");
  EXPECT_EQ(error(R"({"matchExpressions":[{"key":"a"}]})"),
            "\"\" is not a valid label selector operator");
  EXPECT_EQ(error(R"({"matchExpressions":[{"key":"a","operator":"In"}]})"),
            "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty");
  EXPECT_EQ(error(R"({"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]})"),
            "values: Invalid value: [\"x\"]: values set must be empty for exists and does not "
            "exist");
  EXPECT_NE(error(R"({"matchExpressions":[{"key":"a b","operator":"Exists"}]})"), "");
  EXPECT_NE(error(R"({"matchLabels":{"a":"b c"}})"), "");
  EXPECT_NE(error(R"({"matchLabels":{"a":1}})"), "");
  EXPECT_NE(error(R"({"matchLabels":["a"]})"), "");
  EXPECT_NE(error(R"({"matchExpressions":{}})"), "");
  EXPECT_NE(error(R"({"matchExpressions":[{"key":"a","operator":"In","values":[1]}]})"), "");
  EXPECT_NE(error(R"("app=web")"), "");
}

}  // namespace
}  // namespace fakekube
