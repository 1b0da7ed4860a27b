// Decoding JSON text with kube-apiserver's nesting limit.
//
// kube-apiserver decodes every JSON body — objects, patches, apply configurations — with Go's
// encoding/json or sigs.k8s.io/json, whose scanner refuses text nested more than 10000 arrays and
// objects deep with the SyntaxError "invalid character '[' exceeded max depth" (the character is
// the opening bracket past the limit). The handlers answer it as any other syntax error: a 400
// BadRequest with their usual prefix.
//
// fakekube parses with nlohmann's parser, which is iterative and has no limit of its own, but
// nearly everything that walks a document afterwards recurses: the patches, validation, copies,
// comparison and the writer. Checking the limit on every text decoded — request bodies, patch
// documents, apply configurations, stored documents read back — and on documents that reach the
// API server by other means (in-process callers, and a JSON patch, which can nest a value at the
// end of a deep path) bounds every such recursion at kMaxJsonNestingDepth levels. Each of those
// walks is measured to stay within a few MB at that depth, well inside the 8 MB stack of the main
// thread, of ThreadPoolExecutor's workers and of cpp-httplib's (which keep the default), see
// tests/fakekube/api/nesting_depth_test.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

// Go's maxNestingDepth: `[` nested 10000 deep decodes, 10001 deep does not.
inline constexpr int kMaxJsonNestingDepth = 10000;

// Go's SyntaxError text for the opening bracket `c` past the limit.
std::string exceededMaxDepthMessage(char c);

// The offset of the first opening bracket in `text` nested deeper than kMaxJsonNestingDepth, if
// any. One pass that skips strings; `text` need not be valid JSON (the parser reports that).
std::optional<std::size_t> findExcessiveNesting(std::string_view text);

// nullopt when `text` nests no deeper than the limit, else Go's message.
std::optional<std::string> checkJsonTextDepth(std::string_view text);

// How deep `value` nests (0 for a scalar, 1 for {"a":1}); counting stops once it passes
// `stopAfter`, and so does the walk's recursion.
int jsonNestingDepth(const Json& value, int stopAfter = kMaxJsonNestingDepth);

// Go's message when `value` nests deeper than the limit (its innermost opening bracket).
std::optional<std::string> checkJsonDepth(const Json& value);

// The text as a document, or the reason it is not one: Go's message when too deep, nlohmann's
// message (without its "[json.exception.parse_error.101] " tag) for any other syntax error.
tl::expected<Json, std::string> parseJsonText(std::string_view text);

}  // namespace fakekube
