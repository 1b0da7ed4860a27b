// The expected strings below are Kubernetes' own (k8s.io/apimachinery pkg/util/validation and
// pkg/api/validation); a difference of one character is a bug, because clients match on them.
#include "fakekube/api/validation.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/validation_messages.h"

namespace fakekube {
namespace {

using Strings = std::vector<std::string>;

const std::string& kSubdomainMsg = ::fakekube::testing::kValidationMessages.subdomain;
const std::string& kLabelMsg = ::fakekube::testing::kValidationMessages.label;
const std::string& kDns1035Msg = ::fakekube::testing::kValidationMessages.dns1035;
const std::string& kNamePartMsg = ::fakekube::testing::kValidationMessages.namePart;
const std::string& kQualifiedNameMsg = ::fakekube::testing::kValidationMessages.qualifiedName;
const std::string& kLabelValueMsg = ::fakekube::testing::kValidationMessages.labelValue;

Strings messages(const FieldErrors& errs) {
  Strings out;
  for (const auto& e : errs) out.push_back(e.message());
  return out;
}

// --- predicates ---

TEST(ValidationTest, Dns1123SubdomainAcceptsValidNames) {
  for (const char* good : {"a", "0", "example.com", "a-b.c-d", "my-config.v1", "1.2.3.4"}) {
    EXPECT_TRUE(isDns1123Subdomain(good).empty()) << good;
  }
  EXPECT_TRUE(isDns1123Subdomain(std::string(253, 'a')).empty());
}

TEST(ValidationTest, Dns1123SubdomainRejectsWithExactMessage) {
  for (const char* bad :
       {"", "Bad_Name", "-a", "a-", "a..b", ".a", "a.", "A", "a b", "a_b", "a.-b", "a\n"}) {
    EXPECT_EQ(isDns1123Subdomain(bad), Strings{kSubdomainMsg}) << bad;
  }
  EXPECT_EQ(isDns1123Subdomain(std::string(254, 'a')),
            Strings{"must be no more than 253 characters"});
  EXPECT_EQ(isDns1123Subdomain(std::string(254, 'A')),
            (Strings{"must be no more than 253 characters", kSubdomainMsg}));
}

TEST(ValidationTest, Dns1123LabelRules) {
  for (const char* good : {"a", "my-name", "123-abc", "0a0"}) {
    EXPECT_TRUE(isDns1123Label(good).empty()) << good;
  }
  EXPECT_TRUE(isDns1123Label(std::string(63, 'a')).empty());
  for (const char* bad : {"", "a.b", "My-name", "-a", "a-", "a_b"}) {
    EXPECT_EQ(isDns1123Label(bad), Strings{kLabelMsg}) << bad;
  }
  EXPECT_EQ(isDns1123Label(std::string(64, 'a')), Strings{"must be no more than 63 characters"});
}

TEST(ValidationTest, Dns1035LabelRules) {
  for (const char* good : {"a", "my-name", "abc-123"}) {
    EXPECT_TRUE(isDns1035Label(good).empty()) << good;
  }
  for (const char* bad : {"", "1abc", "abc-", "a.b", "Abc", "-abc"}) {
    EXPECT_EQ(isDns1035Label(bad), Strings{kDns1035Msg}) << bad;
  }
  EXPECT_EQ(isDns1035Label(std::string(64, 'a')), Strings{"must be no more than 63 characters"});
}

TEST(ValidationTest, QualifiedNameAcceptsValidNames) {
  for (const char* good : {"MyName", "my.name", "123-abc", "a", "example.com/MyName", "a/b",
                           "app.kubernetes.io/name", "a_b", "A.B-c_d"}) {
    EXPECT_TRUE(isQualifiedName(good).empty()) << good;
  }
  EXPECT_TRUE(isQualifiedName(std::string(253, 'a') + "/" + std::string(63, 'b')).empty());
}

TEST(ValidationTest, QualifiedNameNamePartErrors) {
  // An empty name fails both the emptiness check and the pattern; Kubernetes reports both.
  EXPECT_EQ(isQualifiedName(""), (Strings{"name part must be non-empty", kNamePartMsg}));
  EXPECT_EQ(isQualifiedName("a/"), (Strings{"name part must be non-empty", kNamePartMsg}));
  EXPECT_EQ(isQualifiedName("-a"), Strings{kNamePartMsg});
  EXPECT_EQ(isQualifiedName("a_"), Strings{kNamePartMsg});
  EXPECT_EQ(isQualifiedName("a b"), Strings{kNamePartMsg});
  EXPECT_EQ(isQualifiedName(std::string(64, 'a')),
            Strings{"name part must be no more than 63 characters"});
}

TEST(ValidationTest, QualifiedNamePrefixErrors) {
  EXPECT_EQ(isQualifiedName("/a"), Strings{"prefix part must be non-empty"});
  EXPECT_EQ(isQualifiedName("Example.com/a"), Strings{"prefix part " + kSubdomainMsg});
  EXPECT_EQ(isQualifiedName(std::string(254, 'a') + "/a"),
            Strings{"prefix part must be no more than 253 characters"});
  EXPECT_EQ(isQualifiedName("a_b/-c"), (Strings{"prefix part " + kSubdomainMsg, kNamePartMsg}));
}

TEST(ValidationTest, QualifiedNameWithTwoSlashes) {
  EXPECT_EQ(isQualifiedName("a/b/c"), Strings{kQualifiedNameMsg});
  EXPECT_EQ(isQualifiedName("//"), Strings{kQualifiedNameMsg});
}

TEST(ValidationTest, LabelValueRules) {
  for (const char* good : {"", "MyValue", "my_value", "12345", "a.b-c_d", "A"}) {
    EXPECT_TRUE(isValidLabelValue(good).empty()) << good;
  }
  EXPECT_TRUE(isValidLabelValue(std::string(63, 'v')).empty());
  for (const char* bad : {"-a", "a-", "_", "a b", "a/b", "é"}) {
    EXPECT_EQ(isValidLabelValue(bad), Strings{kLabelValueMsg}) << bad;
  }
  EXPECT_EQ(isValidLabelValue(std::string(64, 'v')), Strings{"must be no more than 63 characters"});
}

// --- names ---

TEST(ValidationTest, PathSegmentNames) {
  EXPECT_TRUE(isValidName("system:controller:x", NameRule::PathSegment).empty());
  EXPECT_TRUE(isValidName("Anything_Goes.here", NameRule::PathSegment).empty());
  EXPECT_EQ(isValidName(".", NameRule::PathSegment), Strings{"may not be '.'"});
  EXPECT_EQ(isValidName("..", NameRule::PathSegment), Strings{"may not be '..'"});
  EXPECT_EQ(isValidName("a/b", NameRule::PathSegment), Strings{"may not contain '/'"});
  EXPECT_EQ(isValidName("a%b", NameRule::PathSegment), Strings{"may not contain '%'"});
  EXPECT_EQ(isValidName("%/", NameRule::PathSegment),
            (Strings{"may not contain '/'", "may not contain '%'"}));
  // As a prefix, only the content rules apply.
  EXPECT_TRUE(isValidName(".", NameRule::PathSegment, /*prefix=*/true).empty());
  EXPECT_EQ(isValidName("a/", NameRule::PathSegment, /*prefix=*/true),
            Strings{"may not contain '/'"});
}

TEST(ValidationTest, GenerateNamePrefixToleratesTrailingDash) {
  EXPECT_TRUE(isValidName("my-pod-", NameRule::Dns1123Subdomain, true).empty());
  EXPECT_TRUE(isValidName("web-", NameRule::Dns1123Label, true).empty());
  EXPECT_TRUE(isValidName("svc-", NameRule::Dns1035Label, true).empty());
  EXPECT_TRUE(isValidName("abc", NameRule::Dns1123Subdomain, true).empty());
  // maskTrailingDash replaces the last two characters, so "a.-" is checked as "a" + "a".
  EXPECT_TRUE(isValidName("a.-", NameRule::Dns1123Subdomain, true).empty());
  EXPECT_EQ(isValidName("Bad-", NameRule::Dns1123Subdomain, true), Strings{kSubdomainMsg});
  EXPECT_EQ(isValidName("-", NameRule::Dns1123Subdomain, true), Strings{kSubdomainMsg});
  // Without prefix = true the dash is an error.
  EXPECT_EQ(isValidName("my-pod-", NameRule::Dns1123Subdomain), Strings{kSubdomainMsg});
}

TEST(ValidationTest, ValidateNameReportsOnTheFieldWithTheName) {
  EXPECT_TRUE(validateName("good-name", NameRule::Dns1123Subdomain).empty());
  FieldErrors errs = validateName("Bad_Name", NameRule::Dns1123Subdomain);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].type, FieldError::Type::Invalid);
  EXPECT_EQ(errs[0].field, "metadata.name");
  EXPECT_EQ(errs[0].badValue, "\"Bad_Name\"");
  EXPECT_EQ(errs[0].detail, kSubdomainMsg);

