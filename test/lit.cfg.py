# lit configuration for spmdc: front-end, diagnostic, IR/PTX and runtime tests.
import os
import shutil

import lit.formats

config.name = "spmdc"
config.test_format = lit.formats.ShTest(not lit_config.isWindows)
config.suffixes = [".spmd", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.spmdc_obj_root, "test")

# Tools: our compiler first, then LLVM's FileCheck/not/split-file.
path = os.pathsep.join([config.spmdc_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["PATH"] = path
config.substitutions.append(("%spmdc", os.path.join(config.spmdc_bin_dir, "spmdc")))
config.substitutions.append(("%src_root", config.spmdc_src_root))

# Optional tools become features; tests that need them say `REQUIRES:`.
ptxas = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
# ISPC itself, the oracle of the differential tests: $ISPC, else ../shared/ispc/ispc
# beside the source tree (where the project's workspace keeps it).
ispc = os.environ.get("ISPC") or os.path.join(os.path.dirname(config.spmdc_src_root), "shared", "ispc", "ispc")
if os.path.isfile(ispc) and os.access(ispc, os.X_OK):
    config.available_features.add("ispc")
    config.substitutions.append(("%ispc", ispc))
# gdb, for the tests of -g's line tables in a debugger.
if shutil.which("gdb"):
    config.available_features.add("gdb")
if os.path.exists(config.fuzzer_path):
    config.available_features.add("fuzzer")
    config.substitutions.append(("%fuzzer", config.fuzzer_path))
if os.path.exists(getattr(config, "pipeline_fuzzer_path", "")):
    config.available_features.add("pipeline-fuzzer")
    config.substitutions.append(("%pipeline-fuzzer", config.pipeline_fuzzer_path))

# Runtime tests: compile with spmdc for every x86 target the CPU runs, link with
# the shared driver (test/runtime/Inputs/driver.cpp), run, compare the targets.
cxx = shutil.which("clang++-22") or shutil.which("c++") or "c++"
driver_lib = os.path.join(config.spmdc_obj_root, "lib", "libspmdc_test_driver.a")
run_spmd = os.path.join(config.spmdc_src_root, "test", "runtime", "run-spmd.py")
config.substitutions.append(
    ("%run-spmd", "python3 %s %s %s %s %%t.dir" % (run_spmd, os.path.join(config.spmdc_bin_dir, "spmdc"), driver_lib, cxx)))
config.substitutions.append(("%cxx", cxx))
config.substitutions.append(("%driver_libs", "%s %s -lm -lpthread" % (driver_lib, os.path.join(config.spmdc_obj_root, "lib", "libspmdc_runtime.a"))))
