# What the timing itself does: its floor, the two cache modes, and how repeatable it is.
#   floor (default): cuBLAS on the problems of tiny.csv (the dispatcher on an empty database, so
#     both columns are cuBLAS) under the default cold-flush timing;
#   cache-modes: the shipped database's dispatcher against cuBLAS and cuBLASLt on the skinny
#     problems and 1024^3, under configs/measure.yaml (cold-flush) and the same with cache: rotate;
#   breakdown: Nsight Compute over bench of 4096x16x4096 on the shipped database, caches and clocks
#     left alone as the timer leaves them: duration and DRAM traffic of each sgemm_main and
#     sgemm_reduce launch;
#   repeat: configs/shapes/repeat.csv benched five times in separate processes (spread of the
#     medians and ratios), configs/shapes/untuned.csv (problems never tuned) benched on the
#     shipped winners, and configs/shapes/quick.csv tuned twice into separate databases.
default_phase=floor

shipped_db() {
  [[ -f $work/shipped.db ]] ||
    sgemm-tune import tuner_db/nvidia-h200.json --db "$work/shipped.db" > "$res/import.log" 2>&1
}

phase_floor() {
  sgemm-tune import "$dir/empty.json" --db "$work/empty.db" > "$res/import-empty.log" 2>&1
  timed floor-cold-flush timeout 120 sgemm-tune bench --shapes "$dir/tiny.csv" --db "$work/empty.db" \
    --json "$res/floor-cold-flush.data.json"
  cat "$res/floor-cold-flush.json"
}

phase_cache-modes() {
  shipped_db
  local skinny rotate
  skinny=$(shapes skinny 4096,16,4096 4096,1,4096 32000,16,4096 64,64,65536 1024,1024,1024)
  rotate=$res/rotate.yaml
  printf 'cache: rotate\n' > "$rotate"
  for mode in cold-flush rotate; do
    local file=configs/measure.yaml
    [[ $mode == rotate ]] && file=$rotate
    timed "cache-modes-$mode" timeout 150 sgemm-tune bench --shapes "$skinny" --db "$work/shipped.db" \
      --settings "$file" --lt-algos 8 --json "$res/cache-modes-$mode.data.json"
    cat "$res/cache-modes-$mode.json"
    grep -o '"cache": *"[^"]*"' "$res/cache-modes-$mode.data.json" | sort | uniq -c
  done
}

phase_breakdown() {
  shipped_db
  local problem
  problem=$(shapes breakdown 4096,16,4096)
  ncu --clock-control none --cache-control none --kernel-name regex:"^sgemm_(main|reduce)$" \
    --launch-skip 4 --launch-count 12 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
    --csv sgemm-tune bench --shapes "$problem" --db "$work/shipped.db" --lt-algos 0 \
    > "$res/breakdown-4096x16x4096.csv" 2> "$res/breakdown.log"
  echo "ncu: exit $?"
  python3 - "$res/breakdown-4096x16x4096.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
head = rows[0] if rows else []
for r in rows[1:]:
    d = dict(zip(head, r))
    print(d["ID"], d["Kernel Name"], d["Metric Name"], d["Metric Value"])
PY
}

phase_repeat() {
  shipped_db
  for i in 1 2 3 4 5; do
    sgemm-tune -q bench --shapes configs/shapes/repeat.csv --db "$work/shipped.db" --seed $((100 + i)) \
      --json "$res/repeat$i.json" | grep -E "^(NN|geomean)"
  done > "$res/repeat.txt" 2>&1
  sgemm-tune -q bench --shapes configs/shapes/untuned.csv --db "$work/shipped.db" \
    --json "$res/untuned.json" > "$res/untuned.txt" 2>&1
  cat "$res/untuned.txt"
  for run in a b; do
    rm -f "$work/quick-$run.db"*
    timeout 150 sgemm-tune tune --shapes "$dist/configs/shapes/quick.csv" --db "$work/quick-$run.db" \
      --space "$space" --settings "$settings" --max-candidates 60 > "$res/quick-$run.log" 2>&1
    echo "tune $run: exit $?"
    sgemm-tune -q list --db "$work/quick-$run.db" | awk '{print $1, $2, $6, $7, $8, $9, $10}' \
      > "$res/quick-$run.txt"
  done
  paste -d'|' "$res/quick-a.txt" "$res/quick-b.txt" | head -8
  python3 - "$res" <<'PY'
import json, statistics, sys
res = sys.argv[1]
runs = [json.load(open(f"{res}/repeat{i}.json")) for i in range(1, 6)]
for p in range(len(runs[0]["problems"])):
    name = runs[0]["problems"][p]["problem"]
    for key in ("tuned_us", "cublas_us", "ratio"):
        v = [r["problems"][p][key] for r in runs]
        print(f"{name[:30]:30s} {key:10s} mean {statistics.mean(v):10.3f} "
              f"rel stdev {100 * statistics.stdev(v) / statistics.mean(v):.3f}%")
PY
}