  errs = validateName("web.app", NameRule::Dns1035Label, "metadata.generateName", true);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].message(), "metadata.generateName: Invalid value: \"web.app\": " + kDns1035Msg);
}

TEST(ValidationTest, InvalidNameGivesTheFull422Message) {
  Status s = Status::invalid("", "ConfigMap", "Bad_Name",
                             validateName("Bad_Name", NameRule::Dns1123Subdomain));
  EXPECT_EQ(s.code, 422);
  EXPECT_EQ(s.reason, "Invalid");
  EXPECT_EQ(s.message,
            "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": " +
                kSubdomainMsg);
  ASSERT_EQ(s.details.causes.size(), 1u);
  EXPECT_EQ(s.details.causes[0].reason, "FieldValueInvalid");
  EXPECT_EQ(s.details.causes[0].field, "metadata.name");
}

TEST(ValidationTest, NamespaceNameGivesTheFull422Message) {
  Status s =
      Status::invalid("", "Namespace", "team.a", validateName("team.a", NameRule::Dns1123Label));
  EXPECT_EQ(
      s.message,
      "Namespace \"team.a\" is invalid: metadata.name: Invalid value: \"team.a\": " + kLabelMsg);
}

// --- labels ---

TEST(ValidationTest, LabelsValid) {
  EXPECT_TRUE(validateLabels(Json()).empty());
  EXPECT_TRUE(validateLabels(Json::object()).empty());
  EXPECT_TRUE(
      validateLabels(Json{{"app", "web"}, {"app.kubernetes.io/name", "x"}, {"empty", ""}}).empty());
}

