// Entrypoints on the executor's clock: the grammar (&&, ;, ||, exit, sleep, echo, true, false,
// bash -c), the simulated line for unknown commands, commands tests register, and the shell's
// parsing and errexit rules that the submitter script relies on.
#include "controllers/ray/sim/entrypoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>

#include "controllers/ray/sim/internal/shell.h"
#include "fakekube/sim/sim_executor.h"

namespace fakekube::ray {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::ElementsAre;

class EntrypointTest : public ::testing::Test {
 protected:
  // Runs `entrypoint` to its end; the exit code, the logs, and how long it took.
  struct Outcome {
    std::optional<int> exitCode;
    std::vector<std::string> logs;
    Duration took{};
  };
  Outcome run(const std::string& entrypoint, Duration limit = seconds(600)) {
    Outcome outcome;
    const TimePoint start = ex.now();
    auto running = EntrypointRun::start(
        entrypoint, registry,
        {.after = [this](Duration d, std::function<void()> fn) { ex.postAfter(d, std::move(fn)); },
         .log = [&outcome](std::string line) { outcome.logs.push_back(std::move(line)); },
         .done =
             [&](int code) {
               outcome.exitCode = code;
               outcome.took = ex.now() - start;
             }});
    ex.runUntil([&] { return outcome.exitCode.has_value(); }, limit);
    return outcome;
  }

