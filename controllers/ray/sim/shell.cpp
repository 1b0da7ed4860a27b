#include "controllers/ray/sim/internal/shell.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>

namespace fakekube::ray {

// --- the syntax tree ---

struct ShellCommand;

struct ShellPipeline {
  bool negate = false;
  std::vector<std::shared_ptr<const ShellCommand>> commands;
};

struct ShellAndOr {
  std::vector<ShellPipeline> pipelines;
  std::vector<bool> orBefore;  // orBefore[i]: pipelines[i + 1] follows '||' (else '&&')
};

struct ShellList {
  std::vector<ShellAndOr> items;
};

struct ShellCommand {
  enum class Kind { Simple, If, Until, While, Group };
  Kind kind = Kind::Simple;
  ShellCall call;                                         // Simple
  std::vector<std::pair<ShellList, ShellList>> branches;  // If: (condition, body)...
  std::optional<ShellList> elseBody;                      // If
  ShellList condition;                                    // Until / While
  ShellList body;                                         // Until / While / Group
};

namespace {

// --- tokens ---

struct Token {
  enum class Kind { Word, Operator, Redirect, End };
  Kind kind = Kind::End;
  std::string text;
  bool quoted = false;           // some part of the word was quoted (not a reserved word)
  bool redirectsOutput = false;  // Redirect: standard output goes elsewhere
};

bool isOperatorChar(char c) { return c == ';' || c == '&' || c == '|' || c == '(' || c == ')'; }
bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

class Lexer {
 public:
  Lexer(std::string_view text, const ShellEnvironment& environment)
      : text_(text), environment_(environment) {}

  Result<std::vector<Token>> run() {
    std::vector<Token> tokens;
    while (true) {
      while (i_ < text_.size() && isBlank(text_[i_])) ++i_;
      if (i_ < text_.size() && text_[i_] == '#') {
        while (i_ < text_.size() && text_[i_] != '\n') ++i_;
      }
      if (i_ >= text_.size()) break;
      char c = text_[i_];
      if (c == '\n') {
        tokens.push_back({Token::Kind::Operator, "\n"});
        ++i_;
        continue;
      }
      if (c == '\\' && i_ + 1 < text_.size() && text_[i_ + 1] == '\n') {
        i_ += 2;  // line continuation
        continue;
      }
      if (isOperatorChar(c)) {
        std::string op(1, c);
        if ((c == '&' || c == '|' || c == ';') && i_ + 1 < text_.size() && text_[i_ + 1] == c) {
          op += c;
        }
        i_ += op.size();
        if (op == "&" || op == ";;" || op == "(" || op == ")") {
          return tl::unexpected(Status::badRequest(
              fmt::format("syntax error near unexpected token `{}' (not simulated)", op)));
        }
        tokens.push_back({Token::Kind::Operator, op});
        continue;
      }
      if (auto redirect = lexRedirect()) {
        if (!*redirect) return tl::unexpected(redirect->error());
        tokens.push_back(std::move(**redirect));
        continue;
      }
      auto word = lexWord();
      if (!word) return tl::unexpected(word.error());
      tokens.push_back(std::move(*word));
    }
    tokens.push_back({Token::Kind::End, ""});
    return tokens;
  }

 private:
  // [n]>, [n]>>, [n]>&m, [n]<, followed by a target word. nullopt when no redirection starts here.
  std::optional<Result<Token>> lexRedirect() {
    std::size_t j = i_;
    while (j < text_.size() && std::isdigit(static_cast<unsigned char>(text_[j]))) ++j;
    if (j >= text_.size() || (text_[j] != '>' && text_[j] != '<')) return std::nullopt;
    const std::string_view fd = text_.substr(i_, j - i_);
    const bool output = text_[j] == '>';
    ++j;
    bool duplicate = false;
    if (j < text_.size() && (text_[j] == '>' || text_[j] == '&')) {
      duplicate = text_[j] == '&';
      ++j;
    }
    i_ = j;
    while (i_ < text_.size() && isBlank(text_[i_])) ++i_;
    auto target = lexWord();
    if (!target || target->text.empty()) {
      return Result<Token>(
          tl::unexpected(Status::badRequest("syntax error near unexpected token `newline'")));
    }
    Token token{Token::Kind::Redirect, target->text};
    // `2>&1` keeps standard output where it is; `>x`, `1>x`, `>&2` move it.
    token.redirectsOutput =
        output && (fd.empty() || fd == "1") && !(duplicate && target->text == "1");
    return Result<Token>(std::move(token));
  }

