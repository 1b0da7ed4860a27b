// layering_check: the dependency table of docs/architecture.md, enforced.
//
//   layering_check <source root>
//
// Reads the table under "## The folders" (a row: | `folder/` | what it holds | depends on |),
// then every header and source file of those folders, and fails (exit 1, one line a violation)
// when a file includes a project header of a folder its own folder does not depend on, directly
// or through the folders it depends on; when a folder under fakekube/ has no row; or when a
// public header (cmake/PublicHeaders.cmake) includes a project header that is not public; or when
// a header's folder disagrees with that list: implementation headers live in an `internal/`
// folder of their layer and public ones outside it, so an include names which it reaches. The
// build runs it (the `layering` target), so a header that reaches a higher layer fails the build.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> splitCells(const std::string& row) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '|') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return cells;
}

// A folder's name as its row writes it (`fakekube/api/`), and the short name the "depends on"
// column uses (api).
std::string shortName(const std::string& folder) {
  std::string trimmed = folder.substr(0, folder.size() - 1);  // drop the '/'
  auto slash = trimmed.rfind('/');
  return slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
}

struct Table {
  std::vector<std::string> folders;                        // in the table's order
  std::map<std::string, std::set<std::string>> dependsOn;  // folder -> folders
};

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Whether `text` names `word` as a whole word.
bool namesWord(const std::string& text, const std::string& word) {
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    bool before = at == 0 || !isWordChar(text[at - 1]);
    bool after = at + word.size() == text.size() || !isWordChar(text[at + word.size()]);
    if (before && after) return true;
  }
  return false;
}

Table readTable(const fs::path& root) {
  Table table;
  std::istringstream doc(readFile(root / "docs/architecture.md"));
  std::string line;
  bool inTable = false;
  std::map<std::string, std::string> dependencyText;
  while (std::getline(doc, line)) {
    if (line.rfind("## ", 0) == 0) inTable = line == "## The folders";
    if (!inTable || line.rfind("| `", 0) != 0) continue;
    auto cells = splitCells(line);
    if (cells.size() < 3) continue;
    std::string folder = cells[0];
    folder.erase(std::remove(folder.begin(), folder.end(), '`'), folder.end());
    folder.erase(std::remove(folder.begin(), folder.end(), ' '), folder.end());
    if (folder.empty() || folder.back() != '/') continue;
    table.folders.push_back(folder);
    dependencyText[folder] = cells[2];
  }
  for (std::size_t i = 0; i < table.folders.size(); ++i) {
    const std::string& folder = table.folders[i];
    const std::string& text = dependencyText[folder];
    auto& deps = table.dependsOn[folder];
    for (std::size_t j = 0; j < table.folders.size(); ++j) {
      // "all of the above": every folder listed before this one.
      if ((text.find("all of the above") != std::string::npos && j < i) ||
          (j != i && namesWord(text, shortName(table.folders[j])))) {
        deps.insert(table.folders[j]);
      }
    }
  }
  return table;
}

std::set<std::string> reachable(const Table& table, const std::string& folder) {
  std::set<std::string> seen{folder};
  std::vector<std::string> todo{folder};
  while (!todo.empty()) {
    std::string next = todo.back();
    todo.pop_back();
    auto deps = table.dependsOn.find(next);
    if (deps == table.dependsOn.end()) continue;
    for (const auto& dep : deps->second) {
      if (seen.insert(dep).second) todo.push_back(dep);
    }
  }
  return seen;
}

// The project headers a file includes ("fakekube/...", "controllers/...", "fixtures/...").
std::vector<std::string> projectIncludes(const fs::path& file) {
  std::vector<std::string> includes;
  std::istringstream text(readFile(file));
  std::string line;
  while (std::getline(text, line)) {
    if (line.rfind("#include \"", 0) != 0) continue;
    auto end = line.find('"', 10);
    if (end == std::string::npos) continue;
    std::string path = line.substr(10, end - 10);
    for (const char* top : {"fakekube/", "controllers/", "fixtures/"}) {
      if (path.rfind(top, 0) == 0) includes.push_back(path);
    }
  }
  return includes;
}

