// The C preprocessor, from clang's Lex library: source text -> text with line markers.
//
// The setup is done by hand (no CompilerInstance) so that preprocessing, which runs
// twice per compilation (stdlib prelude and user file), stays cheap: a file
// manager on the real file system, a clang SourceManager holding the main text
// from memory, a HeaderSearch with only the -I directories, and a Preprocessor
// whose predefines buffer holds our macros and then the -D/-U options. A small
// printer (like clang -E, but keeping every file token's line and column) writes
// the result with GNU line markers and passes unknown #pragma lines through;
// clang's diagnostics are forwarded to our DiagnosticEngine so they look like
// all other errors.
#include "frontend/Preprocessor.h"

#include "frontend/Diagnostics.h"
#include "frontend/SourceManager.h"
#include "target/TargetInfo.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticIDs.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Basic/TargetOptions.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/HeaderSearchOptions.h"
#include "clang/Lex/ModuleLoader.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Pragma.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Lex/TokenConcatenation.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <memory>

namespace spmdc {

namespace {

/// The name clang gives the -D/-U part of the predefines buffer; diagnostics
/// about a bad -D point into it, so our SourceManager gets its text.
constexpr const char *CommandLineBufferName = "<command line>";

/// Forwards clang's diagnostics to our DiagnosticEngine, in our format.
class ForwardingDiagConsumer : public clang::DiagnosticConsumer {
public:
  explicit ForwardingDiagConsumer(DiagnosticEngine &Diags) : Diags(Diags) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override {
    // Keeps clang's own counters (getNumErrors) right.
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (Level == clang::DiagnosticsEngine::Ignored || Level == clang::DiagnosticsEngine::Remark)
      return;

    llvm::SmallString<128> Message;
    Info.FormatDiagnostic(Message);
    SourceLoc Loc;
    clang::SourceLocation IncludedFrom;
    if (Info.getLocation().isValid() && Info.hasSourceManager()) {
      clang::SourceManager &SM = Info.getSourceManager();
      // A problem inside a macro expansion is reported where the macro was used.
      clang::PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Info.getLocation()));
      if (P.isValid()) {
        Loc.File = Diags.getSourceManager().internFileName(P.getFilename());
        Loc.Line = P.getLine();
        Loc.Col = P.getColumn();
        IncludedFrom = P.getIncludeLoc();
      }
    }

    switch (Level) {
    case clang::DiagnosticsEngine::Error:
    case clang::DiagnosticsEngine::Fatal:
      ++Errors;
      report(Loc, std::string(Message));
      break;
    case clang::DiagnosticsEngine::Warning:
      Diags.warning(Loc, std::string(Message));
      break;
    default:
      Diags.note(Loc, std::string(Message));
      return; // notes get no include stack of their own
    }
    // Only errors say how their file was reached: a warning may have been
    // silenced (-w), and a lone note would then make no sense.
    if (Level != clang::DiagnosticsEngine::Warning)
      noteIncludeStack(Info, IncludedFrom);
  }

  unsigned errorCount() const { return Errors; }

private:
  void report(SourceLoc Loc, const std::string &Message) {
    if (Loc.isValid())
      Diags.error(Loc, Message);
    else
      Diags.errorNoLoc(Message);
  }

  /// Says, for a problem in an included file, which #include lines led there.
  void noteIncludeStack(const clang::Diagnostic &Info, clang::SourceLocation IncludeLoc) {
    if (!Info.hasSourceManager())
      return;
    clang::SourceManager &SM = Info.getSourceManager();
    // A runaway recursive #include is 200 levels deep: show the innermost few.
    constexpr unsigned MaxShown = 8;
    unsigned Shown = 0, Hidden = 0;
    for (; IncludeLoc.isValid(); IncludeLoc = SM.getPresumedLoc(IncludeLoc).getIncludeLoc()) {
      clang::PresumedLoc P = SM.getPresumedLoc(IncludeLoc);
      if (P.isInvalid())
        break;
      llvm::StringRef File = P.getFilename();
      // The predefines buffer "includes" the main file; that is no news.
      if (File == "<built-in>" || File == CommandLineBufferName)
        break;
      if (Shown == MaxShown) {
        ++Hidden;
        continue;
      }
      ++Shown;
      SourceLoc Loc{Diags.getSourceManager().internFileName(File), P.getLine(), P.getColumn()};
      Diags.note(Loc, "in file included from here");
    }
    if (Hidden)
      Diags.note(SourceLoc(), std::to_string(Hidden) + " more levels of #include not shown");
  }