TEST(ValidationTest, LabelKeyAndValueBothReportOnTheMap) {
  FieldErrors errs = validateLabels(Json{{"-bad", "ok"}, {"good", "bad value"}});
  EXPECT_EQ(messages(errs), (Strings{
                                "metadata.labels: Invalid value: \"-bad\": " + kNamePartMsg,
                                "metadata.labels: Invalid value: \"bad value\": " + kLabelValueMsg,
                            }));
}

TEST(ValidationTest, LabelValueTooLong) {
  std::string longValue(64, 'v');
  FieldErrors errs = validateLabels(Json{{"k", longValue}});
  EXPECT_EQ(messages(errs), Strings{"metadata.labels: Invalid value: \"" + longValue +
                                    "\": must be no more than 63 characters"});
}

TEST(ValidationTest, LabelsWithWrongTypes) {
  FieldErrors errs = validateLabels(Json::array({"a"}));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].type, FieldError::Type::Invalid);
  EXPECT_EQ(errs[0].message(),
            "metadata.labels: Invalid value: [\"a\"]: must be an object of string values, not "
            "array");

  errs = validateLabels(Json{{"app", 42}, {"ok", "fine"}, {"on", true}});
  EXPECT_EQ(messages(errs), (Strings{
                                "metadata.labels[app]: Invalid value: 42: must be a string, not "
                                "number",
                                "metadata.labels[on]: Invalid value: true: must be a string, not "
                                "boolean",
                            }));
  // A custom field path is honoured.
  errs = validateLabels(Json("x"), "spec.selector.matchLabels");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].field, "spec.selector.matchLabels");
}

// --- annotations ---

