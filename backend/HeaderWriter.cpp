// Writes the C/C++ header (`-h`) declaring a module's export functions, in ISPC's layout.
#include "backend/HeaderWriter.h"

#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "ir/IR.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <set>

namespace spmdc {

namespace {

/// ISPC's section rule: a comment line of 75 slashes.
const char *const Rule = "///////////////////////////////////////////////////////////////////////////\n";

/// ISPC's alignment macros: every ISPC header defines them (the struct definitions of
/// ISPC headers with explicit alignment use them).
const char *const AlignmentMacros =
    "/* Portable alignment macro that works across different compilers and standards */\n"
    "#if defined(__cplusplus) && __cplusplus >= 201103L\n"
    "/* C++11 or newer - use alignas keyword */\n"
    "#define __ISPC_ALIGN__(x) alignas(x)\n"
    "#elif defined(__GNUC__) || defined(__clang__)\n"
    "/* GCC or Clang - use __attribute__ */\n"
    "#define __ISPC_ALIGN__(x) __attribute__((aligned(x)))\n"
    "#elif defined(_MSC_VER)\n"
    "/* Microsoft Visual C++ - use __declspec */\n"
    "#define __ISPC_ALIGN__(x) __declspec(align(x))\n"
    "#else\n"
    "/* Unknown compiler/standard - alignment not supported */\n"
    "#define __ISPC_ALIGN__(x)\n"
    "#warning \"Alignment not supported on this compiler\"\n"
    "#endif // defined(__cplusplus) && __cplusplus >= 201103L\n"
    "#ifndef __ISPC_ALIGNED_STRUCT__\n"
    "#if defined(__clang__) || !defined(_MSC_VER) || _MSC_VER > 1943\n"
    "// Clang, GCC, ICC, Visual Studio\n"
    "#define __ISPC_ALIGNED_STRUCT__(s) struct __ISPC_ALIGN__(s)\n"
    "#else\n"
    "// Older Visual Studio\n"
    "#define __ISPC_ALIGNED_STRUCT__(s) __ISPC_ALIGN__(s) struct\n"
    "#endif // defined(__clang__) || !defined(_MSC_VER) || _MSC_VER > 1943\n"
    "#endif // __ISPC_ALIGNED_STRUCT__\n";

const char *const ExternCCondition =
    "#if defined(__cplusplus) && (! defined(__ISPC_NO_EXTERN_C) || !__ISPC_NO_EXTERN_C )\n";

/// Writes the x86 header in ISPC's layout and spellings (ISPC 1.32's -h output): the enums
/// and structs the export functions use, each behind ISPC's __ISPC_ENUM_/__ISPC_STRUCT_
/// guard, then the functions in `extern "C"`, all inside `namespace ispc` for C++.
class HeaderWriter {
public:
  explicit HeaderWriter(DiagnosticEngine &Diags) : Diags(Diags) {}

  /// The C spelling of `T` around `Name` (C declarators put arrays after names), as ISPC
  /// spells it: `float * p`, `struct S s`, `enum E e`, `__fp16 h`.
  std::string cType(const Type *T, const std::string &Name) {
    std::string Const = T->isConst() ? "const " : "";
    switch (T->getKind()) {
    case Type::Void:
      return "void" + sep(Name);
    case Type::Bool:
      return Const + "bool" + sep(Name);
    case Type::Int8:
      return Const + "int8_t" + sep(Name);
    case Type::Int16:
      return Const + "int16_t" + sep(Name);
    case Type::Int32:
      return Const + "int32_t" + sep(Name);
    case Type::Int64:
      return Const + "int64_t" + sep(Name);
    case Type::UInt8:
      return Const + "uint8_t" + sep(Name);
    case Type::UInt16:
      return Const + "uint16_t" + sep(Name);
    case Type::UInt32:
      return Const + "uint32_t" + sep(Name);
    case Type::UInt64:
      return Const + "uint64_t" + sep(Name);
    case Type::Float16:
      return Const + "__fp16" + sep(Name);
    case Type::Float:
      return Const + "float" + sep(Name);
    case Type::Double:
      return Const + "double" + sep(Name);
    case Type::Enum:
      if (EnumDecl *ED = T->getEnumDecl(); ED && !ED->Name.empty()) {
        useEnum(ED);
        return Const + "enum " + ED->Name + sep(Name);
      }
      return Const + "int32_t" + sep(Name);
    case Type::Pointer:
      return cType(T->getPointee(), "*" + std::string(T->isConst() ? " const" : "") + sep(Name));
    case Type::Reference:
      return cType(T->getPointee(), "*" + sep(Name));
    case Type::Array:
      // A parameter array is a pointer in C.
      return cType(T->getElementType(), "*" + sep(Name));
    case Type::Struct:
      if (T->isVarying())
        Ok = false;
      useStruct(T->getStructDecl());
      return Const + "struct " + T->getStructDecl()->Name + sep(Name);
    case Type::Function:
      Ok = false;
      return "void" + sep(Name);
    }
    return "void" + sep(Name);
  }