  DiagnosticEngine &Diags;
  unsigned Errors = 0;
};

/// One `#define NAME VALUE` or `#undef NAME` line for a -D/-U option, as clang's
/// driver writes them: "-DX" defines X as 1, "-DX=" as empty, and a value ends
/// at its first newline.
std::string macroLine(const MacroOption &M) {
  if (M.Undefine)
    return "#undef " + M.Text + "\n";
  size_t Eq = M.Text.find('=');
  if (Eq == std::string::npos)
    return "#define " + M.Text + " 1\n";
  std::string Body = M.Text.substr(Eq + 1);
  Body = Body.substr(0, Body.find_first_of("\r\n"));
  // A trailing backslash would splice the next line into the macro.
  if (!Body.empty() && Body.back() == '\\')
    Body += "\\\n";
  return "#define " + M.Text.substr(0, Eq) + " " + Body + "\n";
}

/// Our predefined macros (docs/language.md), then the -D/-U options in their
/// command-line order. `BuiltinText` receives our macro lines and `CommandLineText`
/// the -D/-U part, each numbered as clang numbers its "<built-in>" and
/// "<command line>" pseudo files (so a note about either can show the line).
std::string buildPredefines(const TargetInfo &Target, const PreprocessorOptions &Opts,
                            std::string &BuiltinText, std::string &CommandLineText) {
  llvm::raw_string_ostream OS(BuiltinText);
  auto Define = [&](llvm::StringRef Name, const llvm::Twine &Value) {
    OS << "#define " << Name << ' ' << Value << '\n';
  };
  Define("SPMDC", "1");
  Define("SPMDC_MAJOR", "0");
  Define("SPMDC_MINOR", "1");
  Define("__SPMDC__", "1");
  // ISPC's names, so that ISPC sources that test them compile unchanged.
  Define("ISPC", "1");
  Define("ISPC_MAJOR_VERSION", "1");
  Define("ISPC_MINOR_VERSION", "24");
  Define("ISPC_POINTER_SIZE", "64");
  Define("ISPC_UINT_IS_DEFINED", "1");
  Define("PI", "3.1415926535897932384626433832795");
  Define("TARGET_WIDTH", llvm::Twine(Target.GangWidth));
  std::string Macro = Target.macroName();
  Define("SPMDC_TARGET_" + Macro, "1");
  Define("ISPC_TARGET_" + Macro, "1");
  if (Target.isGPU())
    Define("SPMDC_GPU", "1");

  OS.flush();

  for (const MacroOption &M : Opts.Macros)
    CommandLineText += macroLine(M);
  // Flag 3 marks <built-in> as a system file: no warnings about our own macros.
  return "# 1 \"<built-in>\" 3\n" + BuiltinText + "# 1 \"" + CommandLineBufferName + "\" 1\n" +
         CommandLineText + "# 1 \"<built-in>\" 2\n";
}

/// Writes the preprocessed tokens as text with GNU line markers, like clang -E
/// but keeping the source column of every token that comes straight from the
/// file (clang -E keeps it only for the first token of a line), so that the
/// parser's carets point where the user's text has them. Macro expansions
/// stay on the line of their use. The predefines buffer writes nothing.
class OutputPrinter {
public:
  OutputPrinter(clang::Preprocessor &PP, std::string &Out)
      : PP(PP), SM(PP.getSourceManager()), Concat(PP), Out(Out) {}