TEST(ValidationTest, AnnotationKeysAreCheckedCaseInsensitively) {
  EXPECT_TRUE(validateAnnotations(Json{{"Example.COM/Foo", "x"}, {"note", ""}}).empty());
  FieldErrors errs = validateAnnotations(Json{{"a/b/c", "x"}});
  EXPECT_EQ(messages(errs),
            Strings{"metadata.annotations: Invalid value: \"a/b/c\": " + kQualifiedNameMsg});
  // The original (not lowercased) key is the reported value.
  errs = validateAnnotations(Json{{"Bad Key", "x"}});
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].badValue, "\"Bad Key\"");
  EXPECT_EQ(errs[0].detail, kNamePartMsg);
}

TEST(ValidationTest, AnnotationsTotalSize) {
  // Key plus value bytes, limit 256 KiB inclusive.
  EXPECT_TRUE(validateAnnotations(Json{{"k", std::string(262143, 'x')}}).empty());
  FieldErrors errs = validateAnnotations(Json{{"k", std::string(262144, 'x')}});
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].type, FieldError::Type::TooLong);
  EXPECT_EQ(errs[0].message(), "metadata.annotations: Too long: must have at most 262144 bytes");
  // Summed across entries.
  errs =
      validateAnnotations(Json{{"a", std::string(131072, 'x')}, {"b", std::string(131072, 'x')}});
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].reason(), "FieldValueTooLong");
}

TEST(ValidationTest, AnnotationsWithWrongTypes) {
  EXPECT_EQ(messages(validateAnnotations(Json(3))),
            Strings{"metadata.annotations: Invalid value: 3: must be an object of string values, "
                    "not number"});
  EXPECT_EQ(messages(validateAnnotations(Json{{"a", Json::object()}})),
            Strings{"metadata.annotations[a]: Invalid value: {}: must be a string, not object"});
}

// --- finalizers ---

TEST(ValidationTest, FinalizersValid) {
  EXPECT_TRUE(validateFinalizers(Json()).empty());
  EXPECT_TRUE(
      validateFinalizers(Json::array({"example.com/cleanup", "orphan", "kubernetes"})).empty());
  EXPECT_TRUE(validateFinalizers(Json::array({"foregroundDeletion"})).empty());
}

TEST(ValidationTest, FinalizerNamesReportOnTheList) {
  FieldErrors errs = validateFinalizers(Json::array({"ok", "a/b/c"}));
  EXPECT_EQ(messages(errs),
            Strings{"metadata.finalizers: Invalid value: \"a/b/c\": " + kQualifiedNameMsg});
}

TEST(ValidationTest, OrphanAndForegroundDeletionConflict) {
  FieldErrors errs = validateFinalizers(Json::array({"orphan", "foregroundDeletion"}));
  EXPECT_EQ(messages(errs),
            Strings{"metadata.finalizers: Invalid value: []string{\"orphan\", "
                    "\"foregroundDeletion\"}: finalizer orphan and foregroundDeletion cannot be "
                    "both set"});
}

TEST(ValidationTest, FinalizersWithWrongTypes) {
  EXPECT_EQ(messages(validateFinalizers(Json{{"a", "b"}})),
            Strings{"metadata.finalizers: Invalid value: {\"a\":\"b\"}: must be an array of "
                    "strings, not object"});
  EXPECT_EQ(messages(validateFinalizers(Json::array({"ok", 7, nullptr}))),
            (Strings{"metadata.finalizers[1]: Invalid value: 7: must be a string, not number",
                     "metadata.finalizers[2]: Invalid value: null: must be a string, not null"}));
}

// --- owner references ---

Json ownerRef(const std::string& kind, const std::string& name, bool controller) {
  return Json{{"apiVersion", "apps/v1"},
              {"kind", kind},
              {"name", name},
              {"uid", "uid-" + name},
              {"controller", controller}};
}

