#!/usr/bin/env bash
# Whether the model search leaves F2 points unmeasured that would win: the shipped database
# imported, then the problems of exhaustive_f2/shapes.csv tuned again (--retune: each problem's
# own winner is measured first) with every point of F2's default spaces (--strategy exhaustive),
# the winners exported (nvidia-h200.json) and the public suite benched on them.
# Output: $OUT/exhaustive-f2.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-exhaustive-f2

gpu_facts
f2_space=$work/spaces
mkdir -p "$f2_space"
cp "$space"/f2_tma*.yaml "$f2_space/"
db=$work/shipped.db
sgemm-tune import "${BASE:-tuner_db/nvidia-h200.json}" --db "$db" > "$res/import.log" 2>&1
echo "import: exit $?"
timed retune timeout 420 sgemm-tune tune --shapes tools/device/exhaustive_f2/shapes.csv --db "$db" \
  --space "$f2_space" --settings "$settings" --strategy exhaustive --retune --lt-algos 8 --json
grep -E "^info: (NN|NT|TN|TT) " "$res/retune.log" | cut -c1-300
sgemm-tune export --db "$db" --winners-only -o "$work/nvidia-h200.json" > "$res/export.log" 2>&1
echo "export: exit $?"
cp "$db" "$work/nvidia-h200.json" "$res/"
[[ ${BENCH:-1} == 1 ]] && bench_public "$work/nvidia-h200.json"
tar -C "$res" -czf "$out/exhaustive-f2.tar.gz" .
ls -la "$out"
