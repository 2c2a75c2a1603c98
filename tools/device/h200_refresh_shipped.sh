#!/usr/bin/env bash
# Refreshes the shipped database after a kernel template change, in one device command: imports
# tuner_db/nvidia-h200.json, tunes its own-kernel problems again with the current templates
# (--retune, short screening), exports the winners, and benches the dispatcher on the refreshed
# database over the public suite against cuBLAS and cuBLASLt. Everything goes into
# $OUT/shipped.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-shipped
own=${OWN:-tools/device/skinny_direct/shipped-own.csv}

gpu_facts

sgemm-tune import tuner_db/nvidia-h200.json --db "$res/shipped.db" > "$res/import.log" 2>&1
echo "import: exit $?"
timed retune timeout 300 sgemm-tune tune --shapes "$own" --db "$res/shipped.db" --settings "$settings" \
  --retune --json
sgemm-tune export --db "$res/shipped.db" --winners-only -o "$res/nvidia-h200.json" > "$res/export.log" 2>&1
echo "export: exit $?"
sgemm-tune import "$res/nvidia-h200.json" --db "$res/reimport.db" > "$res/reimport.log" 2>&1
echo "reimport: exit $?"; tail -2 "$res/reimport.log"
timed bench timeout 280 sgemm-tune bench --shapes configs/shapes/public.csv --db "$res/reimport.db" \
  --lt-algos 8 --json "$res/bench.data.json"
cat "$res/bench.json"

tar -C "$res" -czf "$out/shipped.tar.gz" .
ls -la "$out"
