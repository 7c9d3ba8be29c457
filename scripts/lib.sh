# Shared by the scripts in scripts/: the package list, the two builds, the LLVM tools.
# Source it; it defines functions and variables and runs nothing.

SPMDC_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# lit, FileCheck and not live here (llvm-22-tools), not on PATH.
SPMDC_LLVM_BIN=/usr/lib/llvm-22/bin
SPMDC_JOBS="${SPMDC_JOBS:-2}"

# What a fresh Debian 12 (bookworm) lacks to build and test spmdc; the llvm-22
# packages come from bookworm + bookworm-security, as the rest.
SPMDC_PACKAGES=(
  llvm-22-dev llvm-22-tools libclang-22-dev clang-22 libclang-rt-22-dev
  flex bison cmake ninja-build
  zlib1g-dev libzstd-dev libedit-dev libxml2-dev libffi-dev libcurl4-openssl-dev
  python3-matplotlib  # optional: the plot of scripts/bench-vs-ispc.py
)

# Installs the packages dpkg does not know as installed; apt is only asked when
# something is missing, and never prompts (CI has no stdin).
spmdc_install_missing_packages() {
  local missing=() pkg
  for pkg in "${SPMDC_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -q '^install ok installed$'; then
      missing+=("$pkg")
    fi
  done
  if ((${#missing[@]} == 0)); then
    echo "setup: all ${#SPMDC_PACKAGES[@]} packages present"
    return 0
  fi
  echo "setup: installing ${missing[*]}"
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q </dev/null &&
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
}

# -DSPMDC_WERROR=ON under CI, OFF otherwise (explicitly, so a cached ON does not stick).
spmdc_werror_flag() {
  if [[ -n "${CI:-}" ]]; then
    echo -DSPMDC_WERROR=ON
  else
    echo -DSPMDC_WERROR=OFF
  fi
}

# build/: the compiler and the lit suite. A fresh bookworm has no `c++` until
# something installs one, but clang-22 is in the package list: it is the default.
spmdc_build_main() {
  (cd "$SPMDC_ROOT" &&
    CC="${CC:-clang-22}" CXX="${CXX:-clang++-22}" \
      cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$(spmdc_werror_flag)" &&
    ninja -C build -j"$SPMDC_JOBS")
}

# build-fuzz/: the libFuzzer targets only (front end, whole pipeline; clang-22, sanitizers).
spmdc_build_fuzzer() {
  (cd "$SPMDC_ROOT" &&
    cmake -G Ninja -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPMDC_FUZZ=ON \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 "$(spmdc_werror_flag)" &&
    ninja -C build-fuzz -j"$SPMDC_JOBS" spmdc-fuzz-frontend spmdc-fuzz-pipeline)
}