  void expand(std::string& out) {
    // At '$'.
    ++i_;
    if (i_ < text_.size() && text_[i_] == '{') {
      std::size_t close = text_.find('}', i_);
      if (close == std::string_view::npos) {
        out += "${";
        ++i_;
        return;
      }
      std::string_view inner = text_.substr(i_ + 1, close - i_ - 1);
      i_ = close + 1;
      std::string_view name = inner;
      std::optional<std::string_view> fallback;
      if (auto at = inner.find(":-"); at != std::string_view::npos) {
        name = inner.substr(0, at);
        fallback = inner.substr(at + 2);
      }
      const std::string* value = environment_ ? environment_(name) : nullptr;
      if (value != nullptr && !(fallback && value->empty())) {
        out += *value;
      } else if (fallback) {
        out += *fallback;
      }
      return;
    }
    std::size_t start = i_;
    while (i_ < text_.size() && isNameChar(text_[i_])) ++i_;
    if (i_ == start) {
      out += '$';
      return;
    }
    const std::string* value =
        environment_ ? environment_(text_.substr(start, i_ - start)) : nullptr;
    if (value != nullptr) out += *value;
  }

  Result<Token> lexWord() {
    Token token{Token::Kind::Word, ""};
    std::string& out = token.text;
    while (i_ < text_.size()) {
      char c = text_[i_];
      if (isBlank(c) || c == '\n' || isOperatorChar(c)) break;
      if ((c == '>' || c == '<')) break;
      if (c == '\\') {
        if (i_ + 1 < text_.size()) out += text_[i_ + 1];
        i_ += 2;
        token.quoted = true;
        continue;
      }
      if (c == '\'') {
        std::size_t close = text_.find('\'', i_ + 1);
        if (close == std::string_view::npos) {
          return tl::unexpected(
              Status::badRequest("unexpected EOF while looking for matching `''"));
        }
        out += text_.substr(i_ + 1, close - i_ - 1);
        i_ = close + 1;
        token.quoted = true;
        continue;
      }
      if (c == '"') {
        token.quoted = true;
        ++i_;
        bool closed = false;
        while (i_ < text_.size()) {
          char d = text_[i_];
          if (d == '"') {
            closed = true;
            ++i_;
            break;
          }
          if (d == '\\' && i_ + 1 < text_.size()) {
            char e = text_[i_ + 1];
            if (e == '"' || e == '\\' || e == '$' || e == '`') {
              out += e;
            } else if (e != '\n') {
              out += d;
              out += e;
            }
            i_ += 2;
            continue;
          }
          if (d == '$') {
            expand(out);
            continue;
          }
          out += d;
          ++i_;
        }
        if (!closed) {
          return tl::unexpected(
              Status::badRequest("unexpected EOF while looking for matching `\"'"));
        }
        continue;
      }
      if (c == '$') {
        expand(out);
        continue;
      }
      out += c;
      ++i_;
    }
    return token;
  }

