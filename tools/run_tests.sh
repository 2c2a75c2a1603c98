#!/usr/bin/env bash
# Checks the formatting (tools/check_format.sh), then builds and runs every test tier (host,
# NVRTC, GPU; GPU tests skip when no device is usable), including the example that builds against
# the installed package and the parser fuzzers (label fuzz), then the host tests again under ASan
# and UBSan (build-asan; SGEMM_SKIP_ASAN=1 leaves that tier out).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/check_format.sh
cmake --preset ci >/dev/null
cmake --build --preset ci
ctest --preset ci
if [[ ${SGEMM_SKIP_ASAN:-0} != 1 ]]; then
  cmake --preset asan >/dev/null
  cmake --build --preset asan
  ctest --preset asan
fi
