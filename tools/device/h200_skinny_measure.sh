#!/usr/bin/env bash
# Skinny problems on the H200 in one device command: the shipped database's dispatcher against
# cuBLAS and cuBLASLt under both cache modes of configs/measure.yaml (cold-flush, rotate); an
# exhaustive search of the shared-memory ring with REDUCE 0 and 1 on 4096x16x4096
# (tools/device/skinny_direct/ring-4096x16x4096/) and of DIRECT = 1 with L2 prefetch on
# 4096x1x4096 (pf-4096x1x4096/); the crash-isolation test with its tuner binary. Everything goes
# into $OUT/measure.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-measure
spaces=tools/device/skinny_direct
export SGEMM_TUNE_BINARY=$dist/bin/sgemm-tune

gpu_facts

# 1. The shipped database, both cache modes.
printf 'm,n,k\n4096,16,4096\n4096,1,4096\n32000,16,4096\n64,64,65536\n1024,1024,1024\n' > "$res/skinny.csv"
sgemm-tune import tuner_db/nvidia-h200.json --db "$res/shipped.db" > "$res/import.log" 2>&1
echo "import: exit $?"
for mode in cold-flush rotate; do
  settings_file=configs/measure.yaml
  [[ $mode == rotate ]] && settings_file=$spaces/rotate.yaml
  timed "bench-$mode" timeout 120 sgemm-tune bench --shapes "$res/skinny.csv" --db "$res/shipped.db" \
    --settings "$settings_file" --lt-algos 8 --json "$res/bench-$mode.data.json"
  cat "$res/bench-$mode.json"; tail -3 "$res/bench-$mode.log"
done

# 2. Exhaustive searches, the best 8 confirmed against cuBLAS.
for pair in ring-4096x16x4096 pf-4096x1x4096; do
  IFS=x read -r m n k <<< "${pair#*-}"
  printf 'm,n,k\n%s,%s,%s\n' "$m" "$n" "$k" > "$res/$pair.csv"
  timed "tune-$pair" timeout 200 sgemm-tune tune --shapes "$res/$pair.csv" --db "$res/$pair.db" \
    --space "$spaces/$pair" --settings "$spaces/settings.yaml" --strategy exhaustive --time-budget 170 --json
  python3 tools/device/skinny_direct/top.py "$res/$pair.db" 25 | tee "$res/summary-$pair.txt"
done

# 3. Crash isolation runs the tuner binary named by SGEMM_TUNE_BINARY.
timeout 60 "$dist/tests/gpu_tests" --gtest_filter='CrashIsolation.*' > "$res/crash.log" 2>&1
echo "crash isolation: exit $?"; grep -E "^\[  (PASSED|FAILED)" "$res/crash.log"

tar -C "$res" -czf "$out/measure.tar.gz" .
ls -la "$out"
