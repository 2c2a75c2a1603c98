#!/usr/bin/env bash
# The shipped database's dispatcher against cuBLAS and cuBLASLt on the H200 under both cache modes
# of the measurement settings: configs/measure.yaml (cold-flush: a 2 x L2 memset before every
# sample) and tools/device/skinny_direct/rotate.yaml (rotate: back-to-back launches over copies
# of the operands). Output: $OUT/cache-modes.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-cache-modes
shapes=${SHAPES:-tools/device/skinny_direct/cache-modes.csv}
gpu_facts
sgemm-tune import tuner_db/nvidia-h200.json --db "$res/shipped.db" > "$res/import.log" 2>&1
for mode in cold-flush rotate; do
  settings_file=configs/measure.yaml
  [[ $mode == rotate ]] && settings_file=tools/device/skinny_direct/rotate.yaml
  timed "bench-$mode" timeout 150 sgemm-tune bench --shapes "$shapes" --db "$res/shipped.db" \
    --settings "$settings_file" --lt-algos 8 --json "$res/bench-$mode.data.json"
  cat "$res/bench-$mode.json"
  grep -o '"cache": *"[^"]*"' "$res/bench-$mode.data.json" | sort | uniq -c
done
tar -C "$res" -czf "$out/cache-modes.tar.gz" .
