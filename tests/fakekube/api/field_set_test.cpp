// FieldSet in the FieldsV1 form: the set algebra managedFields are kept with (structured-merge-
// diff's fieldpath.Set: Union, Difference, Intersection), paths printed as conflicts print them,
// and what FieldsToSet accepts.
#include "fakekube/api/internal/field_set.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace fakekube {
namespace {

Json set(const char* text) { return Json::parse(text); }

TEST(FieldSetTest, UnionMarksANodeAMemberBesideItsChildren) {
  Json a = set(R"({"f:metadata": {"f:labels": {}}})");
  field_set::unite(a, set(R"({"f:metadata": {"f:labels": {"f:app": {}}}, "f:data": {}})"));
  EXPECT_EQ(a, set(R"({"f:data": {}, "f:metadata": {"f:labels": {".": {}, "f:app": {}}}})"));
}

TEST(FieldSetTest, DifferenceRemovesMembersNotTheirChildren) {
  Json a = set(R"({"f:spec": {"f:labels": {".": {}, "f:app": {}}, "f:replicas": {}}})");
  field_set::subtract(a, set(R"({"f:spec": {"f:labels": {}}})"));
  EXPECT_EQ(a, set(R"({"f:spec": {"f:labels": {"f:app": {}}, "f:replicas": {}}})"));
  field_set::subtract(a, set(R"({"f:spec": {"f:labels": {"f:app": {}}, "f:replicas": {}}})"));
  EXPECT_EQ(a, Json::object());  // emptied nodes go
}

TEST(FieldSetTest, IntersectionKeepsPathsInBoth) {
  EXPECT_EQ(field_set::intersection(set(R"({"f:data": {"f:a": {}, "f:b": {}}})"),
                                    set(R"({"f:data": {".": {}, "f:b": {}, "f:c": {}}})")),
            set(R"({"f:data": {"f:b": {}}})"));
}

TEST(FieldSetTest, PathsPrintAsConflictsPrintThem) {
  Json s = set(R"({"f:spec": {"f:replicas": {}, "f:template": {"f:spec": {"f:containers":
      {"k:{\"name\":\"c\"}": {".": {}, "f:image": {}}}}}},
      "f:metadata": {"f:finalizers": {"v:\"a\"": {}}}})");
  EXPECT_EQ(field_set::paths(s),
            (std::vector<std::string>{".metadata.finalizers[=\"a\"]", ".spec.replicas",
                                      ".spec.template.spec.containers[name=\"c\"]",
                                      ".spec.template.spec.containers[name=\"c\"].image"}));
}

TEST(FieldSetTest, KeysAreSortedCompactJson) {
  Json port = {{"protocol", "TCP"}, {"containerPort", 80}, {"name", "http"}};
  EXPECT_EQ(field_set::keyElement(port, {"protocol", "containerPort"}),
            "k:{\"containerPort\":80,\"protocol\":\"TCP\"}");
  EXPECT_EQ(field_set::valueElement("a"), "v:\"a\"");
}

TEST(FieldSetTest, CheckAcceptsWhatFieldsToSetReads) {
  EXPECT_FALSE(field_set::check(set(R"({"f:a": {".": {}, "k:{\"x\":1}": {}, "v:2": {},
                                        "i:3": {}, "z:unknown": {}}})")));
  EXPECT_TRUE(field_set::check(set(R"({"x": {}})")));      // no element type
  EXPECT_TRUE(field_set::check(set(R"({"k:[1]": {}})")));  // a key is an object
  EXPECT_TRUE(field_set::check(set(R"({"v:{": {}})")));    // a value is JSON
  EXPECT_TRUE(field_set::check(set(R"({"i:x": {}})")));    // an index is a number
  EXPECT_TRUE(field_set::check(set(R"({"f:a": 1})")));     // a child is an object
  EXPECT_TRUE(field_set::check(set(R"([])")));
}

}  // namespace
}  // namespace fakekube
