// Entry point of the Flex lexer + Bison parser: preprocessed text -> AST.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace spmdc {

class ASTContext;
class DiagnosticEngine;
class FunctionDecl;
struct FunctionTemplate;
struct TemplateArg;

/// Parses `Text` (preprocessor output with GNU line markers `# 12 "file"`) and
/// appends its declarations to Ctx.TU; `#pragma` lines go to Ctx.TU.Pragmas.
/// Locations follow the line markers; before the first one they are in
/// `BufferName`. Syntax errors are reported to `Diags` with recovery at `;` and
/// `}`, so independent errors are all reported. When `IsStdlib` is set, the
/// functions declared are marked FunctionDecl::IsStdlib. `DoubleLiterals`
/// makes unsuffixed floating literals `double` (the stdlib prelude always is).
void parseSource(std::string_view Text, const std::string &BufferName, ASTContext &Ctx,
                 DiagnosticEngine &Diags, bool IsStdlib = false, bool DoubleLiterals = false);

/// Parses the function template `T` again with its parameters bound to
/// `Args` (types for `typename` parameters, values for the others) and appends
/// the resulting function to Ctx.TU; returns it, or null after a syntax error.
FunctionDecl *parseTemplateInstance(const FunctionTemplate &T, const std::vector<TemplateArg> &Args,
                                    ASTContext &Ctx, DiagnosticEngine &Diags);

} // namespace spmdc