// The table's folder a project path lies in: the longest folder that prefixes it.
std::string folderOf(const Table& table, const std::string& path) {
  std::string best;
  for (const auto& folder : table.folders) {
    if (path.rfind(folder, 0) == 0 && folder.size() > best.size()) best = folder;
  }
  return best;
}

bool isSource(const fs::path& path) {
  auto ext = path.extension().string();
  return ext == ".h" || ext == ".cpp";
}

int checkIncludes(const fs::path& root, const Table& table) {
  int violations = 0;
  for (const auto& folder : table.folders) {
    if (!fs::is_directory(root / folder)) continue;
    if (folder == "tools/" || folder == "examples/") continue;  // programs, not layers
    const auto allowed = reachable(table, folder);
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      if (!entry.is_regular_file() || !isSource(entry.path())) continue;
      std::string file = fs::relative(entry.path(), root).generic_string();
      if (folderOf(table, file) != folder) continue;  // a subfolder with a row of its own
      for (const auto& include : projectIncludes(entry.path())) {
        std::string target = folderOf(table, include);
        if (target.empty() || allowed.count(target) != 0) continue;
        std::cout << file << ": includes " << include << ", but " << folder
                  << " does not depend on " << target << " (docs/architecture.md)\n";
        ++violations;
      }
    }
  }
  for (const auto& entry : fs::directory_iterator(root / "fakekube")) {
    if (!entry.is_directory()) continue;
    std::string folder = "fakekube/" + entry.path().filename().string() + "/";
    if (std::find(table.folders.begin(), table.folders.end(), folder) == table.folders.end()) {
      std::cout << folder << " has no row in docs/architecture.md's table of folders\n";
      ++violations;
    }
  }
  return violations;
}

std::set<std::string> publicHeaders(const fs::path& root) {
  std::set<std::string> headers;
  std::istringstream text(readFile(root / "cmake/PublicHeaders.cmake"));
  std::string line;
  while (std::getline(text, line)) {
    auto first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    std::string word = line.substr(first);
    if (word.size() > 2 && word.compare(word.size() - 2, 2, ".h") == 0 &&
        word.find(' ') == std::string::npos) {
      headers.insert(word);
    }
  }
  return headers;
}

int checkPublicHeaders(const fs::path& root) {
  int violations = 0;
  const auto headers = publicHeaders(root);
  for (const auto& header : headers) {
    for (const auto& include : projectIncludes(root / header)) {
      if (headers.count(include) != 0) continue;
      std::cout << header << ": a public header includes " << include
                << ", which cmake/PublicHeaders.cmake does not list\n";
      ++violations;
    }
  }
  return violations;
}

// Every header of the library's folders is listed as public exactly when it is not under an
// `internal/` folder.
int checkInternalFolders(const fs::path& root) {
  int violations = 0;
  const auto headers = publicHeaders(root);
  for (const char* top : {"fakekube", "controllers", "fixtures"}) {
    if (!fs::is_directory(root / top)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".h") continue;
      std::string header = fs::relative(entry.path(), root).generic_string();
      bool internal = header.find("/internal/") != std::string::npos;
      bool listed = headers.count(header) != 0;
      if (internal && listed) {
        std::cout << header << ": cmake/PublicHeaders.cmake lists a header under internal/\n";
        ++violations;
      } else if (!internal && !listed) {
        std::cout << header << ": an implementation header outside internal/ (list it in "
                  << "cmake/PublicHeaders.cmake or move it under its folder's internal/)\n";
        ++violations;
      }
    }
  }
  return violations;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: layering_check <source root>\n";
    return 2;
  }
  const fs::path root = argv[1];
  const Table table = readTable(root);
  if (table.folders.empty()) {
    std::cout << "docs/architecture.md: no table of folders under \"## The folders\"\n";
    return 1;
  }
  int violations =
      checkIncludes(root, table) + checkPublicHeaders(root) + checkInternalFolders(root);
  if (violations != 0) {
    std::cout << violations << " layering violation(s)\n";
    return 1;
  }
  return 0;
}