  /// A file was entered, left or renamed (#line): a line marker, unless the
  /// change is into or out of the predefines.
  void fileChanged(clang::SourceLocation Loc, clang::PPCallbacks::FileChangeReason Reason,
                   clang::FileID PrevFID) {
    clang::PresumedLoc P = SM.getPresumedLoc(Loc);
    if (P.isInvalid())
      return;
    llvm::StringRef File = P.getFilename();
    InPredefines = File == "<built-in>" || File == CommandLineBufferName;
    if (InPredefines)
      return;
    // Back in the main file from the predefines: the opening marker said it all.
    bool FromPredefines = Reason == clang::PPCallbacks::ExitFile && PrevFID.isValid() &&
                          PrevFID == PP.getPredefinesFileID();
    if (FromPredefines && CurFile == File) {
      CurLine = P.getLine();
      return;
    }
    const char *Flag = "";
    if (MarkerWritten) {
      if (Reason == clang::PPCallbacks::EnterFile)
        Flag = " 1";
      else if (Reason == clang::PPCallbacks::ExitFile)
        Flag = " 2";
    }
    writeMarker(P.getLine(), File, Flag);
  }

  /// `#pragma` lines the preprocessor does not act on go to the parser as
  /// they are; `_Pragma("...")` becomes such a line too.
  void pragma(clang::SourceLocation IntroducerLoc, llvm::StringRef Prefix,
              clang::Token &PragmaTok) {
    clang::PresumedLoc P = SM.getPresumedLoc(IntroducerLoc);
    if (Col != 0)
      newline();
    if (P.isValid())
      moveToLine(P.getLine(), P.getFilename());
    Out += Prefix;
    llvm::SmallString<64> Buffer;
    bool First = true;
    for (; PragmaTok.isNot(clang::tok::eod) && PragmaTok.isNot(clang::tok::eof);
         PP.LexUnexpandedToken(PragmaTok)) {
      if (First || PragmaTok.hasLeadingSpace())
        Out += ' ';
      First = false;
      Out += PP.getSpelling(PragmaTok, Buffer);
    }
    newline();
    HavePrev = false;
  }

  void token(const clang::Token &Tok) {
    clang::SourceLocation Loc = Tok.getLocation();
    clang::PresumedLoc P = SM.getPresumedLoc(Loc); // where a macro was used
    if (P.isValid() && (P.getLine() != CurLine || P.getFilename() != CurFile))
      moveToLine(P.getLine(), P.getFilename());
    unsigned Target = P.isValid() ? P.getColumn() - 1 : 0; // 0-based column
    if (Col == 0) {
      indentTo(Target);
      // A `#` in column 1 would read as a directive.
      if (Col == 0 && Tok.is(clang::tok::hash))
        put(" ");
    } else {
      unsigned Before = Col;
      if (Loc.isFileID() && Col < Target)
        indentTo(Target);
      if (Col == Before &&
          (Tok.hasLeadingSpace() || (HavePrev && Concat.AvoidConcat(PrevPrevTok, PrevTok, Tok))))
        put(" ");
    }
    llvm::SmallString<128> Buffer;
    put(PP.getSpelling(Tok, Buffer));
    PrevPrevTok = PrevTok;
    PrevTok = Tok;
    HavePrev = true;
  }

  void finish() {
    if (Col != 0)
      newline();
  }

private:
  void put(llvm::StringRef Text) {
    Out += Text;
    Col += Text.size();
  }
  void newline() {
    Out += '\n';
    Col = 0;
    ++CurLine;
  }
  void indentTo(unsigned Target) {
    if (Col < Target) {
      Out.append(Target - Col, ' ');
      Col = Target;
    }
  }
  /// Goes to `Line` of `File` with blank lines when that is a short step
  /// forward, and with a line marker otherwise.
  void moveToLine(unsigned Line, llvm::StringRef File) {
    if (InPredefines)
      return;
    if (File == CurFile && Line >= CurLine && Line - CurLine <= 8) {
      while (CurLine < Line)
        newline();
      HavePrev = false;
      return;
    }
    writeMarker(Line, File, "");
  }
  void writeMarker(unsigned Line, llvm::StringRef File, const char *Flag) {
    if (Col != 0)
      newline();
    Out += "# " + std::to_string(Line) + " \"";
    for (char C : File) {
      if (C == '"' || C == '\\')
        Out += '\\';
      Out += C;
    }
    Out += '"';
    Out += Flag;
    Out += '\n';
    CurFile = File.str();
    CurLine = Line;
    Col = 0;
    MarkerWritten = true;
    HavePrev = false;
  }

