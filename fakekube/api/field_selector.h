// FieldSelector: the `fieldSelector` query parameter of list and watch.
//
// The syntax is k8s.io/apimachinery/pkg/fields: comma-separated terms (AND), each `field=value`,
// `field==value` or `field!=value`. Only the value may be escaped: `\,`, `\=` and `\\` stand for
// the literal characters, and an unescaped `,` or `=` in a value is an error. Nothing is trimmed:
// `metadata.name = x` names the field "metadata.name " (which no kind supports).
//
// Which fields may be selected on depends on the kind (every kind: metadata.name, and
// metadata.namespace when namespaced; pods a few more). That is not this class's business: the
// caller checks fields() against its list and answers 400 `field label not supported: <field>`.
//
// A field the object lacks has the value "", so `spec.nodeName=` selects unscheduled pods and
// `spec.nodeName!=x` matches pods with no node. Immutable once built; safe to share.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

class FieldSelector {
 public:
  struct Term {
    std::string field;
    std::string value;     // unescaped
    bool negated = false;  // "!=" rather than "=" / "=="
    bool operator==(const Term&) const = default;
  };

  // Looks one field up by its selector name ("status.phase"); nullopt when the object lacks it.
  // The view must stay valid until the getter is called again (typically it points into the
  // object). A lambda capturing a reference or two fits std::function's small buffer, so passing
  // one does not allocate.
  using Getter = std::function<std::optional<std::string_view>(std::string_view field)>;

  // The empty selector: matches everything.
  FieldSelector() = default;

  // Parses the query-string syntax. Errors are 400 BadRequest with fields.ParseSelector's
  // message, e.g. `invalid selector: 'foo'; can't understand 'foo'`. Terms are ordered as
  // Kubernetes orders them (by their text), which fixes the order of fields() and str().
  static Result<FieldSelector> parse(std::string_view selector);

  // The field names the terms use, in term order (repeats kept).
  std::vector<std::string> fields() const;

  // True if every term holds, reading fields through `get`.
  bool matches(const Getter& get) const;

  // Convenience over matches(Getter): reads each field as a dotted path into `object`
  // ("metadata.name" is object["metadata"]["name"]), which is what every field Kubernetes
  // supports is. Strings compare as themselves, booleans as "true"/"false"; anything else, or a
  // missing field, as "".
  bool matchesObject(const Json& object) const;

  // The same terms with each field renamed by `rename` (a served kind's labels as the stored
  // kind's: StorageConversion::fieldLabel).
  FieldSelector renamed(std::string_view (*rename)(std::string_view)) const;

  // If some term pins `field` to one value (field=value), that value: lets the store turn
  // `metadata.name=x` into a point lookup.
  std::optional<std::string_view> requiresExactMatch(std::string_view field) const;

  bool empty() const { return terms_.empty(); }
  const std::vector<Term>& terms() const { return terms_; }

  // The canonical form: "field=value" / "field!=value" joined by ",", values re-escaped.
  std::string str() const;

  bool operator==(const FieldSelector&) const = default;

 private:
  std::vector<Term> terms_;
};

// The value at a dotted path ("status.phase") as matchesObject reads it: a string, or a boolean
// as "true"/"false"; nullopt for anything else or a missing member.
std::optional<std::string_view> fieldValueAtPath(const Json& object, std::string_view path);

// fields.EscapeValue: escapes `\`, `,` and `=` so a value can be written into a selector.
std::string escapeFieldSelectorValue(std::string_view value);

}  // namespace fakekube
