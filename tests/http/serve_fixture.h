// Fixture of the end-to-end tests: `fakekube serve` of this build (fixtures/serve_process.h) on a
// free loopback port, a kubeconfig it wrote, and a way to run the real kubectl (/usr/bin/kubectl)
// against it.
//
// Nothing here sleeps: the fixture waits for the server's "serving on" line, and tests wait for
// what they expect to see (a watch line, `kubectl wait` returning).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures/child_process.h"
#include "fixtures/serve_process.h"

namespace fakekube::e2e {

inline const char* kKubectl = "/usr/bin/kubectl";

// The REST path of the ConfigMaps in "default", which the raw-HTTP tests write to.
inline const std::string kConfigMapsPath = "/api/v1/namespaces/default/configmaps";

// The text of tests/http/manifests/<name> (the KubeRay samples and the other files kubectl
// applies).
inline std::string readManifest(const std::string& name) {
  std::ifstream in(std::string(FAKEKUBE_SOURCE_DIR) + "/tests/http/manifests/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `fakekube serve` of the binary this build made.
class Serve : public ServeProcess {
 public:
  explicit Serve(const std::string& directory, std::vector<std::string> extra = {})
      : ServeProcess(FAKEKUBE_CLI, directory, std::move(extra)) {}
};

class KubectlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kKubectl)) {
      GTEST_SKIP() << "kubectl is not installed at " << kKubectl
                   << " (every machine of this kind has it; this one does not)";
    }
    serve = std::make_unique<Serve>(dir.path(), serveArguments());
  }
  void TearDown() override {
    if (serve) EXPECT_EQ(serve->stop(), 0) << "fakekube serve did not stop cleanly";
  }
  virtual std::vector<std::string> serveArguments() { return {}; }

  std::vector<std::string> kubectlArgv(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {kKubectl, "--kubeconfig", serve->kubeconfig(), "--cache-dir",
                                     dir.path() + "/cache"};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  ProcessResult kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    return runProcess(kubectlArgv(args), input);
  }

  // kubectl that must succeed: its stdout.
  std::string ok(const std::vector<std::string>& args, const std::string& input = "") {
    ProcessResult r = kubectl(args, input);
    EXPECT_EQ(r.exitCode, 0) << "kubectl failed:\n" << r.err << r.out;
    return r.out;
  }

  TemporaryDirectory dir;
  std::unique_ptr<Serve> serve;
};

}  // namespace fakekube::e2e
