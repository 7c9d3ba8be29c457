// Owns source text and file names, and answers "what does line N of file F say".
#include "frontend/SourceManager.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace spmdc {

const std::string *SourceManager::internFileName(std::string_view Name) {
  auto It = Names.find(Name);
  if (It == Names.end())
    It = Names.emplace(Name).first;
  return &*It;
}

void SourceManager::addBuffer(std::string_view Name, std::string Text) {
  auto F = std::make_unique<FileText>();
  F->Text = std::move(Text);
  Files[std::string(Name)] = std::move(F);
}

SourceManager::FileText *SourceManager::lookup(const std::string &File) {
  auto It = Files.find(File);
  if (It != Files.end())
    return It->second.get();
  // Not registered: read it from disk once. A missing file is remembered as
  // null. Only regular files of a sane size: a line marker may name anything
  // (`# 1 "/dev/zero"`), and showing a caret line must never hang or exhaust memory.
  std::unique_ptr<FileText> F;
  std::error_code EC;
  auto Status = std::filesystem::status(File, EC);
  if (!EC && std::filesystem::is_regular_file(Status) &&
      std::filesystem::file_size(File, EC) <= MaxFileBytes && !EC) {
    std::ifstream In(File, std::ios::binary);
    if (In) {
      std::ostringstream SS;
      SS << In.rdbuf();
      F = std::make_unique<FileText>();
      F->Text = SS.str();
    }
  }
  FileText *Result = F.get();
  Files[File] = std::move(F);
  return Result;
}

std::optional<std::string_view> SourceManager::getLine(const std::string &File, uint32_t Line) {
  FileText *F = lookup(File);
  if (!F || Line == 0)
    return std::nullopt;
  if (F->LineStarts.empty()) {
    F->LineStarts.push_back(0);
    for (size_t I = 0; I < F->Text.size(); ++I)
      if (F->Text[I] == '\n')
        F->LineStarts.push_back(I + 1);
  }
  if (Line > F->LineStarts.size())
    return std::nullopt;
  size_t Begin = F->LineStarts[Line - 1];
  size_t End = F->Text.find('\n', Begin);
  if (End == std::string::npos)
    End = F->Text.size();
  if (Begin > F->Text.size())
    return std::nullopt;
  std::string_view L(F->Text.data() + Begin, End - Begin);
  if (!L.empty() && L.back() == '\r')
    L.remove_suffix(1);
  return L;
}

} // namespace spmdc
