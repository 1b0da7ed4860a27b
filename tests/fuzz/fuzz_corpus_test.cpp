// Replays the fuzz corpora as ordinary tests: every file of tools/fuzzing/corpus/<target>/ goes
// through the same target function the libFuzzer binary runs (tools/fuzzing/targets.h), so the
// seeds and every input a fuzzer once crashed on are checked on each build, without clang.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tools/fuzzing/targets.h"

namespace fakekube::fuzz {
namespace {

std::vector<std::filesystem::path> corpusOf(const std::string& target) {
  std::vector<std::filesystem::path> files;
  const std::filesystem::path dir = std::filesystem::path(FAKEKUBE_FUZZ_CORPUS) / target;
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class FuzzCorpus : public ::testing::TestWithParam<FuzzTarget> {};

TEST_P(FuzzCorpus, EveryInputIsHandled) {
  const FuzzTarget& target = GetParam();
  const auto files = corpusOf(target.name);
  ASSERT_FALSE(files.empty()) << "no corpus for " << target.name;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    std::ifstream in(file, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    target.run(content.str());  // aborts on a property that does not hold
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzCorpus,
                         ::testing::ValuesIn(targets().begin(), targets().end()),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace fakekube::fuzz