  SimExecutor ex;
  std::shared_ptr<EntrypointRegistry> registry = std::make_shared<EntrypointRegistry>();
};

TEST_F(EntrypointTest, SleepWaitsVirtualSecondsAndEchoLogs) {
  auto outcome = run("echo starting && sleep 10 && echo done training");
  EXPECT_EQ(outcome.exitCode, 0);
  EXPECT_EQ(outcome.took, seconds(10));
  EXPECT_THAT(outcome.logs, ElementsAre("starting", "done training"));
}

TEST_F(EntrypointTest, ExitEndsTheEntrypointWithItsCode) {
  auto outcome = run("sleep 2; exit 3; echo never");
  EXPECT_EQ(outcome.exitCode, 3);
  EXPECT_EQ(outcome.took, seconds(2));
  EXPECT_TRUE(outcome.logs.empty());
}

TEST_F(EntrypointTest, AndStopsAtAFailureWhileSemicolonGoesOn) {
  EXPECT_EQ(run("false && echo skipped").exitCode, 1);
  EXPECT_TRUE(run("false && echo skipped").logs.empty());
  auto goesOn = run("false ; echo after");
  EXPECT_EQ(goesOn.exitCode, 0);
  EXPECT_THAT(goesOn.logs, ElementsAre("after"));
  EXPECT_EQ(run("true").exitCode, 0);
  EXPECT_EQ(run("false || true").exitCode, 0);
}

TEST_F(EntrypointTest, UnknownCommandsRunOneSecondAndSaySoInTheLogs) {
  auto outcome = run("python /home/ray/samples/sample_code.py");
  EXPECT_EQ(outcome.exitCode, 0);
  EXPECT_EQ(outcome.took, seconds(1));
  EXPECT_THAT(outcome.logs,
              ElementsAre("fakekube: simulated \"python /home/ray/samples/sample_code.py\" (1s, "
                          "exit 0)"));
}

TEST_F(EntrypointTest, RegisteredCommandsTakeTheirDurationResultAndLines) {
  registry->onCommand(R"(^python .*train\.py)",
                      {.duration = seconds(30), .exitCode = 0, .logLines = {"epoch 1", "epoch 2"}});
  registry->onCommand("evaluate",
                      {.duration = milliseconds(500), .exitCode = 4, .logLines = {"bad"}});
  auto trained = run("python /app/train.py --epochs 2");
  EXPECT_EQ(trained.exitCode, 0);
  EXPECT_EQ(trained.took, seconds(30));
  EXPECT_THAT(trained.logs, ElementsAre("epoch 1", "epoch 2"));
  auto evaluated = run("python /app/train.py && python evaluate.py");
  EXPECT_EQ(evaluated.exitCode, 4);
  EXPECT_EQ(evaluated.took, seconds(30) + milliseconds(500));
  EXPECT_THAT(evaluated.logs, ElementsAre("epoch 1", "epoch 2", "bad"));
}

TEST_F(EntrypointTest, BashMinusCRunsItsScriptTheSameWay) {
  auto outcome = run("bash -c 'sleep 5; echo inner; exit 7'");
  EXPECT_EQ(outcome.exitCode, 7);
  EXPECT_EQ(outcome.took, seconds(5));
  EXPECT_THAT(outcome.logs, ElementsAre("inner"));
}

TEST_F(EntrypointTest, TextThatDoesNotParseFailsLikeBash) {
  auto outcome = run("echo 'unclosed");
  EXPECT_EQ(outcome.exitCode, 2);
  ASSERT_EQ(outcome.logs.size(), 1u);
  EXPECT_EQ(outcome.logs[0], "bash: -c: line 1: unexpected EOF while looking for matching `''");
}

TEST_F(EntrypointTest, ACancelledRunLogsNothingMoreAndNeverEnds) {
  std::vector<std::string> logs;
  bool ended = false;
  auto running = EntrypointRun::start(
      "sleep 5 && echo late", registry,
      {.after = [this](Duration d, std::function<void()> fn) { ex.postAfter(d, std::move(fn)); },
       .log = [&](std::string line) { logs.push_back(line); },
       .done = [&](int) { ended = true; }});
  ex.advance(seconds(2));
  running->cancel();
  ex.advance(seconds(10));
  EXPECT_FALSE(ended);
  EXPECT_TRUE(logs.empty());
}

// --- the shell itself ---

TEST(ShellTest, SyntaxErrorsNameTheToken) {
  EXPECT_EQ(parseShell("if true ; fi").error().message, "syntax error near unexpected token `fi'");
  EXPECT_EQ(parseShell("until true ; do echo").error().message,
            "syntax error near unexpected token `newline'");
  EXPECT_TRUE(parseShell("echo done ; echo fi").has_value());  // reserved only in command position
}

TEST(ShellTest, ErrexitStopsAtAFailureButNotInConditionsOrNegations) {
  SimExecutor ex;
  auto runScript = [&](const std::string& text, bool errexit, std::vector<std::string>* lines) {
    auto script = parseShell(text, [](std::string_view name) -> const std::string* {
      static const std::string value = "10.0.0.1:8265";
      return name == "ADDR" ? &value : nullptr;
    });
    EXPECT_TRUE(script.has_value()) << text;
    std::optional<int> status;
    ShellOptions options;
    options.errexit = errexit;
    options.after = [&](Duration d, std::function<void()> fn) { ex.postAfter(d, std::move(fn)); };
    options.print = [lines](std::string line) { lines->push_back(std::move(line)); };
    options.command = [](ShellRun& run, const ShellCall& call, std::function<void(int)> done) {
      if (!run.runBuiltin(call, done)) done(127);
    };
    auto running = ShellRun::start(*script, options, [&](int s) { status = s; });
    ex.runUntil([&] { return status.has_value(); }, seconds(100));
    return status;
  };
  std::vector<std::string> lines;
  EXPECT_EQ(runScript("false ; echo after", true, &lines), 1);
  EXPECT_TRUE(lines.empty());
  EXPECT_EQ(runScript("if ! false >/dev/null 2>&1 ; then echo negated ; fi ; echo \"at $ADDR\"",
                      true, &lines),
            0);
  EXPECT_THAT(lines, ElementsAre("negated", "at 10.0.0.1:8265"));
  lines.clear();
  EXPECT_EQ(
      runScript("echo quiet >/dev/null ; echo loud 2>&1 ; echo ${MISSING:-fallback}", true, &lines),
      0);
  EXPECT_THAT(lines, ElementsAre("loud", "fallback"));
  lines.clear();
  // until: the body runs while the condition fails.
  EXPECT_EQ(runScript("until false ; do echo once ; exit 5 ; done", true, &lines), 5);
  EXPECT_THAT(lines, ElementsAre("once"));
}

TEST(ShellTest, List2cmdlineQuotesAsPython) {
  EXPECT_EQ(list2cmdline({"echo", "no", "quote", "single quote", "double quote"}),
            "echo no quote \"single quote\" \"double quote\"");
  EXPECT_EQ(list2cmdline({"a\"b", "", "c\\"}), "a\\\"b \"\" c\\");
}

}  // namespace
}  // namespace fakekube::ray
