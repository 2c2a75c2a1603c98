#!/usr/bin/env bash
# Where the time of the 4096x16x4096 winner goes, on the H200: Nsight Compute over the dispatcher
# in `sgemm-tune bench` on the shipped database, caches and clocks left alone (as the timer runs
# it), the duration and DRAM traffic of each launch of sgemm_main and sgemm_reduce. Output:
# $OUT/breakdown.csv. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-breakdown
printf 'm,n,k\n4096,16,4096\n' > "$res/problem.csv"
sgemm-tune import tuner_db/nvidia-h200.json --db "$res/shipped.db" > "$res/import.log" 2>&1
ncu --clock-control none --cache-control none --kernel-name regex:"^sgemm_(main|reduce)$" \
  --launch-skip 4 --launch-count 12 \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
  --csv sgemm-tune bench --shapes "$res/problem.csv" --db "$res/shipped.db" --lt-algos 0 \
  > "$out/breakdown.csv" 2> "$out/breakdown.log"
echo "ncu: exit $?"
python3 - "$out/breakdown.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
head = rows[0]
for r in rows[1:]:
    d = dict(zip(head, r))
    print(d["ID"], d["Kernel Name"], d["Metric Name"], d["Metric Value"])
PY