TEST(ValidationTest, OwnerReferencesValid) {
  EXPECT_TRUE(validateOwnerReferences(Json()).empty());
  EXPECT_TRUE(validateOwnerReferences(Json::array({ownerRef("ReplicaSet", "rs", true),
                                                   ownerRef("Deployment", "d", false)}))
                  .empty());
  EXPECT_TRUE(validateOwnerReferences(
                  Json::array({Json{
                      {"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "c"}, {"uid", "u"}}}))
                  .empty());
}

TEST(ValidationTest, OwnerReferenceRequiredFields) {
  FieldErrors errs = validateOwnerReferences(Json::array({Json::object()}));
  EXPECT_EQ(messages(errs), (Strings{
                                "metadata.ownerReferences.apiVersion: Invalid value: \"\": "
                                "version must not be empty",
                                "metadata.ownerReferences.kind: Invalid value: \"\": kind must "
                                "not be empty",
                                "metadata.ownerReferences.name: Invalid value: \"\": name must "
                                "not be empty",
                                "metadata.ownerReferences.uid: Invalid value: \"\": uid must not "
                                "be empty",
                            }));
  // A group without a version, or too many slashes, has no version either.
  for (const char* apiVersion : {"apps/", "a/b/c"}) {
    Json ref = ownerRef("Deployment", "d", false);
    ref["apiVersion"] = apiVersion;
    errs = validateOwnerReferences(Json::array({ref}));
    ASSERT_EQ(errs.size(), 1u) << apiVersion;
    EXPECT_EQ(errs[0].field, "metadata.ownerReferences.apiVersion");
    EXPECT_EQ(errs[0].detail, "version must not be empty");
  }
}

TEST(ValidationTest, OnlyOneControllerReference) {
  FieldErrors errs = validateOwnerReferences(
      Json::array({ownerRef("ReplicaSet", "a", true), ownerRef("ReplicaSet", "b", false),
                   ownerRef("Deployment", "c", true)}));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].type, FieldError::Type::Invalid);
  EXPECT_EQ(errs[0].field, "metadata.ownerReferences");
  EXPECT_EQ(errs[0].detail,
            "Only one reference can have Controller set to true. Found \"true\" in references for "
            "ReplicaSet/a and Deployment/c");
  // The value is the whole list in Go's %#v form.
  EXPECT_EQ(errs[0].badValue.rfind("[]v1.OwnerReference{v1.OwnerReference{APIVersion:\"apps/v1\", "
                                   "Kind:\"ReplicaSet\", Name:\"a\", UID:\"uid-a\", "
                                   "Controller:(*bool)(",
                                   0),
            0u);

  // A third controller is compared with the first again.
  errs = validateOwnerReferences(
      Json::array({ownerRef("A", "1", true), ownerRef("B", "2", true), ownerRef("C", "3", true)}));
  ASSERT_EQ(errs.size(), 2u);
  EXPECT_NE(errs[0].detail.find("for A/1 and B/2"), std::string::npos);
  EXPECT_NE(errs[1].detail.find("for A/1 and C/3"), std::string::npos);
}

TEST(ValidationTest, EventCannotBeAnOwner) {
  Json ref{{"apiVersion", "v1"}, {"kind", "Event"}, {"name", "e"}, {"uid", "u"}};
  FieldErrors errs = validateOwnerReferences(Json::array({ref}));
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].field, "metadata.ownerReferences");
  EXPECT_EQ(errs[0].detail, "/v1, Kind=Event is disallowed from being an owner");
  EXPECT_EQ(errs[0].badValue,
            "v1.OwnerReference{APIVersion:\"v1\", Kind:\"Event\", Name:\"e\", UID:\"u\", "
            "Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}");
}

TEST(ValidationTest, OwnerReferencesWithWrongTypes) {
  EXPECT_EQ(messages(validateOwnerReferences(Json{{"kind", "X"}})),
            Strings{"metadata.ownerReferences: Invalid value: {\"kind\":\"X\"}: must be an array "
                    "of objects, not object"});
  EXPECT_EQ(messages(validateOwnerReferences(Json::array({"x"}))),
            Strings{"metadata.ownerReferences[0]: Invalid value: \"x\": must be an object, not "
                    "string"});
  Json ref = ownerRef("ReplicaSet", "a", true);
  ref["uid"] = 5;
  ref["controller"] = "yes";
  EXPECT_EQ(messages(validateOwnerReferences(Json::array({ref}))),
            (Strings{"metadata.ownerReferences[0].uid: Invalid value: 5: must be a string, not "
                     "number",
                     "metadata.ownerReferences[0].controller: Invalid value: \"yes\": must be a "
                     "boolean, not string"}));
}

// --- whole metadata ---

TEST(ValidationTest, ObjectMetaValid) {
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata",
              {{"name", "cfg"},
               {"namespace", "default"},
               {"labels", {{"app", "web"}}},
               {"annotations", {{"note", "hi"}}},
               {"finalizers", {"example.com/f"}},
               {"ownerReferences", Json::array({ownerRef("Deployment", "d", true)})}}}};
  EXPECT_TRUE(validateObjectMetaOnCreate(cm, NameRule::Dns1123Subdomain, true).empty());
  Json ns = {{"metadata", {{"name", "team-a"}}}};
  EXPECT_TRUE(validateObjectMetaOnCreate(ns, NameRule::Dns1123Label, false).empty());
}

