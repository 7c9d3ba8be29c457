// Lowers the checked AST to the SPMD IR, one function per statement and expression kind.
#pragma once

#include <memory>

namespace spmdc {
class ASTContext;
class DiagnosticEngine;
struct TargetInfo;
} // namespace spmdc

namespace spmdc::ir {

class Module;

/// Builds the IR module of Ctx.TU (which sema has checked without errors).
/// Constructs the code generator does not handle yet are reported as errors
/// at their location; the result is then null.
std::unique_ptr<Module> lowerToIR(ASTContext &Ctx, const TargetInfo &Target,
                                  DiagnosticEngine &Diags);

} // namespace spmdc::ir
