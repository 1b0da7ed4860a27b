// Services get a cluster IP from the service range (10.96.0.0/12); headless Services keep "None";
// a requested address must be free and in range; deleting a Service frees its address.
#include <gtest/gtest.h>

#include "fakekube/api/resources.h"
#include "fixture.h"

namespace fakekube::apitest {
namespace {

Json service(const std::string& name, const std::string& clusterIP = "") {
  Json s = {{"apiVersion", "v1"},
            {"kind", "Service"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec", {{"selector", {{"app", name}}}, {"ports", {{{"port", 80}}}}}}};
  if (!clusterIP.empty()) s["spec"]["clusterIP"] = clusterIP;
  return s;
}

using ServiceTest = ApiServerTest;

TEST_F(ServiceTest, ServicesGetDistinctAddressesFromTheServiceRange) {
  Json a = create(kServices, service("a"));
  Json b = create(kServices, service("b"));
  EXPECT_EQ(a["spec"]["clusterIP"], "10.96.0.1");
  EXPECT_EQ(b["spec"]["clusterIP"], "10.96.0.2");
  EXPECT_EQ(a["spec"]["clusterIPs"], Json::array({"10.96.0.1"}));
  EXPECT_EQ(a["spec"]["type"], "ClusterIP");
  EXPECT_EQ(a["spec"]["ports"][0]["targetPort"], 80);
}

TEST_F(ServiceTest, HeadlessServicesStayNone) {
  Json headless = create(kServices, service("h", "None"));
  EXPECT_EQ(headless["spec"]["clusterIP"], "None");
  EXPECT_EQ(headless["spec"]["clusterIPs"], Json::array({"None"}));
}

TEST_F(ServiceTest, ARequestedAddressMustBeFreeAndInRange) {
  create(kServices, service("a", "10.96.0.50"));
  const std::int64_t before = server->revision();
  EXPECT_TRUE(failsWith(server->create(kServices, "", service("b", "10.96.0.50")), 422, "Invalid",
                        "Service \"b\" is invalid: spec.clusterIPs[0]: Invalid value: "
                        "\"10.96.0.50\": failed to allocate IP 10.96.0.50: provided IP is already "
                        "allocated"));
  EXPECT_TRUE(failsWith(server->create(kServices, "", service("c", "192.168.0.1")), 422, "Invalid",
                        "Service \"c\" is invalid: spec.clusterIPs[0]: Invalid value: "
                        "\"192.168.0.1\": failed to allocate IP 192.168.0.1: the provided IP "
                        "(192.168.0.1) is not in the valid range. The range of valid IPs is "
                        "10.96.0.0/12"));
  EXPECT_EQ(server->revision(), before);
}

TEST_F(ServiceTest, DeletingAServiceFreesItsAddress) {
  create(kServices, service("a", "10.96.0.7"));
  remove(kServices, "default", "a");
  Json again = create(kServices, service("b", "10.96.0.7"));
  EXPECT_EQ(again["spec"]["clusterIP"], "10.96.0.7");
}

TEST_F(ServiceTest, AnUpdateKeepsTheAddressAndCannotChangeIt) {
  Json a = create(kServices, service("a"));
  Json withoutIp = a;
  withoutIp["spec"].erase("clusterIP");
  withoutIp["spec"].erase("clusterIPs");
  withoutIp["metadata"]["labels"] = {{"tier", "web"}};
  Json updated = update(kServices, withoutIp);
  EXPECT_EQ(updated["spec"]["clusterIP"], a["spec"]["clusterIP"]);
  Json moved = updated;
  moved["spec"]["clusterIP"] = "10.96.0.99";
  auto r = server->update(kServices, "", moved);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, 422);
  EXPECT_EQ(r.error().details.causes[0].field, "spec.clusterIP");
}

}  // namespace
}  // namespace fakekube::apitest
