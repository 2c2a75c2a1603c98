#!/usr/bin/env bash
# GPU tests, compute-sanitizer on the edge-shape sample, and compile throughput, in one device
# command (about 8 minutes at most). Results in $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/sgemm-out}
mkdir -p "$out"
RUN_TUNE=0 TEST_TIMEOUT=170 tools/device/h200_check.sh
SAN_STEP=sample tools/device/h200_sanitize.sh
STEP=compile tools/device/h200_engine.sh