  clang::Preprocessor &PP;
  clang::SourceManager &SM;
  clang::TokenConcatenation Concat;
  std::string &Out;
  std::string CurFile;
  unsigned CurLine = 1; ///< the source line the output's current line shows
  unsigned Col = 0;     ///< bytes written on the current output line
  bool InPredefines = false;
  bool MarkerWritten = false;
  bool HavePrev = false;
  clang::Token PrevTok, PrevPrevTok;
};

/// Tells the printer about file changes (includes, #line).
class PrinterCallbacks : public clang::PPCallbacks {
public:
  explicit PrinterCallbacks(OutputPrinter &Printer) : Printer(Printer) {}
  void FileChanged(clang::SourceLocation Loc, FileChangeReason Reason,
                   clang::SrcMgr::CharacteristicKind, clang::FileID PrevFID) override {
    Printer.fileChanged(Loc, Reason, PrevFID);
  }

private:
  OutputPrinter &Printer;
};

/// Records the name of every file entered through #include.
class IncludeRecorder : public clang::PPCallbacks {
public:
  IncludeRecorder(clang::SourceManager &SM, std::vector<std::string> &Files)
      : SM(SM), Files(Files) {}
  void FileChanged(clang::SourceLocation Loc, FileChangeReason Reason,
                   clang::SrcMgr::CharacteristicKind, clang::FileID) override {
    if (Reason != EnterFile)
      return;
    clang::FileID Id = SM.getFileID(SM.getExpansionLoc(Loc));
    if (Id == SM.getMainFileID())
      return;
    if (clang::OptionalFileEntryRef File = SM.getFileEntryRefForID(Id)) {
      std::string Name = File->getName().str();
      if (std::find(Files.begin(), Files.end(), Name) == Files.end())
        Files.push_back(std::move(Name));
    }
  }

private:
  clang::SourceManager &SM;
  std::vector<std::string> &Files;
};

/// Catches every pragma the preprocessor itself does not handle.
class PassThroughPragmaHandler : public clang::PragmaHandler {
public:
  PassThroughPragmaHandler(OutputPrinter &Printer, llvm::StringRef Prefix)
      : Printer(Printer), Prefix(Prefix) {}
  void HandlePragma(clang::Preprocessor &, clang::PragmaIntroducer Introducer,
                    clang::Token &PragmaTok) override {
    Printer.pragma(Introducer.Loc, Prefix, PragmaTok);
  }

private:
  OutputPrinter &Printer;
  std::string Prefix;
};

} // namespace

