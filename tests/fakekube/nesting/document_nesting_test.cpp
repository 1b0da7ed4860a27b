// The nesting limit every JSON decode path shares (json_decode.h), and the stack each walk over a
// document at that limit takes: parsing, destroying, copying, comparing, writing, and every patch.
// A walk that recursed with large frames would overflow a thread stack on a legal document; each
// is measured here on a painted stack and must stay within half of a default 8 MB thread stack.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/internal/patch_schema.h"
#include "fakekube/api/internal/server_side_apply.h"
#include "fakekube/api/internal/strategic_merge_patch.h"
#include "fakekube/api/json_patch.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/merge_patch.h"
#include "fakekube/api/yaml.h"
#include "stack_usage.h"

namespace fakekube {
namespace {

using testing::kNestingStackBudget;
using testing::stackUsedBy;

// {"a":{"a":...{"a":1}...}} with `depth` objects.
std::string deepObjectText(int depth, const std::string& key = "a") {
  std::string text;
  for (int i = 0; i < depth; ++i) text += "{\"" + key + "\":";
  text += "1";
  text.append(depth, '}');
  return text;
}

std::string deepArrayText(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

Json deepObject(int depth, const std::string& key = "a") {
  Json doc = 1;
  for (int i = 0; i < depth; ++i) {
    Json wrapped = Json::object();
    wrapped[key] = std::move(doc);
    doc = std::move(wrapped);
  }
  return doc;
}

constexpr int kLimit = kMaxJsonNestingDepth;

TEST(NestingDepth, TextAtTheLimitDecodesOneLevelMoreIsGosSyntaxError) {
  EXPECT_TRUE(parseJsonText(deepObjectText(kLimit)).has_value());
  EXPECT_TRUE(parseJsonText(deepArrayText(kLimit)).has_value());
  auto objects = parseJsonText(deepObjectText(kLimit + 1));
  ASSERT_FALSE(objects);
  EXPECT_EQ(objects.error(), "invalid character '{' exceeded max depth");
  auto arrays = parseJsonText(deepArrayText(kLimit + 1));
  ASSERT_FALSE(arrays);
  EXPECT_EQ(arrays.error(), "invalid character '[' exceeded max depth");
  EXPECT_EQ(findExcessiveNesting(deepArrayText(kLimit + 1)), std::size_t(kLimit));
}

TEST(NestingDepth, BracketsInsideStringsDoNotCount) {
  std::string text =
      "{\"a\":\"" + std::string(20000, '[') + "\\\"" + std::string(20000, '{') + "\"}";
  EXPECT_EQ(checkJsonTextDepth(text), std::nullopt);
  EXPECT_TRUE(parseJsonText(text).has_value());
  EXPECT_FALSE(parseJsonText("{\"a\":").has_value());  // other syntax errors: the parser's
}

TEST(NestingDepth, DocumentDepthIsCountedWithRecursionBoundedByTheLimit) {
  EXPECT_EQ(jsonNestingDepth(Json(1)), 0);
  EXPECT_EQ(jsonNestingDepth(Json::object()), 1);
  EXPECT_EQ(jsonNestingDepth(Json::parse(R"({"a":[1,{"b":[]}],"c":{}})")), 4);
  EXPECT_EQ(jsonNestingDepth(deepObject(kLimit)), kLimit + 1 - 1);  // the innermost is a number
  EXPECT_EQ(checkJsonDepth(deepObject(kLimit)), std::nullopt);
  EXPECT_EQ(checkJsonDepth(deepObject(kLimit + 1)), "invalid character '{' exceeded max depth");
  // Far deeper than any stack could recurse: counting stops past the limit, and nlohmann's own
  // parser and destructor are iterative.
  Json huge = Json::parse(deepArrayText(1'000'000));
  int depth = 0;
  const std::size_t stack = stackUsedBy([&] { depth = jsonNestingDepth(huge); });
  EXPECT_EQ(depth, kLimit + 1);
  EXPECT_LT(stack, kNestingStackBudget);
  std::printf("  %-40s %8zu KiB of stack at depth 1000000\n", "jsonNestingDepth", stack / 1024);
}

struct Measured {
  const char* name;
  std::size_t bytes;
};

void expectWithinBudget(const Measured& m) {
  ::testing::Test::RecordProperty(m.name, std::to_string(m.bytes));
  std::printf("  %-40s %8zu KiB of stack at depth %d\n", m.name, m.bytes / 1024, kLimit);
  EXPECT_LT(m.bytes, kNestingStackBudget) << m.name;
}

TEST(NestingDepth, NlohmannsOwnWalksFitAThreadStackAtTheLimit) {
  const std::string text = deepObjectText(kLimit);
  Json doc;
  expectWithinBudget({"parse", stackUsedBy([&] { doc = Json::parse(text); })});
  Json other;
  expectWithinBudget({"copy", stackUsedBy([&] { other = doc; })});
  bool equal = false;
  expectWithinBudget({"operator==", stackUsedBy([&] { equal = doc == other; })});
  EXPECT_TRUE(equal);
  std::string dumped;
  expectWithinBudget({"dump", stackUsedBy([&] { dumped = doc.dump(); })});
  EXPECT_EQ(dumped, text);
  std::string written;
  expectWithinBudget({"toJsonText", stackUsedBy([&] { written = toJsonText(doc); })});
  EXPECT_EQ(written, text);
  expectWithinBudget({"destructor", stackUsedBy([&] { other = Json(); })});
}

TEST(NestingDepth, PatchesFitAThreadStackAtTheLimit) {
  const Json live = {{"metadata", {{"name", "x"}}}};
  const std::string deepValue = deepObjectText(kLimit - 1);
  const std::string mergePatch = "{\"spec\":" + deepValue + "}";
  expectWithinBudget({"merge patch (new field)", stackUsedBy([&] {
                        auto r = applyMergePatch(live, mergePatch);
                        EXPECT_TRUE(r) << r.error().message;
                      })});
  const Json deepLive = Json::parse(mergePatch);
  const std::string deepPatch2 = "{\"spec\":" + deepObjectText(kLimit - 1) + "}";
  expectWithinBudget({"merge patch (onto deep object)", stackUsedBy([&] {
                        auto r = applyMergePatch(deepLive, deepPatch2);
                        EXPECT_TRUE(r) << r.error().message;
                      })});
  Json changed = Json::parse("{\"spec\":" + deepObjectText(kLimit - 1, "b") + "}");
  expectWithinBudget(
      {"createMergePatch", stackUsedBy([&] { createMergePatch(deepLive, changed); })});

  const PatchSchema& podSchema = PatchSchema::forKind("", "Pod");
  expectWithinBudget({"strategic merge patch (new field)", stackUsedBy([&] {
                        auto r = applyStrategicMergePatch(live, mergePatch, podSchema);
                        EXPECT_TRUE(r) << r.error().message;
                      })});
  expectWithinBudget({"strategic merge patch (onto deep object)", stackUsedBy([&] {
                        auto r = applyStrategicMergePatch(deepLive, deepPatch2, podSchema);
                        EXPECT_TRUE(r) << r.error().message;
                      })});
  // The operations' array and object take two of the levels.
  const std::string patchValue = deepObjectText(kLimit - 2);
  const std::string jsonPatch = R"([{"op":"add","path":"/spec","value":)" + patchValue +
                                R"(},{"op":"test","path":"/spec","value":)" + patchValue + "}]";
  expectWithinBudget({"JSON patch (add, test)", stackUsedBy([&] {
                        auto r = applyJsonPatch(live, jsonPatch);
                        EXPECT_TRUE(r) << r.error().message;
                      })});

  expectWithinBudget({"apply (parse and merge)", stackUsedBy([&] {
                        auto applied = parseAppliedConfiguration(mergePatch);
                        ASSERT_TRUE(applied) << applied.error().message;
                        Json merged = deepLive;
                        mergeAppliedConfiguration(merged, *applied, podSchema);
                      })});
}

TEST(NestingDepth, YamlDocumentsStopAtTheirParsersDepth) {
  // yaml-cpp's parser recurses and refuses documents 500 levels deep, cleanly.
  EXPECT_TRUE(decodeYaml(deepArrayText(400)).has_value());
  auto flow = decodeYaml(deepArrayText(kLimit + 1));
  ASSERT_FALSE(flow);
  EXPECT_EQ(flow.error().code, 400);
  EXPECT_EQ(flow.error().message,
            "error converting YAML to JSON: yaml: line 1: exceeded max depth of 500");
  std::string block;
  for (int i = 0; i < 2000; ++i) block += std::string(i, ' ') + "a:\n";
  auto nested = decodeYaml(block);
  ASSERT_FALSE(nested);
  EXPECT_TRUE(nested.error().message.ends_with("exceeded max depth of 500"))
      << nested.error().message;
}

TEST(NestingDepth, YamlAliasesCannotMultiplyADocument) {
  // "Billion laughs": each level refers to the previous one nine times.
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    std::string prev(1, static_cast<char>(c - 1));
    text += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" +
            prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
  }
  auto r = decodeYaml(text);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "error converting YAML to JSON: yaml: document contains excessive aliasing");
  // A few aliases are fine.
  EXPECT_TRUE(decodeYaml("a: &a {k: v}\nb: *a\nc: *a\n").has_value());
}

TEST(NestingDepth, JsonPatchCannotNestPastTheLimitNorCopyWithoutBound) {
  const Json live = {{"metadata", {{"name", "x"}}}, {"spec", Json::object()}};
  // A value at the limit added one level down nests one too deep.
  std::string tooDeep =
      R"([{"op":"add","path":"/spec/a/b","value":)" + deepObjectText(kLimit - 2) + "}]";
  auto r = applyJsonPatch(live, tooDeep);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, 422);
  EXPECT_EQ(r.error().details.causes.at(0).field, "patch");
  EXPECT_TRUE(r.error().message.ends_with(
      "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth"))
      << r.error().message.substr(r.error().message.size() - 200);
  std::string fits = R"([{"op":"add","path":"/spec","value":)" + deepObjectText(kLimit - 2) + "}]";
  EXPECT_TRUE(applyJsonPatch(live, fits).has_value());

  // Copying the root into itself doubles the document: stopped at 3 MiB copied, as
  // kube-apiserver's JSONPatchMaxCopyBytes does.
  Json big = live;
  big["spec"]["blob"] = std::string(100000, 'x');
  std::string copies = "[";
  for (int i = 0; i < 64; ++i) {
    copies += std::string(i ? "," : "") + R"({"op":"copy","from":"/spec","path":"/spec/c)" +
              std::to_string(i) + "\"}";
  }
  copies += "]";
  auto copied = applyJsonPatch(big, copies);
  ASSERT_FALSE(copied);
  EXPECT_EQ(copied.error().code, 422);
  EXPECT_TRUE(copied.error().message.starts_with(
      "Unable to complete the copy, the accumulated size increase of copy is "))
      << copied.error().message;
}

}  // namespace
}  // namespace fakekube
