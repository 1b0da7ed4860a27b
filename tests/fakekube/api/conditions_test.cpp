// setCondition: the kubelet's rule for writing one condition of a status (the transition time
// moves only with the status), and whether the write changed anything.
#include "fakekube/api/conditions.h"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

namespace fakekube {
namespace {

TimePoint at(int seconds) { return TimePoint(std::chrono::seconds(1'700'000'000 + seconds)); }

Json ready(const char* status, const char* reason = nullptr) {
  Json c = {{"type", "Ready"}, {"status", status}};
  if (reason) c["reason"] = reason;
  return c;
}

TEST(ConditionsTest, SetConditionAppendsThenKeepsTheTransitionTimeWhileTheStatusHolds) {
  Json status = Json::object();
  EXPECT_TRUE(setCondition(status, ready("False", "ContainersNotReady"), at(0)));
  ASSERT_EQ(status["conditions"].size(), 1u);
  const Json first = status["conditions"][0];
  EXPECT_TRUE(first["lastProbeTime"].is_null()) << "written as the kubelet writes it";
  EXPECT_EQ(first["lastTransitionTime"], formatRfc3339(at(0)));

  EXPECT_FALSE(setCondition(status, ready("False", "ContainersNotReady"), at(5)))
      << "the same condition again changes nothing";
  EXPECT_EQ(status["conditions"][0], first);

  EXPECT_TRUE(setCondition(status, ready("False", "PodCompleted"), at(6)));
  EXPECT_EQ(status["conditions"][0]["reason"], "PodCompleted");
  EXPECT_EQ(status["conditions"][0]["lastTransitionTime"], formatRfc3339(at(0)))
      << "a new reason under the same status keeps the transition time";

  EXPECT_TRUE(setCondition(status, ready("True"), at(9)));
  EXPECT_EQ(status["conditions"][0]["lastTransitionTime"], formatRfc3339(at(9)));
  EXPECT_FALSE(status["conditions"][0].contains("reason")) << "the condition is replaced whole";
  EXPECT_EQ(status["conditions"].size(), 1u);
}

TEST(ConditionsTest, SetConditionReplacesAConditionWithMembersItDoesNotWrite) {
  // An entry someone else wrote with more members, or without its probe time, is not "the same".
  Json status = {{"conditions",
                  {{{"type", "Ready"},
                    {"status", "True"},
                    {"lastTransitionTime", formatRfc3339(at(1))},
                    {"lastProbeTime", nullptr},
                    {"extra", 1}}}}};
  EXPECT_TRUE(setCondition(status, ready("True"), at(2)));
  EXPECT_FALSE(status["conditions"][0].contains("extra"));
  EXPECT_EQ(status["conditions"][0]["lastTransitionTime"], formatRfc3339(at(1)));

  status["conditions"][0].erase("lastProbeTime");
  EXPECT_TRUE(setCondition(status, ready("True"), at(3)));
  EXPECT_TRUE(status["conditions"][0]["lastProbeTime"].is_null());
  EXPECT_FALSE(setCondition(status, ready("True"), at(4)));

  status["conditions"][0].erase("lastTransitionTime");
  EXPECT_TRUE(setCondition(status, ready("True"), at(5)))
      << "an entry without a transition time gets one";
  EXPECT_EQ(status["conditions"][0]["lastTransitionTime"], formatRfc3339(at(5)));
}

}  // namespace
}  // namespace fakekube
