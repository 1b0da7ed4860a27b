#include "fakekube/api/label_selector.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "fakekube/api/json_writer.h"
#include "fakekube/api/validation.h"

namespace fakekube {

namespace {

// ---------------------------------------------------------------------------------------------
// Label key and value checks (k8s.io/apimachinery/pkg/util/validation), with the same messages:
// a selector error reads exactly as the API server's.

std::string joinErrors(const std::vector<std::string>& errs) {
  return fmt::format("{}", fmt::join(errs, "; "));
}

// field.Invalid(path, value, detail).Error(): "<path>: Invalid value: <value>: <detail>".
std::string invalidField(std::string_view path, std::string_view renderedValue,
                         std::string_view detail) {
  return fmt::format("{}: Invalid value: {}: {}", path, renderedValue, detail);
}

// A []string bad value as field.Error renders it (json.Marshal; a nil slice is "null").
std::string renderStrings(const std::vector<std::string>& values) {
  if (values.empty()) return "null";
  return toJsonText(Json(values));  // never throws on invalid UTF-8, as dump() would
}

// strconv.ParseInt(s, 10, 64): optional sign, decimal digits, no overflow.
std::optional<int64_t> parseInt64(std::string_view s) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') return std::nullopt;
  }
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

using Op = LabelSelector::Operator;
using Requirement = LabelSelector::Requirement;

// labels.NewRequirement: validates and builds one requirement. `values` need not be sorted.
// Errors are aggregated as utilerrors.NewAggregate prints them.
tl::expected<Requirement, std::string> newRequirement(std::string key, Op op,
                                                      std::vector<std::string> values) {
  std::vector<std::string> errs;
  auto add = [&errs](std::string e) {
    if (std::find(errs.begin(), errs.end(), e) == errs.end()) errs.push_back(std::move(e));
  };
  if (auto e = isQualifiedName(key); !e.empty()) {
    add(invalidField("key", goQuote(key), joinErrors(e)));
  }
  switch (op) {
    case Op::In:
    case Op::NotIn:
      if (values.empty()) {
        add(invalidField("values", renderStrings(values),
                         "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case Op::Equals:
    case Op::DoubleEquals:
    case Op::NotEquals:
      if (values.size() != 1) {
        add(invalidField("values", renderStrings(values),
                         "exact-match compatibility requires one single value"));
      }
      break;
    case Op::Exists:
    case Op::DoesNotExist:
      if (!values.empty()) {
        add(invalidField("values", renderStrings(values),
                         "values set must be empty for exists and does not exist"));
      }
      break;
    case Op::GreaterThan:
    case Op::LessThan:
      if (values.size() != 1) {
        add(invalidField("values", renderStrings(values),
                         "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (size_t i = 0; i < values.size(); ++i) {
        if (!parseInt64(values[i])) {
          add(invalidField(fmt::format("values[{}]", i), goQuote(values[i]),
                           "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (auto e = isValidLabelValue(values[i]); !e.empty()) {
      add(invalidField(fmt::format("values[{}][{}]", i, key), goQuote(values[i]), joinErrors(e)));
    }
  }
  if (errs.size() == 1) return tl::unexpected(errs[0]);
  if (!errs.empty()) return tl::unexpected(fmt::format("[{}]", fmt::join(errs, ", ")));

  Requirement r;
  r.key = std::move(key);
  r.op = op;
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  r.values = std::move(values);
  if (op == Op::GreaterThan || op == Op::LessThan) r.number = *parseInt64(r.values[0]);
  return r;
}

// ---------------------------------------------------------------------------------------------
// The lexer and recursive-descent parser of labels.Parse, token for token, so that what parses
// and the error for what does not are the same.

enum class Token {
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
};

struct Item {
  Token tok;
  std::string_view literal;
};

bool isWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool isSpecialSymbol(char c) {
  switch (c) {
    case '=':
    case '!':
    case '(':
    case ')':
    case ',':
    case '>':
    case '<':
      return true;
    default:
      return false;
  }
}

Token singleSymbolToken(char c) {
  switch (c) {
    case '=':
      return Token::Equals;
    case '!':
      return Token::DoesNotExist;
    case '(':
      return Token::OpenPar;
    case ')':
      return Token::ClosedPar;
    case ',':
      return Token::Comma;
    case '>':
      return Token::GreaterThan;
    default:
      return Token::LessThan;  // '<'
  }
}

std::vector<Item> lex(std::string_view s) {
  // Go's lexer reads a NUL byte as the end of input.
  s = s.substr(0, s.find('\0'));
  std::vector<Item> items;
  size_t i = 0;
  while (true) {
    while (i < s.size() && isWhitespace(s[i])) ++i;
    if (i == s.size()) {
      items.push_back({Token::EndOfString, {}});
      return items;
    }
    if (isSpecialSymbol(s[i])) {
      // The longest symbol wins; only "!=" and "==" are two characters long.
      if (i + 1 < s.size() && s[i + 1] == '=' && (s[i] == '!' || s[i] == '=')) {
        items.push_back({s[i] == '!' ? Token::NotEquals : Token::DoubleEquals, s.substr(i, 2)});
        i += 2;
      } else {
        items.push_back({singleSymbolToken(s[i]), s.substr(i, 1)});
        ++i;
      }
      continue;
    }
    size_t start = i;
    while (i < s.size() && !isWhitespace(s[i]) && !isSpecialSymbol(s[i])) ++i;
    std::string_view word = s.substr(start, i - start);
    Token tok = word == "in" ? Token::In : word == "notin" ? Token::NotIn : Token::Identifier;
    items.push_back({tok, word});
  }
}

// Where a token is read: "in" and "notin" are operators only right after a key; anywhere else
// they are plain identifiers ("in in (in)" is a valid selector).
enum class Context { KeyAndOperator, Values };

class Parser {
 public:
  explicit Parser(std::string_view s) : items_(lex(s)) {}

  tl::expected<std::vector<Requirement>, std::string> parse() {
    std::vector<Requirement> requirements;
    while (true) {
      auto [tok, lit] = lookahead(Context::Values);
      switch (tok) {
        case Token::Identifier:
        case Token::DoesNotExist: {
          auto r = parseRequirement();
          if (!r) return tl::unexpected("unable to parse requirement: " + r.error());
          requirements.push_back(std::move(*r));
          auto [t, l] = consume(Context::Values);
          if (t == Token::EndOfString) return requirements;
          if (t != Token::Comma) {
            return tl::unexpected(fmt::format("found '{}', expected: ',' or 'end of string'", l));
          }
          auto [t2, l2] = lookahead(Context::Values);
          if (t2 != Token::Identifier && t2 != Token::DoesNotExist) {
            return tl::unexpected(fmt::format("found '{}', expected: identifier after ','", l2));
          }
          break;
        }
        case Token::EndOfString:
          return requirements;
        default:
          return tl::unexpected(
              fmt::format("found '{}', expected: !, identifier, or 'end of string'", lit));
      }
    }
  }

 private:
  Item lookahead(Context ctx) const { return contextual(items_[pos_], ctx); }

  Item consume(Context ctx) {
    // The end-of-string item is never consumed past: the grammar stops at it.
    Item it = items_[pos_];
    if (pos_ + 1 < items_.size()) ++pos_;
    return contextual(it, ctx);
  }

  static Item contextual(Item it, Context ctx) {
    if (ctx == Context::Values && (it.tok == Token::In || it.tok == Token::NotIn)) {
      it.tok = Token::Identifier;
    }
    return it;
  }

  tl::expected<Requirement, std::string> parseRequirement() {
    // parseKeyAndInferOperator.
    std::optional<Op> op;
    Item item = consume(Context::Values);
    if (item.tok == Token::DoesNotExist) {
      op = Op::DoesNotExist;
      item = consume(Context::Values);
    }
    std::string_view key = item.literal;
    if (item.tok != Token::Identifier) {
      return tl::unexpected(fmt::format("found '{}', expected: identifier", key));
    }
    if (auto e = isQualifiedName(key); !e.empty()) {
      // The parser validates with a nil field path, which Go prints as "<nil>".
      return tl::unexpected(invalidField("<nil>", goQuote(key), joinErrors(e)));
    }
    if (auto t = lookahead(Context::Values).tok; t == Token::EndOfString || t == Token::Comma) {
      if (!op) op = Op::Exists;
    }
    // "!k" followed by anything but ',' or the end is left for parse() to reject.
    if (op) return newRequirement(std::string(key), *op, {});

    // parseOperator.
    auto [opTok, opLit] = consume(Context::KeyAndOperator);
    switch (opTok) {
      case Token::In:
        op = Op::In;
        break;
      case Token::NotIn:
        op = Op::NotIn;
        break;
      case Token::Equals:
        op = Op::Equals;
        break;
      case Token::DoubleEquals:
        op = Op::DoubleEquals;
        break;
      case Token::NotEquals:
        op = Op::NotEquals;
        break;
      case Token::GreaterThan:
        op = Op::GreaterThan;
        break;
      case Token::LessThan:
        op = Op::LessThan;
        break;
      default:
        return tl::unexpected(
            fmt::format("found '{}', expected: in, notin, =, ==, !=, gt, lt", opLit));
    }

    auto values = (*op == Op::In || *op == Op::NotIn) ? parseValues() : parseExactValue();
    if (!values) return tl::unexpected(values.error());
    // The parser collects values into a set (sets.String): sorted and de-duplicated before they
    // are validated, so an error's values[i] index counts in that order.
    std::sort(values->begin(), values->end());
    values->erase(std::unique(values->begin(), values->end()), values->end());
    return newRequirement(std::string(key), *op, std::move(*values));
  }

  // "(" [values] ")" where values may be empty: "()" and "(a,,b)" both contain "".
  tl::expected<std::vector<std::string>, std::string> parseValues() {
    if (Item open = consume(Context::Values); open.tok != Token::OpenPar) {
      return tl::unexpected(fmt::format("found '{}' expected: '('", open.literal));
    }
    auto [tok, lit] = lookahead(Context::Values);
    switch (tok) {
      case Token::Identifier:
      case Token::Comma: {
        auto s = parseIdentifiersList();
        if (!s) return s;
        if (consume(Context::Values).tok != Token::ClosedPar) {
          return tl::unexpected(fmt::format("found '{}', expected: ')'", lit));
        }
        return s;
      }
      case Token::ClosedPar:
        consume(Context::Values);
        return std::vector<std::string>{""};
      default:
        return tl::unexpected(fmt::format("found '{}', expected: ',', ')' or identifier", lit));
    }
  }

  tl::expected<std::vector<std::string>, std::string> parseIdentifiersList() {
    std::vector<std::string> s;
    while (true) {
      auto [tok, lit] = consume(Context::Values);
      switch (tok) {
        case Token::Identifier: {
          s.emplace_back(lit);
          auto [tok2, lit2] = lookahead(Context::Values);
          if (tok2 == Token::Comma) continue;
          if (tok2 == Token::ClosedPar) return s;
          return tl::unexpected(fmt::format("found '{}', expected: ',' or ')'", lit2));
        }
        case Token::Comma: {
          if (s.empty()) s.emplace_back();  // "(,"
          auto tok2 = lookahead(Context::Values).tok;
          if (tok2 == Token::ClosedPar) {
            s.emplace_back();  // ",)"
            return s;
          }
          if (tok2 == Token::Comma) {
            consume(Context::Values);
            s.emplace_back();  // ",,"
          }
          break;
        }
        default:
          return tl::unexpected(fmt::format("found '{}', expected: ',', or identifier", lit));
      }
    }
  }

  // The single value after =, ==, !=, > or <; nothing before ',' or the end means "".
  tl::expected<std::vector<std::string>, std::string> parseExactValue() {
    auto t = lookahead(Context::Values).tok;
    if (t == Token::EndOfString || t == Token::Comma) return std::vector<std::string>{""};
    auto [tok, lit] = consume(Context::Values);
    if (tok == Token::Identifier) return std::vector<std::string>{std::string(lit)};
    return tl::unexpected(fmt::format("found '{}', expected: identifier", lit));
  }

  std::vector<Item> items_;
  size_t pos_ = 0;
};

void sortByKey(std::vector<Requirement>& rs) {
  std::stable_sort(rs.begin(), rs.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
}

const char* operatorSymbol(Op op) {
  switch (op) {
    case Op::Equals:
      return "=";
    case Op::DoubleEquals:
      return "==";
    case Op::NotEquals:
      return "!=";
    case Op::In:
      return " in ";
    case Op::NotIn:
      return " notin ";
    case Op::GreaterThan:
      return ">";
    case Op::LessThan:
      return "<";
    case Op::Exists:
    case Op::DoesNotExist:
      return "";
  }
  return "";
}

}  // namespace

bool LabelSelector::Requirement::matches(const Json& labels) const {
  bool has = false;
  const std::string* value = nullptr;  // points into `labels`: matching copies nothing
  if (labels.is_object()) {
    if (auto it = labels.find(key); it != labels.end()) {
      has = true;
      if (it->is_string()) value = &it->get_ref<const std::string&>();
    }
  }
  auto hasValue = [&] {
    return value != nullptr && std::binary_search(values.begin(), values.end(), *value);
  };
  switch (op) {
    case Operator::Equals:
    case Operator::DoubleEquals:
    case Operator::In:
      return has && hasValue();
    case Operator::NotEquals:
    case Operator::NotIn:
      return !has || !hasValue();
    case Operator::Exists:
      return has;
    case Operator::DoesNotExist:
      return !has;
    case Operator::GreaterThan:
    case Operator::LessThan: {
      if (value == nullptr) return false;
      auto n = parseInt64(*value);
      if (!n) return false;
      return op == Operator::GreaterThan ? *n > number : *n < number;
    }
  }
  return false;
}

std::string LabelSelector::Requirement::str() const {
  std::string out;
  if (op == Operator::DoesNotExist) out += '!';
  out += key;
  if (op == Operator::Exists || op == Operator::DoesNotExist) return out;
  out += operatorSymbol(op);
  const bool set = op == Operator::In || op == Operator::NotIn;
  if (set) out += '(';
  out += fmt::format("{}", fmt::join(values, ","));
  if (set) out += ')';
  return out;
}

LabelSelector LabelSelector::nothing() {
  LabelSelector s;
  s.nothing_ = true;
  return s;
}

Result<LabelSelector> LabelSelector::parse(std::string_view selector) {
  auto requirements = Parser(selector).parse();
  if (!requirements) return Error(Status::badRequest(requirements.error()));
  LabelSelector s;
  s.requirements_ = std::move(*requirements);
  sortByKey(s.requirements_);
  return s;
}

Result<LabelSelector> LabelSelector::fromJson(const Json& j) {
  if (j.is_null()) return LabelSelector();
  if (!j.is_object()) {
    return Error(Status::badRequest("error decoding label selector: expected a JSON object"));
  }
  std::vector<Requirement> requirements;
  if (auto ml = j.find("matchLabels"); ml != j.end() && !ml->is_null()) {
    if (!ml->is_object()) {
      return Error(Status::badRequest(
          "error decoding label selector: matchLabels must be an object of strings"));
    }
    for (const auto& [k, v] : ml->items()) {
      if (!v.is_string()) {
        return Error(Status::badRequest(fmt::format(
            "error decoding label selector: matchLabels[{}] must be a string", goQuote(k))));
      }
      auto r = newRequirement(k, Operator::Equals, {v.get<std::string>()});
      if (!r) return Error(Status::badRequest(r.error()));
      requirements.push_back(std::move(*r));
    }
  }
  if (auto me = j.find("matchExpressions"); me != j.end() && !me->is_null()) {
    if (!me->is_array()) {
      return Error(
          Status::badRequest("error decoding label selector: matchExpressions must be an array"));
    }
    for (size_t i = 0; i < me->size(); ++i) {
      const Json& e = (*me)[i];
      auto bad = [i](std::string_view what) {
        return Error(Status::badRequest(
            fmt::format("error decoding label selector: matchExpressions[{}]: {}", i, what)));
      };
      if (!e.is_object()) return bad("expected a JSON object");
      auto key = e.find("key");
      if (key != e.end() && !key->is_string()) return bad("key must be a string");
      auto op = e.find("operator");
      if (op != e.end() && !op->is_string()) return bad("operator must be a string");
      std::vector<std::string> values;
      if (auto vs = e.find("values"); vs != e.end() && !vs->is_null()) {
        if (!vs->is_array()) return bad("values must be an array of strings");
        for (const Json& v : *vs) {
          if (!v.is_string()) return bad("values must be an array of strings");
          values.push_back(v.get<std::string>());
        }
      }
      std::string opName = op == e.end() ? "" : op->get<std::string>();
      Operator o;
      if (opName == "In") {
        o = Operator::In;
      } else if (opName == "NotIn") {
        o = Operator::NotIn;
      } else if (opName == "Exists") {
        o = Operator::Exists;
      } else if (opName == "DoesNotExist") {
        o = Operator::DoesNotExist;
      } else {
        return Error(Status::badRequest(
            fmt::format("{} is not a valid label selector operator", goQuote(opName))));
      }
      auto r = newRequirement(key == e.end() ? "" : key->get<std::string>(), o, std::move(values));
      if (!r) return Error(Status::badRequest(r.error()));
      requirements.push_back(std::move(*r));
    }
  }
  LabelSelector s;
  s.requirements_ = std::move(requirements);
  sortByKey(s.requirements_);
  return s;
}

bool LabelSelector::matches(const Json& labels) const {
  if (nothing_) return false;
  for (const auto& r : requirements_) {
    if (!r.matches(labels)) return false;
  }
  return true;
}

std::string LabelSelector::str() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i > 0) out += ',';
    out += requirements_[i].str();
  }
  return out;
}

std::optional<std::string_view> LabelSelector::requiresExactMatch(std::string_view key) const {
  for (const auto& r : requirements_) {
    if (r.key != key) continue;
    if ((r.op == Operator::Equals || r.op == Operator::DoubleEquals || r.op == Operator::In) &&
        r.values.size() == 1) {
      return std::string_view(r.values[0]);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace fakekube
