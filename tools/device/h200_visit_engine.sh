#!/usr/bin/env bash
# One device command (about 7 minutes): an exhaustive search over as much of the public suite as
# 200 s allows (to compare with the default strategy's winners), the time of re-running an
# already tuned list, two workers on one GPU, explain --ncu and bench with cuBLASLt. Everything
# lands in $OUT/engine.tar.gz.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-engine

timed tune-exhaustive timeout 175 sgemm-tune tune --shapes "$dist/configs/shapes/public.csv" --space "$space" \
  --settings "$settings" --db "$work/exhaustive.db" --strategy exhaustive --time-budget 150 --json

printf 'm,n,k\n2048,2048,2048\n4096,16,4096\n' > "$work/three.csv"
timed tune-three timeout 60 sgemm-tune tune --shapes "$work/three.csv" --space "$space" --settings "$settings" \
  --db "$work/three.db" --json
timed tune-three-again sgemm-tune tune --shapes "$work/three.csv" --space "$space" --settings "$settings" \
  --db "$work/three.db" --json

timed tune-two-workers timeout 60 sgemm-tune tune --shapes "$dist/configs/shapes/quick.csv" --space "$space" \
  --settings "$settings" --db "$work/two.db" --devices 0,0 --max-candidates 16 --json
sgemm-tune list --db "$work/two.db" > "$res/two-workers-list.txt" 2>&1

sgemm-tune import tuner_db/nvidia-h200.json --db "$work/shipped.db" > "$res/import.log" 2>&1
timed explain-ncu timeout 60 sgemm-tune explain 4096 16 4096 --db "$work/shipped.db" --ncu
timed bench-quick timeout 90 sgemm-tune bench --shapes "$dist/configs/shapes/quick.csv" --db "$work/shipped.db" \
  --json "$res/bench-quick-lt.json"

tar -C "$res" -czf "$out/engine.tar.gz" .
cat "$res"/*.time
tail -12 "$res/bench-quick.json"
