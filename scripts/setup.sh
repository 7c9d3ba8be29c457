#!/usr/bin/env bash
# Installs the Debian packages spmdc needs (only those missing), then configures and builds build/.
#
# Usage: bash scripts/setup.sh
# Environment: CI (set: warnings are errors), SPMDC_JOBS (ninja jobs, default 2),
# CC/CXX (compiler; default clang-22/clang++-22, which the package list guarantees).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

spmdc_install_missing_packages
spmdc_build_main