  std::string_view text_;
  const ShellEnvironment& environment_;
  std::size_t i_ = 0;
};

// --- parser ---

bool isReserved(const Token& t, std::string_view word) {
  return t.kind == Token::Kind::Word && !t.quoted && t.text == word;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Result<ShellList> script() {
    auto list = parseList({});
    if (!list) return list;
    if (peek().kind != Token::Kind::End) return unexpected(peek());
    return list;
  }

 private:
  const Token& peek() const { return tokens_[i_]; }
  const Token& next() { return tokens_[i_++]; }
  bool atOperator(std::string_view op) const {
    return peek().kind == Token::Kind::Operator && peek().text == op;
  }
  static Status unexpectedStatus(const Token& t) {
    std::string shown = t.kind == Token::Kind::End ? "newline"
                        : t.text == "\n"           ? "newline"
                                                   : t.text;
    return Status::badRequest(fmt::format("syntax error near unexpected token `{}'", shown));
  }
  static tl::unexpected<Status> unexpected(const Token& t) {
    return tl::unexpected(unexpectedStatus(t));
  }
  void skipNewlines() {
    while (atOperator("\n")) ++i_;
  }
  bool atTerminator(const std::vector<std::string_view>& terminators) const {
    if (peek().kind == Token::Kind::End) return true;
    for (auto word : terminators) {
      if (isReserved(peek(), word)) return true;
    }
    return false;
  }

  Result<ShellList> parseList(const std::vector<std::string_view>& terminators) {
    ShellList list;
    skipNewlines();
    while (!atTerminator(terminators)) {
      auto item = parseAndOr(terminators);
      if (!item) return tl::unexpected(item.error());
      list.items.push_back(std::move(*item));
      if (atOperator(";") || atOperator("\n")) {
        ++i_;
        skipNewlines();
        continue;
      }
      if (!atTerminator(terminators)) return unexpected(peek());
    }
    return list;
  }

  Result<ShellAndOr> parseAndOr(const std::vector<std::string_view>& terminators) {
    ShellAndOr item;
    while (true) {
      auto pipeline = parsePipeline(terminators);
      if (!pipeline) return tl::unexpected(pipeline.error());
      item.pipelines.push_back(std::move(*pipeline));
      if (atOperator("&&") || atOperator("||")) {
        item.orBefore.push_back(next().text == "||");
        skipNewlines();
        continue;
      }
      return item;
    }
  }

  Result<ShellPipeline> parsePipeline(const std::vector<std::string_view>& terminators) {
    ShellPipeline pipeline;
    if (isReserved(peek(), "!")) {
      pipeline.negate = true;
      ++i_;
    }
    while (true) {
      auto command = parseCommand(terminators);
      if (!command) return tl::unexpected(command.error());
      pipeline.commands.push_back(std::make_shared<const ShellCommand>(std::move(*command)));
      if (atOperator("|")) {
        ++i_;
        skipNewlines();
        continue;
      }
      return pipeline;
    }
  }

  Result<void> expect(std::string_view word) {
    if (!isReserved(peek(), word)) return unexpected(peek());
    ++i_;
    return {};
  }

  Result<ShellCommand> parseCommand(const std::vector<std::string_view>& terminators) {
    ShellCommand command;
    const Token& first = peek();
    if (isReserved(first, "if")) {
      ++i_;
      command.kind = ShellCommand::Kind::If;
      while (true) {
        auto condition = parseList({"then"});
        if (!condition) return tl::unexpected(condition.error());
        if (auto ok = expect("then"); !ok) return tl::unexpected(ok.error());
        auto body = parseList({"elif", "else", "fi"});
        if (!body) return tl::unexpected(body.error());
        command.branches.emplace_back(std::move(*condition), std::move(*body));
        if (isReserved(peek(), "elif")) {
          ++i_;
          continue;
        }
        break;
      }
      if (isReserved(peek(), "else")) {
        ++i_;
        auto body = parseList({"fi"});
        if (!body) return tl::unexpected(body.error());
        command.elseBody = std::move(*body);
      }
      if (auto ok = expect("fi"); !ok) return tl::unexpected(ok.error());
      return skipRedirects(std::move(command));
    }
    if (isReserved(first, "until") || isReserved(first, "while")) {
      command.kind = first.text == "until" ? ShellCommand::Kind::Until : ShellCommand::Kind::While;
      ++i_;
      auto condition = parseList({"do"});
      if (!condition) return tl::unexpected(condition.error());
      if (auto ok = expect("do"); !ok) return tl::unexpected(ok.error());
      auto body = parseList({"done"});
      if (!body) return tl::unexpected(body.error());
      if (auto ok = expect("done"); !ok) return tl::unexpected(ok.error());
      command.condition = std::move(*condition);
      command.body = std::move(*body);
      return skipRedirects(std::move(command));
    }
    if (isReserved(first, "{")) {
      ++i_;
      command.kind = ShellCommand::Kind::Group;
      auto body = parseList({"}"});
      if (!body) return tl::unexpected(body.error());
      if (auto ok = expect("}"); !ok) return tl::unexpected(ok.error());
      command.body = std::move(*body);
      return skipRedirects(std::move(command));
    }
    for (auto word : {"then", "elif", "else", "fi", "do", "done", "}"}) {
      if (isReserved(first, word)) return unexpected(first);
    }
    command.kind = ShellCommand::Kind::Simple;
    while (peek().kind == Token::Kind::Word || peek().kind == Token::Kind::Redirect) {
      const Token& t = next();
      if (t.kind == Token::Kind::Redirect) {
        command.call.quiet = command.call.quiet || t.redirectsOutput;
      } else {
        command.call.argv.push_back(t.text);
      }
    }
    if (command.call.argv.empty() && !command.call.quiet) return unexpected(peek());
    return command;
  }

  // Redirections after a compound command (`done >/dev/null`) are accepted and ignored.
  Result<ShellCommand> skipRedirects(ShellCommand command) {
    while (peek().kind == Token::Kind::Redirect) ++i_;
    return command;
  }

  std::vector<Token> tokens_;
  std::size_t i_ = 0;
};

}  // namespace

Result<ShellScript> parseShell(std::string_view text, const ShellEnvironment& environment) {
  auto tokens = Lexer(text, environment).run();
  if (!tokens) return tl::unexpected(tokens.error());
  auto list = Parser(std::move(*tokens)).script();
  if (!list) return tl::unexpected(list.error());
  return std::make_shared<const ShellList>(std::move(*list));
}

// --- running ---

// Continuation-passing walk of the tree. `checked`: the status is being tested (condition, not
// the last of an and-or, negated), so errexit does not apply. Every continuation first checks
// that the run has not ended (exit, errexit, cancel).
struct ShellRun::Walker {
  using Done = std::function<void(int)>;