std::optional<std::string> preprocess(const std::string &FileName, std::string_view Text,
                                      const PreprocessorOptions &Opts, const TargetInfo &Target,
                                      DiagnosticEngine &Diags,
                                      std::vector<std::string> *FilesIncluded) {
  ForwardingDiagConsumer Consumer(Diags);
  clang::DiagnosticOptions DiagOpts;
  clang::DiagnosticsEngine ClangDiags(clang::DiagnosticIDs::create(), DiagOpts, &Consumer,
                                      /*ShouldOwnClient=*/false);
  // A missing #include is "fatal" to clang, which would then hide every later
  // problem; we report it as an error and keep going, so one run lists them all.
  ClangDiags.setFatalsAsError(true);
  ClangDiags.setErrorLimit(0); // our DiagnosticEngine applies --error-limit
  // With -w clang must not even produce its warnings: their notes would
  // otherwise come out alone.
  ClangDiags.setIgnoreAllWarnings(!Diags.areWarningsEnabled());

  clang::LangOptions LangOpts;
  LangOpts.C99 = 1;
  LangOpts.C11 = 1;
  LangOpts.LineComment = 1;

  // The preprocessor asks the target only for #if arithmetic widths and
  // __has_* queries: a 64-bit host triple serves every spmdc target.
  auto TargetOpts = std::make_shared<clang::TargetOptions>();
  TargetOpts->Triple = "x86_64-unknown-linux-gnu";
  llvm::IntrusiveRefCntPtr<clang::TargetInfo> ClangTarget(
      clang::TargetInfo::CreateTargetInfo(ClangDiags, *TargetOpts));
  if (!ClangTarget) {
    Diags.errorNoLoc("cannot set up the preprocessor's target");
    return std::nullopt;
  }

  clang::FileSystemOptions FSOpts;
  clang::FileManager Files(FSOpts, llvm::vfs::getRealFileSystem());
  clang::SourceManager Sources(ClangDiags, Files);
  // The main text comes from memory but is registered under its file name, so
  // that `#include "x.h"` searches the file's own directory first, as in C.
  clang::FileEntryRef MainFile = Files.getVirtualFileRef(FileName, Text.size(), 0);
  Sources.overrideFileContents(MainFile, llvm::MemoryBuffer::getMemBufferCopy(
                                             llvm::StringRef(Text.data(), Text.size()), FileName));
  Sources.setMainFileID(
      Sources.createFileID(MainFile, clang::SourceLocation(), clang::SrcMgr::C_User));

  // Only the -I directories: no host system or compiler headers.
  clang::HeaderSearchOptions HSOpts;
  HSOpts.UseBuiltinIncludes = false;
  HSOpts.UseStandardSystemIncludes = false;
  HSOpts.UseStandardCXXIncludes = false;
  for (const std::string &Dir : Opts.IncludeDirs)
    HSOpts.AddPath(Dir, clang::frontend::Angled, /*IsFramework=*/false,
                   /*IgnoreSysRoot=*/true);
  clang::HeaderSearch Headers(HSOpts, Sources, ClangDiags, LangOpts, ClangTarget.get());
  clang::ApplyHeaderSearchOptions(Headers, HSOpts, LangOpts, ClangTarget->getTriple());

  clang::PreprocessorOptions PPOpts;
  PPOpts.UsePredefines = false; // no host macros (__linux__, __x86_64__, ...)
  clang::TrivialModuleLoader Modules;
  clang::Preprocessor PP(PPOpts, ClangDiags, LangOpts, Sources, Headers, Modules);
  PP.Initialize(*ClangTarget);

  std::string BuiltinText, CommandLineText;
  PP.setPredefines(buildPredefines(Target, Opts, BuiltinText, CommandLineText));
  Diags.getSourceManager().addBuffer("<built-in>", std::move(BuiltinText));
  Diags.getSourceManager().addBuffer(CommandLineBufferName, std::move(CommandLineText));

  std::string Output;
  Output.reserve(Text.size() + Text.size() / 4 + 256);
  OutputPrinter Printer(PP, Output);
  PP.addPPCallbacks(std::make_unique<PrinterCallbacks>(Printer));
  if (FilesIncluded)
    PP.addPPCallbacks(std::make_unique<IncludeRecorder>(Sources, *FilesIncluded));
  // The unnamed handler of a namespace receives its unknown pragmas.
  auto RootPragmas = std::make_unique<PassThroughPragmaHandler>(Printer, "#pragma");
  auto GCCPragmas = std::make_unique<PassThroughPragmaHandler>(Printer, "#pragma GCC");
  auto ClangPragmas = std::make_unique<PassThroughPragmaHandler>(Printer, "#pragma clang");
  PP.AddPragmaHandler(RootPragmas.get());
  PP.AddPragmaHandler("GCC", GCCPragmas.get());
  PP.AddPragmaHandler("clang", ClangPragmas.get());

  PP.EnterMainSourceFile();
  clang::Token Tok;
  for (PP.Lex(Tok); Tok.isNot(clang::tok::eof); PP.Lex(Tok))
    if (!Tok.isAnnotation())
      Printer.token(Tok);
  Printer.finish();
  PP.EndSourceFile();
  ClangDiags.getClient()->finish();
  // The preprocessor would delete them; they are ours.
  PP.RemovePragmaHandler(RootPragmas.get());
  PP.RemovePragmaHandler("GCC", GCCPragmas.get());
  PP.RemovePragmaHandler("clang", ClangPragmas.get());

  if (Consumer.errorCount())
    return std::nullopt;
  return Output;
}

} // namespace spmdc