  static std::string sep(const std::string &Name) { return Name.empty() ? "" : " " + Name; }

  /// The declaration of one export function (ISPC's: references are `&` in C++ and `*` in C).
  std::string functionDecl(ir::Function &F) {
    std::string Params, ParamsC;
    bool HasReference = false;
    // Params[0] is the mask, which the C entry supplies itself. The declared types say which
    // parameters are references (the IR passes them as pointers).
    const std::vector<const Type *> &Declared = F.Ty->getParamTypes();
    size_t First = F.HasMaskParam ? 1 : 0;
    for (size_t I = First; I < F.Params.size(); ++I) {
      const Type *T = F.Params[I]->Ty;
      if (I - First < Declared.size() && Declared[I - First]->isReference())
        T = Declared[I - First];
      const std::string &N = F.Params[I]->NameHint;
      std::string Sep = Params.empty() ? "" : ", ";
      if (T->isReference()) {
        HasReference = true;
        Params += Sep + cType(T->getPointee(), "&" + N);
        ParamsC += Sep + cType(T->getPointee(), "*" + N);
        continue;
      }
      std::string P = cType(T, N);
      Params += Sep + P;
      ParamsC += Sep + P;
    }
    auto Decl = [&](const std::string &List) {
      return "    extern " + cType(F.Ty->getReturnType(), F.Symbol) + "(" + List + ");\n";
    };
    if (!HasReference)
      return Decl(Params);
    return "#if defined(__cplusplus)\n" + Decl(Params) + "#else\n" + Decl(ParamsC) +
           "#endif // " + F.Symbol + " function declaraion\n";
  }

  bool write(ir::Module &M, const std::string &Path, const HeaderOptions &Options) {
    // ISPC declares the functions in the order of their names (export names are unique).
    std::vector<ir::Function *> Exports;
    for (auto &F : M.Functions)
      if (F->flags().Export && F->Body)
        Exports.push_back(F.get());
    std::sort(Exports.begin(), Exports.end(),
                     [](ir::Function *A, ir::Function *B) { return A->Symbol < B->Symbol; });
    std::string Decls;
    for (ir::Function *F : Exports)
      Decls += functionDecl(*F);
    if (!Ok) {
      Diags.errorNoLoc("an export function uses a type that C cannot express");
      return false;
    }
    std::string Text = "//\n// " + Path +
                       "\n// (Header automatically generated by spmdc, in the ispc compiler's form.)\n"
                       "// DO NOT EDIT THIS FILE.\n//\n\n";
    std::string Guard = "ISPC_" + Path;
    for (char &C : Guard)
      C = std::isalnum(static_cast<unsigned char>(C)) ? std::toupper(C) : '_';
    if (Options.PragmaOnce)
      Text += "#pragma once\n#include <stdint.h>\n\n";
    else
      Text += "#ifndef " + Guard + "\n#define " + Guard + "\n\n#include <stdint.h>\n\n";
    Text += "#if !defined(__cplusplus)\n"
            "#if defined(__STDC_VERSION__) && (__STDC_VERSION__ >= 199901L)\n"
            "#include <stdbool.h>\n#else\ntypedef int bool;\n#endif\n#endif\n\n\n\n"
            "#ifdef __cplusplus\nnamespace ispc { /* namespace */\n#endif // __cplusplus\n";
    if (!Enums.empty()) {
      Text += std::string(Rule) + "// Enumerator types with external visibility from ispc code\n" +
              Rule + "\n";
      for (EnumDecl *ED : Enums)
        Text += enumDefinition(*ED);
    }
    Text += "\n" + std::string(AlignmentMacros) + "\n";
    for (StructDecl *SD : Structs)
      Text += structDefinition(*SD);
    Text += "\n" + std::string(Rule) + "// Functions exported from ispc code\n" + Rule +
            ExternCCondition + "extern \"C\" {\n#endif // __cplusplus\n" + Decls +
            ExternCCondition + "} /* end extern C */\n#endif // __cplusplus\n\n\n" +
            "#ifdef __cplusplus\n} /* namespace */\n#endif // __cplusplus\n";
    if (!Options.PragmaOnce)
      Text += "\n#endif // " + Guard + "\n";

    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Text);
    if (EC) {
      Diags.errorNoLoc("cannot write '" + Path + "': " + EC.message());
      return false;
    }
    OS << Text;
    return true;
  }

private:
  /// Structs in definition order: a struct after every struct its fields hold by value.
  void useStruct(StructDecl *SD) {
    if (!Seen.insert(SD).second)
      return;
    for (const FieldDecl &F : SD->Fields)
      fieldDecl(F); // registers the field types first
    Structs.push_back(SD);
  }

