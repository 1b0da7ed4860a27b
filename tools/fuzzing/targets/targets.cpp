#include "tools/fuzzing/targets.h"

#include <cstdio>
#include <cstdlib>

namespace fakekube::fuzz {

std::span<const FuzzTarget> targets() {
  static constexpr FuzzTarget kTargets[] = {
      {"json_decode", jsonDecode},
      {"label_selector", labelSelector},
      {"field_selector", fieldSelector},
      {"json_patch", jsonPatch},
      {"merge_patch", mergePatch},
      {"strategic_merge_patch", strategicPatch},
      {"server_side_apply", serverSideApply},
      {"protobuf", protobufBody},
      {"yaml", yamlDocument},
      {"quantity", quantity},
      {"rest_router", restRouter},
  };
  return kTargets;
}

void require(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz property failed: %s\n", what);
  std::abort();
}

std::pair<std::string_view, std::string_view> splitDocument(std::string_view input) {
  constexpr std::string_view kSeparator = "\n---\n";
  const auto at = input.find(kSeparator);
  if (at == std::string_view::npos) return {std::string_view(), input};
  return {input.substr(0, at), input.substr(at + kSeparator.size())};
}

}  // namespace fakekube::fuzz
