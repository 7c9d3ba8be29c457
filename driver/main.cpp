// spmdc's entry point: parse the command line and run the pipeline on a large stack.
#include "driver/Options.h"
#include "driver/Pipeline.h"
#include "target/TargetInfo.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

#include <optional>

int main(int Argc, char **Argv) {
  llvm::InitLLVM X(Argc, Argv);
  // @file arguments (ISPC's response files; CMake passes includes and defines in them) are
  // replaced by the words of the file, GNU-style quoting, nested files allowed.
  llvm::SmallVector<const char *, 64> Args(Argv, Argv + Argc);
  llvm::BumpPtrAllocator Alloc;
  llvm::cl::ExpansionContext Expander(Alloc, llvm::cl::TokenizeGNUCommandLine);
  if (llvm::Error E = Expander.expandResponseFiles(Args)) {
    llvm::errs() << "spmdc: error: " << llvm::toString(std::move(E)) << '\n';
    return 1;
  }
  auto Opts = spmdc::parseCommandLine(static_cast<int>(Args.size()), Args.data());
  if (!Opts) {
    llvm::errs() << "spmdc: error: " << llvm::toString(Opts.takeError()) << '\n';
    return 1;
  }
  if (Opts->ShowHelp) {
    spmdc::printHelp(llvm::outs());
    return 0;
  }
  if (Opts->PrintTargets) {
    for (const std::string &T : spmdc::targetNames())
      llvm::outs() << T << '\n';
    return 0;
  }
  if (Opts->PrintHostTargets) {
    for (const std::string &T : spmdc::hostRunnableTargets())
      llvm::outs() << T << '\n';
    return 0;
  }
  if (Opts->ShowVersion) {
    spmdc::printVersion(llvm::outs());
    return 0;
  }
  // The front end limits nesting, but recursive passes over a 256-deep tree still
  // want more than the default 8 MiB on some platforms: give them 256 MiB.
  int Status = 1;
  llvm::thread Worker(std::optional<unsigned>(256u << 20),
                      [&] { Status = spmdc::runCompiler(*Opts); });
  Worker.join();
  return Status;
}
