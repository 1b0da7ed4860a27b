// LabelSelector: which objects a list, a watch or a controller's selector picks by their labels.
//
// Two spellings reach the server. Query strings (`?labelSelector=app=web,tier notin (db)`) use the
// string syntax of k8s.io/apimachinery/pkg/labels; object bodies (a Deployment's spec.selector)
// use metav1.LabelSelector {matchLabels, matchExpressions}. Both become the same conjunction of
// requirements here, with the same matching rules, errors and canonical string as Kubernetes:
//
//   k=v, k==v      the label is present and equal to v
//   k!=v           the label is absent or differs from v
//   k in (a,b)     the label is present and one of a, b
//   k notin (a,b)  the label is absent or none of a, b
//   k              the label is present (any value)
//   !k             the label is absent
//   k>n, k<n       the label is present, parses as a base-10 int64, and compares so with n
//
// Requirements are separated by commas (AND); whitespace between tokens is ignored; the empty
// string selects everything. Keys must be qualified names and values valid label values, exactly
// as labels.Parse checks them.
//
// A LabelSelector is immutable once built and safe to share between threads. Matching allocates
// nothing: it runs once per object on the list and watch hot paths.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

class LabelSelector {
 public:
  // The operators of k8s.io/apimachinery/pkg/selection. Equals and DoubleEquals match alike; they
  // are kept apart only so that str() gives back what was written.
  enum class Operator {
    Equals,
    DoubleEquals,
    NotEquals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan,
  };

  // One term of the conjunction.
  struct Requirement {
    std::string key;
    Operator op = Operator::Exists;
    // Sorted and de-duplicated. Exactly one for Equals/DoubleEquals/NotEquals/GreaterThan/
    // LessThan, at least one for In/NotIn, none for Exists/DoesNotExist.
    std::vector<std::string> values;
    // values[0] as an integer, for GreaterThan/LessThan.
    int64_t number = 0;

    // `labels` is a metadata.labels object; null or any non-object counts as no labels. A label
    // whose value is not a string (which validation never lets through) equals no value.
    bool matches(const Json& labels) const;
    // The Kubernetes spelling: "k=v", "k in (a,b)", "!k", ...
    std::string str() const;
    bool operator==(const Requirement&) const = default;
  };

  // The empty selector: matches everything (labels.Everything()).
  LabelSelector() = default;

  static LabelSelector everything() { return LabelSelector(); }
  // Matches no object at all (labels.Nothing()). Neither syntax produces it: it is what callers
  // use where Kubernetes treats a missing selector as selecting nothing (e.g. a nil
  // spec.selector given to LabelSelectorAsSelector).
  static LabelSelector nothing();

  // Parses the query-string syntax. Errors are 400 BadRequest with labels.Parse's message, e.g.
  //   unable to parse requirement: found '', expected: ',' or ')'
  //   found '=', expected: !, identifier, or 'end of string'
  // Requirements are ordered by key (stably), as Kubernetes orders them.
  static Result<LabelSelector> parse(std::string_view selector);

  // Converts a metav1.LabelSelector: {"matchLabels": {k: v}, "matchExpressions": [{"key": k,
  // "operator": "In"|"NotIn"|"Exists"|"DoesNotExist", "values": [...]}]}.
  //
  // An empty object {} and null both select everything. Kubernetes gives a *missing* selector
  // different meanings in different places (nothing for LabelSelectorAsSelector, everything for
  // a NetworkPolicy podSelector), so a caller that needs "missing selects nothing" checks for
  // absence itself and uses nothing(). Malformed input, an unknown operator or an invalid
  // key/value is a 400 BadRequest whose message is the one Kubernetes reports; callers validating
  // an object body re-wrap it as the field error they need.
  static Result<LabelSelector> fromJson(const Json& metav1LabelSelector);

  // True if every requirement holds for `labels` (a metadata.labels object, or null).
  bool matches(const Json& labels) const;

  // True if the selector does not restrict anything (the everything selector). nothing() is not
  // empty.
  bool empty() const { return !nothing_ && requirements_.empty(); }
  bool matchesNothing() const { return nothing_; }

  // The canonical string form: requirements joined by ",", each as Requirement::str(). Parsing it
  // again yields an equal selector. nothing() prints as "" (as in Kubernetes), so callers must not
  // round-trip it through a string.
  std::string str() const;

  const std::vector<Requirement>& requirements() const { return requirements_; }

  // If the selector pins `key` to a single value (k=v, k==v or k in (v)), that value. Lets the
  // store narrow a scan before matching.
  std::optional<std::string_view> requiresExactMatch(std::string_view key) const;

  bool operator==(const LabelSelector&) const = default;

 private:
  std::vector<Requirement> requirements_;
  bool nothing_ = false;
};

}  // namespace fakekube
