// Child processes for the end-to-end tests: `fakekube serve` in the background, and kubectl runs
// whose output and exit code the tests check.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace fakekube::e2e {

struct RunResult {
  int exitCode = -1;
  std::string out;
  std::string err;
};

namespace detail {

inline void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Spawns argv with stdin/stdout/stderr on pipes; the parent's ends are returned.
inline pid_t spawn(const std::vector<std::string>& argv, int& in, int& out, int& err) {
  int inPipe[2], outPipe[2], errPipe[2];
  if (pipe2(inPipe, O_CLOEXEC) != 0 || pipe2(outPipe, O_CLOEXEC) != 0 ||
      pipe2(errPipe, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(inPipe[0]);
  ::close(outPipe[1]);
  ::close(errPipe[1]);
  if (rc != 0) {
    ::close(inPipe[1]);
    ::close(outPipe[0]);
    ::close(errPipe[0]);
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
  }
  in = inPipe[1];
  out = outPipe[0];
  err = errPipe[0];
  return pid;
}

inline int waitExit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace detail

// Runs argv to completion with `input` on its stdin; collects stdout and stderr.
inline RunResult run(const std::vector<std::string>& argv, const std::string& input = "") {
  int in = -1, out = -1, err = -1;
  pid_t pid = detail::spawn(argv, in, out, err);
  signal(SIGPIPE, SIG_IGN);
  std::size_t written = 0;
  if (input.empty()) detail::closeFd(in);
  RunResult result;
  while (out >= 0 || err >= 0) {
    std::vector<pollfd> fds;
    if (in >= 0) fds.push_back({in, POLLOUT, 0});
    if (out >= 0) fds.push_back({out, POLLIN, 0});
    if (err >= 0) fds.push_back({err, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == in) {
        ssize_t n = ::write(in, input.data() + written, input.size() - written);
        if (n > 0) written += static_cast<std::size_t>(n);
        if (n <= 0 || written == input.size()) detail::closeFd(in);
        continue;
      }
      char buffer[8192];
      ssize_t n = ::read(p.fd, buffer, sizeof buffer);
      std::string& sink = p.fd == out ? result.out : result.err;
      if (n > 0) {
        sink.append(buffer, static_cast<std::size_t>(n));
      } else {
        detail::closeFd(p.fd == out ? out : err);
      }
    }
  }
  detail::closeFd(in);
  result.exitCode = detail::waitExit(pid);
  return result;
}

// A long-running child whose stdout the test reads line by line.
class Process {
 public:
  explicit Process(const std::vector<std::string>& argv) {
    pid_ = detail::spawn(argv, in_, out_, err_);
    detail::closeFd(in_);
  }
  ~Process() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      detail::waitExit(pid_);
    }
    detail::closeFd(out_);
    detail::closeFd(err_);
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  // The next line of stdout, or nullopt at end of stream. Blocks until one is there.
  std::optional<std::string> readLine() {
    while (true) {
      auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      if (out_ < 0) return std::nullopt;
      char chunk[4096];
      ssize_t n = ::read(out_, chunk, sizeof chunk);
      if (n <= 0) {
        detail::closeFd(out_);
        if (buffer_.empty()) return std::nullopt;
        std::string rest = std::move(buffer_);
        buffer_.clear();
        return rest;
      }
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  // Everything the child wrote to stderr until it closed it (call after it exited).
  std::string readAllStderr() {
    std::string text;
    char chunk[4096];
    while (err_ >= 0) {
      ssize_t n = ::read(err_, chunk, sizeof chunk);
      if (n <= 0) {
        detail::closeFd(err_);
        break;
      }
      text.append(chunk, static_cast<std::size_t>(n));
    }
    return text;
  }

  void signal(int sig) { ::kill(pid_, sig); }
  // Waits for the exit; the exit code (128 + signal when killed).
  int wait() {
    int code = detail::waitExit(pid_);
    pid_ = -1;
    return code;
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  int err_ = -1;
  std::string buffer_;
};

}  // namespace fakekube::e2e
