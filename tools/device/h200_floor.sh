#!/usr/bin/env bash
# What the timing leaves a kernel on problems too small to be limited by the GPU: cuBLAS on
# tools/device/floor/tiny.csv (the dispatcher on an empty database, so both columns are cuBLAS),
# under the default cold-flush timing. (Under rotate, a tiny problem's operands stay in L2 however
# many sets it gets: see docs/measurement.md.) Output:
# $OUT/floor.tar.gz. Never touches clocks or GPU settings. Binaries: NO_BUILD=1
# tools/device/pack.sh <builddir> . first.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-floor
gpu_facts
sgemm-tune import tools/device/floor/empty.json --db "$work/empty.db" > "$res/import.log" 2>&1
timed bench-cold-flush timeout 120 sgemm-tune bench --shapes tools/device/floor/tiny.csv \
  --db "$work/empty.db" --json "$res/bench-cold-flush.data.json"
cat "$res/bench-cold-flush.json"
tar -C "$res" -czf "$out/floor.tar.gz" .