TEST(ValidationTest, NameOrGenerateNameIsRequired) {
  for (const Json& obj : {Json{{"metadata", {{"namespace", "default"}}}},
                          Json{{"metadata", {{"name", ""}, {"namespace", "default"}}}},
                          Json{{"kind", "ConfigMap"}}}) {
    FieldErrors errs = validateObjectMetaOnCreate(obj, NameRule::Dns1123Subdomain, false);
    ASSERT_FALSE(errs.empty()) << obj.dump();
    EXPECT_EQ(errs[0].type, FieldError::Type::Required);
    EXPECT_EQ(errs[0].message(), "metadata.name: Required value: name or generateName is required");
  }
  Status s = Status::invalid("", "ConfigMap", "",
                             validateObjectMetaOnCreate(Json{{"metadata", Json::object()}},
                                                        NameRule::Dns1123Subdomain, false));
  EXPECT_EQ(s.message,
            "ConfigMap \"\" is invalid: metadata.name: Required value: name or generateName is "
            "required");
}

TEST(ValidationTest, GenerateNameIsValidatedAsAPrefix) {
  Json obj = {{"metadata", {{"generateName", "web-"}, {"namespace", "default"}}}};
  EXPECT_TRUE(validateObjectMetaOnCreate(obj, NameRule::Dns1123Subdomain, true).empty());

  // After expansion the server validates both the prefix and the generated name.
  obj = {{"metadata", {{"generateName", "Web-"}, {"name", "Web-x7k2p"}, {"namespace", "ns"}}}};
  EXPECT_EQ(messages(validateObjectMetaOnCreate(obj, NameRule::Dns1123Subdomain, true)),
            (Strings{"metadata.generateName: Invalid value: \"Web-\": " + kSubdomainMsg,
                     "metadata.name: Invalid value: \"Web-x7k2p\": " + kSubdomainMsg}));
}

TEST(ValidationTest, NamespaceScope) {
  Json noNs = {{"metadata", {{"name", "a"}}}};
  EXPECT_EQ(messages(validateObjectMetaOnCreate(noNs, NameRule::Dns1123Subdomain, true)),
            Strings{"metadata.namespace: Required value"});
  Json withNs = {{"metadata", {{"name", "a"}, {"namespace", "default"}}}};
  EXPECT_EQ(messages(validateObjectMetaOnCreate(withNs, NameRule::Dns1123Subdomain, false)),
            Strings{"metadata.namespace: Forbidden: not allowed on this type"});
  Json badNs = {{"metadata", {{"name", "a"}, {"namespace", "a.b"}}}};
  EXPECT_EQ(messages(validateObjectMetaOnCreate(badNs, NameRule::Dns1123Subdomain, true)),
            Strings{"metadata.namespace: Invalid value: \"a.b\": " + kLabelMsg});
}