  static void list(const std::shared_ptr<ShellRun>& run, const ShellList* items, std::size_t index,
                   int status, bool checked, Done done) {
    if (run->finished_) return;
    if (index >= items->items.size()) {
      done(status);
      return;
    }
    andOr(run, &items->items[index], 0, checked, [run, items, index, checked, done](int result) {
      if (run->finished_) return;
      list(run, items, index + 1, result, checked, done);
    });
  }

  static void andOr(const std::shared_ptr<ShellRun>& run, const ShellAndOr* item, std::size_t index,
                    bool checked, Done done) {
    const bool last = index + 1 == item->pipelines.size();
    pipeline(run, &item->pipelines[index], checked || !last,
             [run, item, index, checked, last, done](int status) {
               if (run->finished_) return;
               if (last) {
                 done(status);
                 return;
               }
               // Skip the pipelines the operator skips: `a && b` runs b only after success.
               std::size_t next = index + 1;
               while (next < item->pipelines.size()) {
                 bool orOperator = item->orBefore[next - 1];
                 if ((status == 0) != orOperator) break;
                 ++next;
               }
               if (next >= item->pipelines.size()) {
                 done(status);
                 return;
               }
               andOr(run, item, next, checked, done);
             });
  }

  static void pipeline(const std::shared_ptr<ShellRun>& run, const ShellPipeline* p, bool checked,
                       Done done) {
    commands(run, p, 0, checked || p->negate, [run, p, checked, done](int status) {
      if (run->finished_) return;
      if (p->negate) status = status == 0 ? 1 : 0;
      if (status != 0 && !checked && run->options_.errexit) {
        run->finish(status);
        return;
      }
      done(status);
    });
  }

  static void commands(const std::shared_ptr<ShellRun>& run, const ShellPipeline* p,
                       std::size_t index, bool checked, Done done) {
    command(run, p->commands[index].get(), checked, [run, p, index, checked, done](int status) {
      if (run->finished_) return;
      if (index + 1 >= p->commands.size()) {
        done(status);
        return;
      }
      commands(run, p, index + 1, checked, done);
    });
  }

  static void command(const std::shared_ptr<ShellRun>& run, const ShellCommand* c, bool checked,
                      Done done) {
    switch (c->kind) {
      case ShellCommand::Kind::Simple:
        simple(run, c->call, done);
        return;
      case ShellCommand::Kind::Group:
        list(run, &c->body, 0, 0, checked, done);
        return;
      case ShellCommand::Kind::If:
        branch(run, c, 0, checked, done);
        return;
      case ShellCommand::Kind::Until:
      case ShellCommand::Kind::While:
        loop(run, c, 0, checked, done);
        return;
    }
  }

  static void branch(const std::shared_ptr<ShellRun>& run, const ShellCommand* c, std::size_t index,
                     bool checked, Done done) {
    if (index >= c->branches.size()) {
      if (c->elseBody) {
        list(run, &*c->elseBody, 0, 0, checked, done);
      } else {
        done(0);
      }
      return;
    }
    list(run, &c->branches[index].first, 0, 0, /*checked=*/true,
         [run, c, index, checked, done](int status) {
           if (run->finished_) return;
           if (status == 0) {
             list(run, &c->branches[index].second, 0, 0, checked, done);
           } else {
             branch(run, c, index + 1, checked, done);
           }
         });
  }

  static void loop(const std::shared_ptr<ShellRun>& run, const ShellCommand* c, int status,
                   bool checked, Done done) {
    list(run, &c->condition, 0, 0, /*checked=*/true, [run, c, status, checked, done](int result) {
      if (run->finished_) return;
      const bool stop = c->kind == ShellCommand::Kind::Until ? result == 0 : result != 0;
      if (stop) {
        done(status);
        return;
      }
      list(run, &c->body, 0, 0, checked, [run, c, checked, done](int bodyStatus) {
        if (run->finished_) return;
        // The next round in a task of its own: a loop never deepens the stack.
        run->after(Duration{0}, [run, c, bodyStatus, checked, done] {
          loop(run, c, bodyStatus, checked, done);
        });
      });
    });
  }

