#!/usr/bin/env bash
# The main job: build (installing what is missing), then tune configs/shapes/quick.csv on the local
# GPU into the default database and print tuned vs cuBLAS. Extra arguments go to `sgemm-tune tune`.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake --preset dev >/dev/null
cmake --build --preset dev
exec build/src/sgemm-tune tune --shapes configs/shapes/quick.csv "$@"
