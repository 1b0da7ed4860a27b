// Fixture of the end-to-end tests: a `fakekube serve` process on a free loopback port, a
// kubeconfig it wrote, and a way to run the real kubectl (/usr/bin/kubectl) against it.
//
// Nothing here sleeps: the fixture waits for the server's "serving on" line, and tests wait for
// what they expect to see (a watch line, `kubectl wait` returning).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tests/http/process.h"

namespace fakekube::e2e {

inline const char* kKubectl = "/usr/bin/kubectl";

class TempDirectory {
 public:
  TempDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "fakekube-e2e-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class Serve {
 public:
  // Starts `fakekube serve` with these extra arguments and waits until it serves.
  Serve(const std::string& directory, std::vector<std::string> extra = {})
      : kubeconfig_(directory + "/kubeconfig") {
    std::vector<std::string> argv = {FAKEKUBE_CLI,       "serve",    "--listen", "127.0.0.1:0",
                                     "--kubeconfig-out", kubeconfig_};
    argv.insert(argv.end(), extra.begin(), extra.end());
    process_ = std::make_unique<Process>(argv);
    auto line = process_->readLine();
    const std::string prefix = "fakekube: serving on ";
    if (!line || line->rfind(prefix, 0) != 0) {
      process_->wait();
      throw std::runtime_error("fakekube serve did not start: " + line.value_or("(no output)") +
                               "\n" + process_->readAllStderr());
    }
    url_ = line->substr(prefix.size());
  }
  ~Serve() {
    if (process_ && process_->pid() > 0) stop();
  }

  // SIGTERM and wait: the exit code (0 for a clean stop).
  int stop() {
    process_->signal(SIGTERM);
    return process_->wait();
  }

  // SIGKILL and wait: the server gets no chance to flush or close anything.
  void kill() {
    process_->signal(SIGKILL);
    process_->wait();
  }

  const std::string& url() const { return url_; }
  const std::string& kubeconfig() const { return kubeconfig_; }

 private:
  std::string kubeconfig_;
  std::unique_ptr<Process> process_;
  std::string url_;
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

  RunResult kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    return run(kubectlArgv(args), input);
  }

  // kubectl that must succeed: its stdout.
  std::string ok(const std::vector<std::string>& args, const std::string& input = "") {
    RunResult r = kubectl(args, input);
    EXPECT_EQ(r.exitCode, 0) << "kubectl failed:\n" << r.err << r.out;
    return r.out;
  }

  TempDirectory dir;
  std::unique_ptr<Serve> serve;
};

}  // namespace fakekube::e2e