TEST(ValidationTest, ObjectMetaErrorsComeInKubernetesOrder) {
  Json obj = {{"metadata",
               {{"name", "Bad_Name"},
                {"namespace", "default"},
                {"generation", -1},
                {"finalizers", {"a/b/c"}},
                {"ownerReferences", Json::array({Json::object()})},
                {"annotations", {{"/x", "v"}}},
                {"labels", {{"k", "-v"}}}}}};
  FieldErrors errs = validateObjectMetaOnCreate(obj, NameRule::Dns1123Subdomain, true);
  Strings fields;
  for (const auto& e : errs) fields.push_back(e.field);
  EXPECT_EQ(fields, (Strings{"metadata.name", "metadata.generation", "metadata.labels",
                             "metadata.annotations", "metadata.ownerReferences.apiVersion",
                             "metadata.ownerReferences.kind", "metadata.ownerReferences.name",
                             "metadata.ownerReferences.uid", "metadata.finalizers"}));
  EXPECT_EQ(errs[1].message(),
            "metadata.generation: Invalid value: -1: must be greater than or equal to 0");

  // Several errors aggregate as a bracketed list.
  Json two = {{"metadata", {{"name", "Bad_Name"}, {"labels", {{"k", "-v"}}}}}};
  Status s = Status::invalid("", "ConfigMap", "Bad_Name",
                             validateObjectMetaOnCreate(two, NameRule::Dns1123Subdomain, false));
  EXPECT_EQ(s.message,
            "ConfigMap \"Bad_Name\" is invalid: [metadata.name: Invalid value: "
            "\"Bad_Name\": " +
                kSubdomainMsg + ", metadata.labels: Invalid value: \"-v\": " + kLabelValueMsg +
                "]");
}

TEST(ValidationTest, ObjectMetaWithWrongTypes) {
  EXPECT_EQ(messages(validateObjectMetaOnCreate(Json{{"metadata", "x"}}, NameRule::Dns1123Subdomain,
                                                false)),
            Strings{"metadata: Invalid value: \"x\": must be an object, not string"});
  EXPECT_EQ(messages(validateObjectMetaOnCreate(Json::array(), NameRule::Dns1123Subdomain, false)),
            Strings{"metadata: Invalid value: []: the object must be a JSON object, not array"});
  FieldErrors errs = validateObjectMetaOnCreate(
      Json{{"metadata", {{"name", 12}, {"namespace", false}, {"labels", "app=web"}}}},
      NameRule::Dns1123Subdomain, true);
  EXPECT_EQ(messages(errs),
            (Strings{"metadata.name: Invalid value: 12: must be a string, not number",
                     "metadata.namespace: Invalid value: false: must be a string, not boolean",
                     "metadata.labels: Invalid value: \"app=web\": must be an object of string "
                     "values, not string"}));
  errs = validateObjectMetaOnCreate(Json{{"metadata", {{"name", "a"}, {"generation", "1"}}}},
                                    NameRule::Dns1123Subdomain, false);
  EXPECT_EQ(messages(errs),
            Strings{"metadata.generation: Invalid value: \"1\": must be an integer, not string"});
}

TEST(ValidationTest, NeverThrowsOnOddInput) {
  const std::vector<Json> odd = {
      Json(),
      Json(1.5),
      Json(-3),
      Json(true),
      Json("s"),
      Json::array(),
      Json::object(),
      Json::array({Json::array({1}), Json::object(), nullptr}),
      Json{{"\xff\xfe", "\xc3\x28"}},
      Json{{"metadata", {{"labels", {{"\xff", Json::array()}}}, {"annotations", nullptr}}}},
      Json{{"metadata",
            {{"name", "\xff"},
             {"generateName", Json::object()},
             {"generation", 1e300},
             {"finalizers", {{{"a", 1}}}},
             {"ownerReferences", {nullptr, 1, Json{{"controller", Json::array()}}}}}}},
  };
  for (const Json& j : odd) {
    EXPECT_NO_THROW({
      validateLabels(j);
      validateAnnotations(j);
      validateFinalizers(j);
      validateOwnerReferences(j);
      for (bool ns : {true, false}) {
        for (auto rule : {NameRule::Dns1123Subdomain, NameRule::Dns1123Label,
                          NameRule::Dns1035Label, NameRule::PathSegment}) {
          FieldErrors errs = validateObjectMetaOnCreate(j, rule, ns);
          Status::invalid("", "Thing", "x", errs)
              .toJson()
              .dump(-1, ' ', false, Json::error_handler_t::replace);
        }
      }
    }) << j.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

}  // namespace
}  // namespace fakekube
