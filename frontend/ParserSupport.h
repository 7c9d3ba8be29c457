// Shared state and helper types of the Flex lexer and the Bison parser.
//
// The lexer and the parser both see one ParserState: the source text, where
// in the original file the lexer is (after line markers), the AST context
// that nodes and types are created in, and the flags that stop parsing
// (nesting too deep, error limit reached).
#pragma once

#include "frontend/AST.h"
#include "frontend/SourceLocation.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace spmdc {

class DiagnosticEngine;

/// Bison's location type: the first and last character of a construct, plus
/// byte offsets into the parsed text so that `assert` can quote its condition.
struct SrcSpan {
  SourceLoc Begin, End;
  uint32_t BeginOff = 0, EndOff = 0;
};

/// One step of a declarator, applied to the type built so far (base first).
struct DeclChunk {
  enum ChunkKind { Pointer, Reference, Array, Function } Kind = Pointer;
  SourceLoc Loc;
  Variability Var = Variability::Unbound; ///< the pointer's own variability
  bool Const = false;                     ///< the pointer's own constness
  Expr *Size = nullptr;                   ///< array size, null for `[]`
  SourceLoc SizeLoc;                      ///< where the size expression starts
  /// Function parameters (IsParam VarDecls; an unnamed one has an empty name).
  std::vector<VarDecl *> Params;
};

/// What precedes the declarators: qualifiers, storage and the base type.
struct DeclSpec {
  SourceLoc Loc; ///< first specifier
  Variability Var = Variability::Unbound;
  bool Const = false;
  StorageClass Storage = StorageClass::None;
  bool ExternC = false, Export = false, Task = false, Inline = false, NoInline = false;
  bool Unmasked = false, Shared = false, Typedef = false;
  bool Signed = false, Unsigned = false;
  uint64_t SoaWidth = 0; ///< `soa<N>`: N (0: none)
  SourceLoc SoaLoc;
  /// The written base type: an atomic keyword's type, a typedef's type, a
  /// struct or enum. Null when only `signed`/`unsigned` (or nothing) was given.
  const Type *Base = nullptr;
  std::string BaseSpelling;      ///< for messages: "int", "float", the type name...
  bool BaseIsIntKeyword = false; ///< `int`: combines with signed/unsigned to a 32-bit integer
  /// `float<3>`: the short vector length written after the base (0: none).
  uint64_t VectorLength = 0;
  SourceLoc VectorLoc;
  bool Invalid = false;          ///< an error was reported; do not report more
};

/// A declarator: the declared name and the chunks to apply to the base type.
struct Declarator {
  SourceLoc Loc; ///< the name, or where the name would be
  std::string Name;
  std::vector<DeclChunk> Chunks; ///< base first, the name's own level last
  /// `goo<int, float>(...)` in `template <> ...`: the specialization's arguments.
  bool HasTemplateArgs = false;
  std::vector<TemplateArg> TemplateArgs;
  /// True when the declarator is `name(params)` with nothing but pointers
  /// before it: the name declares a function.
  bool isFunction() const { return !Chunks.empty() && Chunks.back().Kind == DeclChunk::Function; }
};

/// One word of a declaration's specifiers, merged into a DeclSpec by the parser.
struct SpecItem {
  enum ItemKind {
    Uniform,
    Varying,
    Const,
    Static,
    Extern,
    ExternC,
    Export,
    Task,
    Inline,
    NoInline,
    Unmasked,
    Shared,
    Typedef,
    Signed,
    Unsigned,
    Soa,
    Base
  } Kind = Base;
  SpecItem() = default;
  SpecItem(ItemKind Kind, SourceLoc Loc, const Type *T = nullptr, std::string Spelling = {},
           bool IsIntKeyword = false)
      : Kind(Kind), Loc(Loc), T(T), Spelling(std::move(Spelling)), IsIntKeyword(IsIntKeyword) {}
  SourceLoc Loc;
  const Type *T = nullptr;   ///< Base: the type
  std::string Spelling;      ///< Base: the keyword or name, for messages
  bool IsIntKeyword = false; ///< Base: `int`
  uint64_t SoaWidth = 0;     ///< Soa: N of `soa<N>`
};

struct InitDeclarator {
  Declarator D;
  Expr *Init = nullptr;
};