  void useEnum(EnumDecl *ED) {
    if (std::find(Enums.begin(), Enums.end(), ED) == Enums.end())
      Enums.push_back(ED);
  }

  std::string fieldDecl(const FieldDecl &F) {
    const Type *T = F.Ty;
    if (!T->isArray())
      return cType(T, F.Name);
    std::string Dims;
    while (T->isArray()) {
      Dims += "[" + std::to_string(T->getArraySize()) + "]";
      T = T->getElementType();
    }
    return cType(T, F.Name + Dims);
  }

  std::string structDefinition(StructDecl &SD) {
    std::string Guard = "__ISPC_STRUCT_" + SD.Name + "__";
    std::string Body = "#ifndef " + Guard + "\n#define " + Guard + "\nstruct " + SD.Name + " {\n";
    for (const FieldDecl &F : SD.Fields)
      Body += "    " + fieldDecl(F) + ";\n";
    return Body + "};\n#endif\n\n";
  }

  static std::string enumDefinition(EnumDecl &ED) {
    std::string Guard = "__ISPC_ENUM_" + ED.Name + "__";
    std::string Body = "#ifndef " + Guard + "\n#define " + Guard + "\nenum " + ED.Name + " {\n";
    for (size_t I = 0; I < ED.Constants.size(); ++I)
      Body += "    " + ED.Constants[I]->Name + " = " + std::to_string(ED.Constants[I]->Resolved) +
              (I + 1 < ED.Constants.size() ? ",\n" : " \n");
    return Body + "};\n#endif\n\n";
  }

