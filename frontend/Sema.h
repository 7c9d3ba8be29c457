// Semantic analysis: names, types, conversions, overloads and the variability rules.
#pragma once

#include "frontend/LanguageOptions.h"

namespace spmdc {

class ASTContext;
class DiagnosticEngine;
struct TargetInfo;

/// Checks Ctx.TU in place: resolves names and overloads, binds every unbound
/// variability to its ISPC default, sets Expr::Ty / IsLValue, inserts
/// ImplicitCastExpr for conversions, and enforces the rules of
/// docs/language.md (uniform/varying, control flow, everywhere/crev, task/export).
/// Returns false when it reported an error.
bool checkTranslationUnit(ASTContext &Ctx, DiagnosticEngine &Diags, const TargetInfo &Target,
                          const LanguageOptions &Lang = {});

} // namespace spmdc