  static void simple(const std::shared_ptr<ShellRun>& run, const ShellCall& call, Done done) {
    if (call.argv.empty()) {
      done(0);
      return;
    }
    if (call.argv[0] == "exit") {
      int code = 0;
      if (call.argv.size() > 1) {
        const std::string& text = call.argv[1];
        int parsed = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
        code = (ec == std::errc() && end == text.data() + text.size()) ? (parsed & 0xff) : 2;
      }
      run->finish(code);
      return;
    }
    auto once = std::make_shared<bool>(false);
    run->options_.command(*run, call, [run, once, done](int status) {
      if (*once || run->finished_) return;
      *once = true;
      done(status);
    });
  }
};

ShellRun::ShellRun(ShellScript script, ShellOptions options, std::function<void(int)> done)
    : script_(std::move(script)), options_(std::move(options)), done_(std::move(done)) {}

std::shared_ptr<ShellRun> ShellRun::start(ShellScript script, ShellOptions options,
                                          std::function<void(int)> done) {
  std::shared_ptr<ShellRun> run(
      new ShellRun(std::move(script), std::move(options), std::move(done)));
  // The walk's continuations hold `run`; nothing else needs to.
  Walker::list(run, run->script_.get(), 0, 0, false, [run](int status) { run->finish(status); });
  return run;
}

void ShellRun::cancel() {
  std::lock_guard lock(mu_);
  finished_ = true;
  done_ = nullptr;
}

void ShellRun::finish(int status) {
  std::function<void(int)> done;
  {
    std::lock_guard lock(mu_);
    if (finished_) return;
    finished_ = true;
    done = std::move(done_);
    done_ = nullptr;
  }
  if (done) done(status);
}

void ShellRun::print(const ShellCall& call, std::string line) {
  if (call.quiet || finished_ || !options_.print) return;
  options_.print(std::move(line));
}

void ShellRun::after(Duration delay, std::function<void()> fn) {
  if (finished_) return;
  if (options_.after) {
    options_.after(delay, std::move(fn));
  } else {
    fn();
  }
}

bool ShellRun::runBuiltin(const ShellCall& call, const std::function<void(int)>& done) {
  const std::string& name = call.argv[0];
  if (name == "true" || name == ":") {
    done(0);
    return true;
  }
  if (name == "false") {
    done(1);
    return true;
  }
  if (name == "echo") {
    std::vector<std::string> words(call.argv.begin() + 1, call.argv.end());
    bool newline = true;
    if (!words.empty() && words[0] == "-n") {
      newline = false;
      words.erase(words.begin());
    }
    (void)newline;
    print(call, fmt::format("{}", fmt::join(words, " ")));
    done(0);
    return true;
  }
  if (name == "sleep") {
    double seconds = 0;
    bool ok = call.argv.size() == 2;
    if (ok) {
      std::string text = call.argv[1];
      if (!text.empty() && text.back() == 's') text.pop_back();
      char* end = nullptr;
      seconds = std::strtod(text.c_str(), &end);
      ok = !text.empty() && end == text.c_str() + text.size() && seconds >= 0 &&
           std::isfinite(seconds);
    }
    if (!ok) {
      print(call, fmt::format("sleep: invalid time interval '{}'",
                              call.argv.size() > 1 ? call.argv[1] : ""));
      done(1);
      return true;
    }
    auto delay = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
    after(delay, [done] { done(0); });
    return true;
  }
  return false;
}

std::string list2cmdline(const std::vector<std::string>& args) {
  std::string result;
  for (const std::string& arg : args) {
    if (!result.empty()) result += ' ';
    const bool needQuote = arg.empty() || arg.find_first_of(" \t") != std::string::npos;
    if (needQuote) result += '"';
    std::size_t backslashes = 0;
    for (char c : arg) {
      if (c == '\\') {
        ++backslashes;
      } else if (c == '"') {
        result.append(backslashes * 2 + 1, '\\');
        result += '"';
        backslashes = 0;
      } else {
        result.append(backslashes, '\\');
        backslashes = 0;
        result += c;
      }
    }
    if (needQuote) {
      result.append(backslashes * 2, '\\');
      result += '"';
    } else {
      result.append(backslashes, '\\');
    }
  }
  return result;
}

}  // namespace fakekube::ray