  DiagnosticEngine &Diags;
  std::set<StructDecl *> Seen;
  std::vector<StructDecl *> Structs;
  std::vector<EnumDecl *> Enums;
  bool Ok = true;
};

/// The host side of a kernel parameter: pointers are device addresses.
std::string hostParamType(HeaderWriter &W, const Type *T, const std::string &Name) {
  if (T->isPointer() || T->isArray() || T->isReference())
    return "CUdeviceptr " + Name;
  return W.cType(T, Name);
}

/// The CUDA runtime API (12+) twin of a kernel's driver-API launcher: the kernel from a
/// `cudaLibrary_t` (cudaLibraryLoadData of the PTX) and its launch with cudaLaunchKernel.
/// Declared only where the program included <cuda_runtime_api.h> (or is a .cu file) first,
/// so that a driver-API program needs no CUDA runtime. `Shape` is the launcher's parameters
/// between the kernel and the params, `Prologue` code computing `grid_x` and `block_x`.
std::string runtimeApiLauncher(const std::string &K, const std::string &Shape,
                               const std::string &Prologue, const std::string &Args) {
  std::string Body = "#if defined(CUDART_VERSION) && CUDART_VERSION >= 12000\n";
  Body += "static inline cudaError_t spmd_rt_get_" + K +
          "(cudaLibrary_t library, cudaKernel_t *kernel) {\n"
          "  return cudaLibraryGetKernel(kernel, library, spmd_" +
          K + "_name);\n}\n";
  Body += "static inline cudaError_t spmd_rt_launch_" + K + "(cudaKernel_t kernel, " + Shape +
          "cudaStream_t stream,\n                                          spmd_" + K +
          "_params *p) {\n" + Prologue;
  Body += "  dim3 grid_dim = {grid_x, 1, 1}, block_dim = {block_x, 1, 1};\n";
  if (Args.empty())
    Body += "  (void)p;\n  return cudaLaunchKernel((const void *)kernel, grid_dim, block_dim, NULL, 0, "
            "stream);\n";
  else
    Body += "  void *args[] = {" + Args +
            "};\n  return cudaLaunchKernel((const void *)kernel, grid_dim, block_dim, args, 0, stream);\n";
  Body += "}\n#endif\n\n";
  return Body;
}

/// A fused kernel's parameters and launcher: the grid is the larger side's
/// block count, each block 32 * (gA + gB + ...) threads (docs/hfuse.md).
std::string fusedKernelLauncher(HeaderWriter &W, const ir::FusedKernel &FK) {
  const ir::Function &F = *FK.Entry;
  const std::string &K = F.Symbol;
  std::string Sides, Gangs;
  for (size_t I = 0; I < FK.Sides.size(); ++I) {
    Sides += (I ? ", " : "") + FK.Sides[I];
    Gangs += (I ? ", " : "") + std::to_string(FK.Gangs[I]);
  }
  std::string Body = "/* Kernel '" + K + "': horizontal fusion of " + Sides + " with " + Gangs +
                     " warps per block each. */\n";
  Body += "static const char *const spmd_" + K + "_name = \"" + K + "\";\n";
  Body +=
      "enum { spmd_" + K + "_threads_per_block = " + std::to_string(FK.ThreadsPerBlock) + " };\n";
  Body += "typedef struct spmd_" + K + "_params {\n";
  std::string Args;
  size_t First = F.HasMaskParam ? 1 : 0;
  for (size_t I = First; I < F.Params.size(); ++I) {
    const std::string &N = F.Params[I]->NameHint;
    Body += "  " + hostParamType(W, F.Params[I]->Ty, N) + ";\n";
    Args += std::string(Args.empty() ? "" : ", ") + "&p->" + N;
  }
  Body += "} spmd_" + K + "_params;\n";
  std::string Grid = "p->blocks_" + FK.Sides[0];
  for (size_t I = 1; I < FK.Sides.size(); ++I)
    Grid = "(" + Grid + " > p->blocks_" + FK.Sides[I] + " ? " + Grid + " : p->blocks_" +
           FK.Sides[I] + ")";
  Body += "static inline CUresult spmd_launch_" + K + "(CUfunction kernel, CUstream stream, spmd_" +
          K + "_params *p) {\n";
  Body += "  int32_t grid = " + Grid + ";\n";
  Body += "  void *args[] = {" + Args + "};\n";
  Body += "  if (grid <= 0)\n    return CUDA_SUCCESS;\n";
  Body += "  return cuLaunchKernel(kernel, (unsigned)grid, 1, 1, spmd_" + K +
          "_threads_per_block, 1, 1, 0, stream, args, NULL);\n}\n\n";
  Body += runtimeApiLauncher(K, "",
                             "  int32_t grid = " + Grid +
                                 ";\n  if (grid <= 0)\n    return cudaSuccess;\n"
                                 "  unsigned grid_x = (unsigned)grid, block_x = spmd_" +
                                 K + "_threads_per_block;\n",
                             Args);
  return Body;
}

/// The runtime API's loader, once however many spmdc host headers a program includes.
const char *const RuntimeApiLoader =
    "#if defined(CUDART_VERSION) && CUDART_VERSION >= 12000 && !defined(SPMDC_RT_LOAD_DEFINED)\n"
    "#define SPMDC_RT_LOAD_DEFINED\n"
    "/* The PTX (e.g. spmdc_add_ptx's embedded <name>_ptx[]) as a library of the current device's\n"
    "   context; the driver compiles it for the GPU. */\n"
    "static inline cudaError_t spmd_rt_load(cudaLibrary_t *library, const char *ptx) {\n"
    "  return cudaLibraryLoadData(library, ptx, NULL, NULL, 0, NULL, NULL, 0);\n"
    "}\n"
    "#endif\n\n";

} // namespace

