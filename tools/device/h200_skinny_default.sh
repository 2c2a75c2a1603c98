#!/usr/bin/env bash
# The default search over the skinny problems of tools/device/skinny_direct/skinny.csv on the
# H200, in one device command: the DIRECT and in-kernel-reduce GPU tests, a default tuning run
# (cost model, warm starts between the problems, short screening of tools/device/screen_fast.yaml)
# into a fresh database, the same command again (already tuned), and the dispatcher on that
# database against cuBLAS and cuBLASLt. Everything goes into $OUT/default.tar.gz. Never touches
# clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-default
shapes=tools/device/skinny_direct/skinny.csv

gpu_facts

gpu_tests gpu_tests 'F4Direct.*:InKernelReduce/*' 200

for run in tune-default tune-default-again; do
  timed "$run" timeout 300 sgemm-tune tune --shapes "$shapes" --db "$res/skinny.db" \
    --settings "$settings" --json
done
sgemm-tune list --db "$res/skinny.db" > "$res/list.txt" 2>&1; cat "$res/list.txt"
timed bench timeout 120 sgemm-tune bench --shapes "$shapes" --db "$res/skinny.db" --lt-algos 8 \
  --json "$res/bench.data.json"
cat "$res/bench.json"
sgemm-tune export --db "$res/skinny.db" --winners-only -o "$res/winners.json" > "$res/export.log" 2>&1

tar -C "$res" -czf "$out/default.tar.gz" .
ls -la "$out"
