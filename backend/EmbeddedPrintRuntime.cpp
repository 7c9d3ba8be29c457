// EmbeddedPrintRuntime.cpp - runtime/Print.cpp's bitcode linked into the modules that print.

#include "backend/EmbeddedPrintRuntime.h"

#include "frontend/Diagnostics.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <set>
#include <string>

namespace spmdc {
namespace {

// Built from runtime/Print.cpp by clang at build time (backend/CMakeLists.txt).
const unsigned char PrintRuntimeBitcode[] = {
#include "PrintRuntimeBitcode.inc"
};

constexpr const char *RuntimeEntryPoints[] = {"spmdc_print", "spmdc_assert_fail"};

bool callsRuntime(const llvm::Module &M) {
  for (const char *Name : RuntimeEntryPoints)
    if (const llvm::Function *F = M.getFunction(Name); F && F->isDeclaration())
      return true;
  return false;
}

} // namespace

bool linkEmbeddedPrintRuntime(llvm::Module &M, DiagnosticEngine &Diags) {
  if (!callsRuntime(M))
    return true;
  llvm::StringRef Bytes(reinterpret_cast<const char *>(PrintRuntimeBitcode),
                        sizeof(PrintRuntimeBitcode));
  llvm::Expected<std::unique_ptr<llvm::Module>> Runtime =
      llvm::parseBitcodeFile(llvm::MemoryBufferRef(Bytes, "spmdc-print-runtime"), M.getContext());
  if (!Runtime) {
    Diags.errorNoLoc("internal error: the embedded print runtime cannot be read: " +
                     llvm::toString(Runtime.takeError()));
    return false;
  }
  // The runtime is plain scalar C: it takes the module's target, and its module flags
  // (wchar size, PIC level, ...) from the module it joins, not from clang's defaults.
  (*Runtime)->setTargetTriple(M.getTargetTriple());
  (*Runtime)->setDataLayout(M.getDataLayout());
  if (llvm::NamedMDNode *Flags = (*Runtime)->getModuleFlagsMetadata())
    (*Runtime)->eraseNamedMetadata(Flags);
  if (llvm::NamedMDNode *Ident = (*Runtime)->getNamedMetadata("llvm.ident"))
    (*Runtime)->eraseNamedMetadata(Ident);

  std::set<std::string> Defined;
  for (const llvm::Function &F : **Runtime)
    if (!F.isDeclaration() && !F.hasLocalLinkage())
      Defined.insert(F.getName().str());
  if (llvm::Linker::linkModules(M, std::move(*Runtime), llvm::Linker::Flags::LinkOnlyNeeded)) {
    Diags.errorNoLoc("internal error: the embedded print runtime cannot be linked");
    return false;
  }
  for (const std::string &Name : Defined)
    if (llvm::Function *F = M.getFunction(Name); F && !F->isDeclaration()) {
      F->setLinkage(llvm::GlobalValue::LinkOnceODRLinkage);
      F->setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
  return true;
}

} // namespace spmdc
