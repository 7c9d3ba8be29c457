// Debug information for -g: a compile unit, subprograms and line locations.
#include "backend/DebugInfo.h"

#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace spmdc::emitter {

DebugInfoEmitter::DebugInfoEmitter(llvm::Module &M, const DebugInfoOptions &Opts, bool GPU,
                                   const std::string &MainFile)
    : DIB(M) {
  auto Kind = GPU ? llvm::DICompileUnit::DebugDirectivesOnly : llvm::DICompileUnit::LineTablesOnly;
  CU = DIB.createCompileUnit(llvm::DISourceLanguageName(llvm::dwarf::DW_LANG_C99), file(MainFile),
                             "spmdc", /*isOptimized=*/true, "", 0, "", Kind);
  M.addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
  if (!GPU)
    M.addModuleFlag(llvm::Module::Max, "Dwarf Version", Opts.DwarfVersion);
}

llvm::DIFile *DebugInfoEmitter::file(const std::string &Path) {
  auto It = Files.find(Path);
  if (It != Files.end())
    return It->second;
  // Absolute, so that a debugger finds the source from any directory.
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return Files[Path] = DIB.createFile(llvm::sys::path::filename(Absolute),
                                      llvm::sys::path::parent_path(Absolute));
}

llvm::DISubprogram *DebugInfoEmitter::describeFunction(llvm::Function &F, const std::string &Name,
                                                      SourceLoc Loc) {
  llvm::DIFile *File = Loc.isValid() ? file(*Loc.File) : CU->getFile();
  // Line tables need no parameter types: an empty subroutine type will do.
  llvm::DISubroutineType *Ty = DIB.createSubroutineType(DIB.getOrCreateTypeArray({}));
  auto Flags = llvm::DISubprogram::SPFlagDefinition | llvm::DISubprogram::SPFlagOptimized;
  if (F.hasLocalLinkage())
    Flags |= llvm::DISubprogram::SPFlagLocalToUnit;
  llvm::DISubprogram *SP =
      DIB.createFunction(File, Name, /*LinkageName=*/"", File, Loc.Line, Ty, Loc.Line,
                         llvm::DINode::FlagPrototyped, Flags);
  F.setSubprogram(SP);
  return SP;
}

llvm::DILocation *DebugInfoEmitter::location(llvm::DISubprogram *SP, SourceLoc Loc) {
  // An op from another file (an #include) keeps its line in that file, scoped
  // by a lexical block file so the line table names the right file.
  llvm::DIScope *Scope = SP;
  if (!Loc.isValid())
    return llvm::DILocation::get(SP->getContext(), SP->getLine(), 0, SP);
  if (file(*Loc.File) != SP->getFile())
    Scope = DIB.createLexicalBlockFile(SP, file(*Loc.File));
  return llvm::DILocation::get(SP->getContext(), Loc.Line, Loc.Col, Scope);
}

} // namespace spmdc::emitter