/// Everything the lexer and the parser share while one buffer is parsed.
class ParserState {
public:
  ParserState(std::string_view Text, const std::string &BufferName, ASTContext &Ctx,
              DiagnosticEngine &Diags, bool IsStdlib, bool DoubleLiterals);

  std::string_view Text;
  ASTContext &Ctx;
  DiagnosticEngine &Diags;
  bool IsStdlib;
  /// An unsuffixed floating literal is a `double` (C's rule) instead of ISPC's
  /// `float`: `--double-literals`, and the stdlib prelude, written that way.
  bool DoubleLiterals;

  // Lexer position: the original file and line (after line markers).
  const std::string *File;
  uint32_t Line = 1, Col = 1;
  uint32_t Offset = 0;       ///< byte offset of the next character
  int BracketDepth = 0;      ///< open ( [ { not yet closed
  std::string LastTokenText; ///< the text of the most recent token
  SrcSpan Tok;               ///< where the text just matched lies
  int PrevTokenKind = 0;     ///< the Bison symbol kind of the previous token
  /// The previous tokens end a complete base type (`int`, `struct S`, a type
  /// name, then possibly `*`, `&`, qualifiers): a declarator name may follow.
  bool AfterBaseType = false;
  SourceLoc CommentStart; ///< the `/*` of the comment being skipped
  SourceLoc AttributeStart;  ///< the `__attribute__` being read
  std::string AttributeText; ///< its parenthesized list so far, blanks dropped
  int AttributeDepth = 0;    ///< its open parentheses

  /// Moves the position over matched text and sets Tok to its extent.
  void advance(const char *Text, size_t Len);
  /// An empty span at the current position (end of file).
  SrcSpan here() const;
  /// Decodes C escapes of a string or character literal body; reports bad
  /// escapes at `Loc`.
  std::string decodeEscapes(std::string_view Body, SourceLoc Loc);

  /// Set when parsing of this buffer was abandoned after an error that makes
  /// the rest meaningless (nesting too deep); later syntax errors are not shown.
  bool Aborted = false;
  int64_t NextEnumValue = 0; ///< value of the next enumerator without `= value`

  /// The non-type template parameters in scope (`template <int N>`): a use
  /// of N in an expression is its value, a literal of the parameter's type.
  std::unordered_map<std::string, std::pair<int64_t, const Type *>> TemplateValues;
  /// Inside `template <...> declaration`: the function declared becomes a
  /// template name at once, so that its own body (and code after a
  /// prototype) may write `name<args>`.
  bool DeclaringTemplate = false;
  /// After a template declaration (or an error inside one).
  void endTemplateDeclaration();
  /// Binds a function template's parameters for the declaration that
  /// follows (in a new scope): each type parameter to `Args[i].Ty` (a
  /// placeholder while the template itself is parsed), each non-type one to
  /// `Args[i].Value`.
  void bindTemplateParams(const std::vector<TemplateParam> &Params,
                          const std::vector<TemplateArg> &Args);

  /// Struct and enum declarations created while parsing the current
  /// declaration; the declaration emits them before its own declarators.
  std::vector<Decl *> PendingTags;

  /// Reports an error unless the parse was abandoned or the limit reached.
  void error(SourceLoc Loc, const std::string &Msg);
  /// Reports that nesting exceeded ASTContext::MaxNestingDepth, once, and
  /// abandons the buffer; the caller then stops (YYABORT or end of file).
  bool nestingTooDeep(SourceLoc Loc, const char *What);

  // The lexer hack: scoped names of types, persisting in the ASTContext.
  void pushScope();
  size_t scopeDepth() const { return Ctx.ParserScopes.size(); }
  void popScopesTo(size_t Depth);
  const Type *lookupTypeName(const std::string &Name) const;
  /// The type named in the innermost scope only.
  const Type *lookupTypeNameInCurrentScope(const std::string &Name) const;
  void declareTypeName(const std::string &Name, const Type *T);
  /// Integer constants (enumerators, `const` integers) usable as array sizes;
  /// a variable of the same name hides an outer constant.
  void declareConstant(const std::string &Name, std::optional<int64_t> Value);
  std::optional<int64_t> lookupConstant(const std::string &Name) const;

  /// Folds an integer constant expression made of literals, known constants
  /// and operators; nullopt when it is not one.
  std::optional<int64_t> foldConstant(const Expr *E) const;
};

} // namespace spmdc
