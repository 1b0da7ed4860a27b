#include "fakekube/apiserver/internal/selection.h"

#include <fmt/format.h>

#include "fakekube/api/object_meta.h"

namespace fakekube {

Result<Selection> Selection::parse(const ResourceInfo& info, std::string_view labelSelector,
                                   std::string_view fieldSelector) {
  auto labels = LabelSelector::parse(labelSelector);
  if (!labels) return tl::unexpected(labels.error());
  auto fields = FieldSelector::parse(fieldSelector);
  if (!fields) return tl::unexpected(fields.error());
  for (const auto& field : fields->fields()) {
    if (!info.supportsFieldSelector(field)) {
      return tl::unexpected(
          Status::badRequest(fmt::format("field label not supported: {}", field)));
    }
  }
  if (info.conversion != nullptr && !fields->empty()) {
    *fields = fields->renamed(info.conversion->fieldLabel);
  }
  return Selection{std::move(*labels), std::move(*fields), info.selectableField};
}

bool Selection::matches(const Json& object) const {
  if (!labels.matches(meta::labels(object))) return false;
  if (fields.empty()) return true;
  if (selectableField == nullptr) return fields.matchesObject(object);
  return fields.matches([&](std::string_view field) { return selectableField(object, field); });
}

Result<std::int64_t> parseResourceVersion(const std::string& rv) {
  if (rv.empty() || rv.size() > 18 || rv.find_first_not_of("0123456789") != std::string::npos) {
    return tl::unexpected(Status::badRequest(fmt::format("invalid resource version: {}", rv)));
  }
  return std::stoll(rv);
}

}  // namespace fakekube
