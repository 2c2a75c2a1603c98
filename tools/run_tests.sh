#!/usr/bin/env bash
# Builds and runs every test tier (host, NVRTC, GPU; GPU tests skip when no device is usable),
# including the example that builds against the installed package.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake --preset ci >/dev/null
cmake --build --preset ci
ctest --preset ci