bool writeHostHeader(ir::Module &M, const std::string &Path, DiagnosticEngine &Diags) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    Diags.errorNoLoc("cannot write '" + Path + "': " + EC.message());
    return false;
  }
  HeaderWriter W(Diags);
  std::string Body;
  std::map<const ir::Function *, const ir::FusedKernel *> Fused;
  for (const ir::FusedKernel &FK : M.FusedKernels)
    Fused[FK.Entry] = &FK;
  for (auto &F : M.Functions) {
    bool Kernel =
        (F->flags().Export || F->flags().Task) && F->Body && F->Ty->getReturnType()->isVoid();
    if (!Kernel)
      continue;
    if (auto It = Fused.find(F.get()); It != Fused.end()) {
      Body += fusedKernelLauncher(W, *It->second);
      continue;
    }
    const std::string &K = F->Symbol;
    Body += "/* Kernel '" + K + "': one gang per warp; taskIndex is the global warp index. */\n";
    Body += "static const char *const spmd_" + K + "_name = \"" + K + "\";\n";
    if (F->ModelLaunchCoarsening)
      Body += "/* Vertical fusion's launch model (docs/fusion.md): launch '" + K + "' with\n"
              "   launch_coarsening times fewer gangs than the kernels apart (that many chunks\n"
              "   or rows per gang); thread_coarsening is the coarsening its loops got. */\n"
              "enum { spmd_" + K + "_launch_coarsening = " +
              std::to_string(F->ModelLaunchCoarsening) + ", spmd_" + K +
              "_thread_coarsening = " + std::to_string(F->AppliedThreadCoarsening) + " };\n";
    if (F->ModelLaunchCoarsening && F->WarpComposition)
      Body += "/* Its neighbour reads go through lane shuffles (1, warp composition) or a\n"
              "   tile in shared memory (0, block composition). */\n"
              "enum { spmd_" + K + "_warp_composition = " +
              std::to_string(*F->WarpComposition ? 1 : 0) + " };\n";
    Body += "typedef struct spmd_" + K + "_params {\n";
    std::string Args;
    size_t First = F->HasMaskParam ? 1 : 0;
    for (size_t I = First; I < F->Params.size(); ++I) {
      std::string N =
          F->Params[I]->NameHint.empty() ? "arg" + std::to_string(I) : F->Params[I]->NameHint;
      Body += "  " + hostParamType(W, F->Params[I]->Ty, N) + ";\n";
      Args += std::string(Args.empty() ? "" : ", ") + "&p->" + N;
    }
    if (F->Params.size() == First) {
      Body += "  char unused;\n";
    }
    Body += "} spmd_" + K + "_params;\n";
    Body += "static inline CUresult spmd_launch_" + K +
            "(CUfunction kernel, unsigned blocks, unsigned warps_per_block, CUstream stream,\n"
            "                                    spmd_" +
            K + "_params *p) {\n";
    if (Args.empty())
      Body += "  (void)p;\n  return cuLaunchKernel(kernel, blocks, 1, 1, 32 * warps_per_block, 1, "
              "1, 0, "
              "stream, NULL, NULL);\n}\n\n";
    else
      Body +=
          "  void *args[] = {" + Args +
          "};\n"
          "  return cuLaunchKernel(kernel, blocks, 1, 1, 32 * warps_per_block, 1, 1, 0, stream, "
          "args, NULL);\n}\n\n";
    Body += runtimeApiLauncher(K, "unsigned blocks, unsigned warps_per_block, ",
                               "  unsigned grid_x = blocks, block_x = 32 * warps_per_block;\n",
                               Args);
  }
  std::string Guard = "SPMDC_" + llvm::sys::path::stem(Path).str() + "_HOST_H";
  for (char &C : Guard)
    C = std::isalnum(static_cast<unsigned char>(C)) ? std::toupper(C) : '_';
  OS << "/* Generated by spmdc: how a CUDA host program launches this module's kernels. */\n"
     << "#ifndef " << Guard << "\n#define " << Guard << "\n\n"
     << "#include <cuda.h>\n#include <stdint.h>\n#ifndef __cplusplus\n#include "
        "<stdbool.h>\n#endif\n\n"
     << "#ifdef __cplusplus\nnamespace spmd {\n#endif\n\n"
     << RuntimeApiLoader << Body << "#ifdef __cplusplus\n} // namespace spmd\n#endif\n\n#endif // " << Guard << "\n";
  return true;
}

bool writeHeader(ir::Module &M, const std::string &Path, const HeaderOptions &Options,
                 DiagnosticEngine &Diags) {
  return HeaderWriter(Diags).write(M, Path, Options);
}

} // namespace spmdc
