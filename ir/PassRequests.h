// Requests of the fusion and coarsening passes: `#pragma NAME(...)` and the command line's.
#pragma once

#include "frontend/Diagnostics.h"
#include "ir/IR.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace spmdc::ir {

/// The column where a pragma's text (after `#pragma `) starts in its source
/// line, so that errors can point into it; 0 when unknown.
uint32_t pragmaTextColumn(const Pragma &P, DiagnosticEngine &Diags);

/// Whether `P` is `#pragma NAME(...)` (or a malformed `#pragma NAME ...`).
bool isPragmaNamed(const Pragma &P, llvm::StringRef Name);

/// The requests to carry out, in order of first appearance: where several ask
/// for the same `Key` (the same kernels), the last one wins (the command
/// line's, which comes after the pragmas').
template <typename Request, typename KeyOf>
std::vector<Request> lastRequestWins(std::vector<Request> All, KeyOf Key) {
  std::vector<Request> Chosen;
  std::map<decltype(Key(All.front())), size_t> Index;
  for (Request &R : All) {
    auto [It, New] = Index.try_emplace(Key(R), Chosen.size());
    if (New)
      Chosen.push_back(std::move(R));
    else
      Chosen[It->second] = std::move(R);
  }
  return Chosen;
}

/// Reads `#pragma NAME(TEXT)`: TEXT goes to `Parse(TEXT, Error, ErrorAt)`, the
/// command line's grammar, whose errors are reported at their column in the
/// source line. The request gets `FromPragma` and `Loc`; `TextCol` is the
/// column where TEXT starts (0 when unknown), to turn the parser's offsets
/// into columns.
template <typename Request, typename ParseFn>
std::optional<Request> readPragmaRequest(const Pragma &P, llvm::StringRef Name,
                                         DiagnosticEngine &Diags, ParseFn Parse,
                                         uint32_t &TextCol) {
  uint32_t BaseCol = pragmaTextColumn(P, Diags);
  auto Fail = [&](size_t Offset, const std::string &Message) {
    SourceLoc L = P.Loc;
    if (BaseCol)
      L.Col = BaseCol + static_cast<uint32_t>(Offset);
    Diags.error(L, Message);
    return std::nullopt;
  };
  std::string Where = " in '#pragma " + Name.str() + "'";
  llvm::StringRef T(P.Text);
  size_t Open = T.find('('), Close = T.rfind(')');
  if (Open == llvm::StringRef::npos)
    return Fail(Name.size(), "expected '('" + Where);
  if (Close == llvm::StringRef::npos || Close < Open)
    return Fail(T.size(), "expected ')'" + Where);
  llvm::StringRef After = T.substr(Close + 1);
  if (!After.trim().empty())
    return Fail(T.size() - After.ltrim().size(),
                "unexpected text after '#pragma " + Name.str() + "(...)'");
  std::string Error;
  size_t ErrorAt = 0;
  std::optional<Request> R = Parse(T.substr(Open + 1, Close - Open - 1).str(), Error, ErrorAt);
  if (!R)
    return Fail(Open + 1 + ErrorAt, Error + Where);
  R->FromPragma = true;
  R->Loc = P.Loc;
  TextCol = BaseCol ? BaseCol + static_cast<uint32_t>(Open + 1) : 0;
  return R;
}

/// The module's `#pragma NAME(...)` requests (read by `ReadPragma`, which
/// reports its errors and returns nothing for a bad one) followed by the
/// command line's `Requested`, the last one per `Key` winning.
template <typename Request, typename ReadFn, typename KeyOf>
std::vector<Request> gatherRequests(const Module &M, llvm::StringRef Name,
                                    const std::vector<Request> &Requested, ReadFn ReadPragma,
                                    KeyOf Key) {
  std::vector<Request> All;
  for (const Pragma &P : M.Pragmas)
    if (isPragmaNamed(P, Name))
      if (std::optional<Request> R = ReadPragma(P))
        All.push_back(std::move(*R));
  All.insert(All.end(), Requested.begin(), Requested.end());
  return lastRequestWins(std::move(All), Key);
}

} // namespace spmdc::ir
