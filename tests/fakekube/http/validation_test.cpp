// kube-apiserver's answers to invalid bodies over HTTP: the 422 Status of a built-in kind's
// validation (message, reason, details and causes), and the 400 its decoder gives a custom
// resource without a kind or an apiVersion. Nothing is stored after any of them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "http_fixture.h"

namespace fakekube::httptest {
namespace {

using ValidationHttpTest = HttpTest;

const std::string kPodsPath = "/api/v1/namespaces/default/pods";
const std::string kWidgetsPath = "/apis/example.com/v1/namespaces/default/widgets";

TEST_F(ValidationHttpTest, PodWithUnsupportedImagePullPolicyIs422WithTheFieldCause) {
  Json p = pod("p");
  p["spec"]["containers"][0]["imagePullPolicy"] = "!invalid!";
  auto response = post(kPodsPath, p);
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 422);
  Json s = status(response);
  EXPECT_EQ(s["status"], "Failure");
  EXPECT_EQ(s["reason"], "Invalid");
  EXPECT_EQ(s["message"],
            R"(Pod "p" is invalid: spec.containers[0].imagePullPolicy: Unsupported value: )"
            R"("!invalid!": supported values: "Always", "IfNotPresent", "Never")");
  EXPECT_EQ(s["details"]["name"], "p");
  EXPECT_EQ(s["details"]["kind"], "Pod");
  EXPECT_EQ(
      s["details"]["causes"],
      Json::array({{{"reason", "FieldValueNotSupported"},
                    {"message", R"(Unsupported value: "!invalid!": supported values: "Always", )"
                                R"("IfNotPresent", "Never")"},
                    {"field", "spec.containers[0].imagePullPolicy"}}}));
  EXPECT_EQ(get(kPodsPath + "/p")->status, 404);
}

TEST_F(ValidationHttpTest, SeveralErrorsAreAggregatedInBracketsWithACauseEach) {
  Json p = pod("p");
  p["spec"]["containers"][0]["ports"] = Json::array({{{"containerPort", 70000}}});
  p["spec"]["restartPolicy"] = "Sometimes";
  auto response = post(kPodsPath, p);
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 422);
  Json s = status(response);
  EXPECT_EQ(s["message"],
            R"(Pod "p" is invalid: [spec.containers[0].ports[0].containerPort: Invalid value: )"
            R"(70000: must be between 1 and 65535, inclusive, spec.restartPolicy: Unsupported )"
            R"(value: "Sometimes": supported values: "Always", "OnFailure", "Never"])");
  ASSERT_EQ(s["details"]["causes"].size(), 2u);
  EXPECT_EQ(s["details"]["causes"][0]["reason"], "FieldValueInvalid");
  EXPECT_EQ(s["details"]["causes"][0]["field"], "spec.containers[0].ports[0].containerPort");
  EXPECT_EQ(s["details"]["causes"][1]["reason"], "FieldValueNotSupported");
  EXPECT_EQ(get(kPodsPath + "/p")->status, 404);
}

TEST_F(ValidationHttpTest, BuiltInBodyWithoutKindOrApiVersionIsDefaultedFromTheUrl) {
  Json p = pod("p");
  p.erase("kind");
  p.erase("apiVersion");
  auto response = post(kPodsPath, p);
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 201) << response->body;
  Json created = parse(response->body);
  EXPECT_EQ(created["kind"], "Pod");
  EXPECT_EQ(created["apiVersion"], "v1");
}

TEST_F(ValidationHttpTest, CustomResourceWithoutKindIsABadRequestNamingTheBody) {
  ASSERT_NO_FATAL_FAILURE(installWidgetCrd());
  Json w = widget("w");
  w.erase("kind");
  const std::string body = w.dump();
  auto response = client->Post(kWidgetsPath, body, "application/json");
  EXPECT_TRUE(answeredStatus(response, 400, "BadRequest",
                             "Widget in version \"v1\" cannot be handled as a Widget: Object "
                             "'Kind' is missing in '" +
                                 body + "'"));
  EXPECT_EQ(get(kWidgetsPath + "/w")->status, 404);
}

TEST_F(ValidationHttpTest, CustomResourceWithoutApiVersionDoesNotMatchTheUrlVersion) {
  ASSERT_NO_FATAL_FAILURE(installWidgetCrd());
  Json w = widget("w");
  w.erase("apiVersion");
  auto response = post(kWidgetsPath, w);
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 400);
  EXPECT_EQ(status(response)["message"],
            "the API version in the data () does not match the expected API version "
            "(example.com/v1)");
  EXPECT_EQ(get(kWidgetsPath + "/w")->status, 404);
}

}  // namespace
}  // namespace fakekube::httptest
