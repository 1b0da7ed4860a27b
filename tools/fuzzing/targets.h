// The fuzz targets: one function per input format the server decodes from a client, each taking
// arbitrary bytes. Every target must return normally on any input (errors are values); it checks
// the properties its format promises (a decoded document writes back and re-reads equal, a parsed
// selector prints to a string that parses to the same selector, ...) and aborts when one fails.
//
// The same functions run in two harnesses: the libFuzzer binaries (tools/fuzzing/fuzzer.cpp, built
// with clang and -fsanitize=fuzzer,address,undefined when FAKEKUBE_FUZZ=ON; `tools/fuzz`), and
// the ordinary suite, which replays every file of tools/fuzzing/corpus/<target>/ through them
// (tests/fuzz/fuzz_corpus_test.cpp), so that each input a fuzzer once crashed on stays fixed.
#pragma once

#include <span>
#include <string_view>

namespace fakekube::fuzz {

struct FuzzTarget {
  const char* name;  // the corpus directory and the fuzzer binary's suffix (fuzz-<name>)
  void (*run)(std::string_view input);
};

void jsonDecode(std::string_view input);       // json_decode: parseJsonText, writer round trip
void labelSelector(std::string_view input);    // label_selector: parse, str() round trip, match
void fieldSelector(std::string_view input);    // field_selector: parse, str() round trip, match
void jsonPatch(std::string_view input);        // json_patch: [document "\n---\n"] patch
void mergePatch(std::string_view input);       // merge_patch: [document "\n---\n"] patch
void strategicPatch(std::string_view input);   // strategic_merge_patch: against a Pod's schema
void serverSideApply(std::string_view input);  // server_side_apply: an apply body onto a Pod
void protobufBody(std::string_view input);     // protobuf: a Kubernetes protobuf request body
void yamlDocument(std::string_view input);     // yaml: decodeYaml
void quantity(std::string_view input);         // quantity: the resource quantity parsers
void restRouter(std::string_view input);       // rest_router: "METHOD PATH?QUERY\nTYPE\nBODY"

std::span<const FuzzTarget> targets();

// Aborts with `what` when a property a target checks does not hold.
void require(bool condition, const char* what);

// Splits "document\n---\npatch"; without the separator the document is empty (a default one).
std::pair<std::string_view, std::string_view> splitDocument(std::string_view input);

}  // namespace fakekube::fuzz
