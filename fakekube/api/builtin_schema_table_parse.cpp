#include <algorithm>

#include "fakekube/api/internal/builtin_schema_table.h"

namespace fakekube {

namespace {

std::vector<std::string_view> splitTabs(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string_view::npos ? tab : tab - start));
    if (tab == std::string_view::npos) return out;
    start = tab + 1;
  }
}

std::string unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out.push_back(text[i + 1] == 'n' ? '\n' : text[i + 1]);
      ++i;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace

const BuiltinSchemaTable& BuiltinSchemaTable::get() {
  static const BuiltinSchemaTable instance;
  return instance;
}

BuiltinSchemaTable::BuiltinSchemaTable() {
  std::string_view text = builtinSchemaTable();
  BuiltinDefinition* current = nullptr;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.empty()) continue;
    if (line.starts_with("D ")) {
      current = &definitions_[std::string(line.substr(2))];
    } else if (line.starts_with("K ")) {
      auto parts = splitTabs(line.substr(2));
      if (parts.size() != 4) continue;
      kinds_.push_back({std::string(parts[0]), std::string(parts[1]), std::string(parts[2]),
                        std::string(parts[3])});
    } else if (current != nullptr) {
      auto parts = splitTabs(line);
      if (parts.size() != 4) continue;
      current->fields.push_back(
          {std::string(parts[0]), std::string(parts[1]), parts[2] == "r", unescape(parts[3])});
    }
  }
  for (auto& [name, definition] : definitions_) {
    std::sort(definition.fields.begin(), definition.fields.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
  }
}

const BuiltinDefinition* BuiltinSchemaTable::definition(std::string_view name) const {
  auto it = definitions_.find(std::string(name));
  return it == definitions_.end() ? nullptr : &it->second;
}

std::vector<const BuiltinKindSchema*> BuiltinSchemaTable::kindsOf(
    std::string_view definition) const {
  std::vector<const BuiltinKindSchema*> out;
  for (const auto& k : kinds_) {
    if (k.definition == definition) out.push_back(&k);
  }
  return out;
}

std::string BuiltinSchemaTable::definitionOf(std::string_view group, std::string_view version,
                                             std::string_view kind) const {
  for (const auto& k : kinds_) {
    if (k.group == group && k.version == version && k.kind == kind) return k.definition;
  }
  return "";
}

}  // namespace fakekube
