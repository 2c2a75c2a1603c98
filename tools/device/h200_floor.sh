#!/usr/bin/env bash
# What the timing leaves a kernel on problems too small to be limited by the GPU: cuBLAS on
# tools/device/floor/tiny.csv (the dispatcher on an empty database, so both columns are cuBLAS),
# under the default cold-flush timing. (Not under rotate: operand sets totalling 3 x L2 of a 1x1x1
# problem number in the millions, and that run did not finish in 120 s.) Output:
# $OUT/floor.tar.gz. Never touches clocks or GPU settings. Binaries: NO_BUILD=1
# tools/device/pack.sh <builddir> . first.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-floor
gpu_facts
sgemm-tune import tools/device/floor/empty.json --db "$work/empty.db" > "$res/import.log" 2>&1
for cache in cold-flush; do
  settings_file=$work/$cache.yaml
  echo "cache: $cache" > "$settings_file"
  timed "bench-$cache" timeout 120 sgemm-tune bench --shapes tools/device/floor/tiny.csv \
    --db "$work/empty.db" --settings "$settings_file" --json "$res/bench-$cache.data.json"
  cat "$res/bench-$cache.json"
done
tar -C "$res" -czf "$out/floor.tar.gz" .
