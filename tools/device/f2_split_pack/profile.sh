#!/usr/bin/env bash
# Nsight Compute (clocks untouched, caches flushed) on 4096x128x4096: cuBLAS's kernels as the
# shipped database routes the problem, then the best transposed-copy F2 point. Run from
# h200_split_pack.sh (PHASE=profile), which has set up $res and the binaries.
dir=tools/device/f2_split_pack
sgemm-tune import tuner_db/nvidia-h200.json --db "$work/shipped.db" > "$res/import.log" 2>&1
timeout 200 ncu --clock-control none --cache-control all --section LaunchStats --section SpeedOfLight \
  --section Occupancy --launch-count 120 --csv --page details \
  sgemm-tune bench --shapes $dir/n128.csv --db "$work/shipped.db" > "$res/ncu-cublas.csv" 2> "$res/ncu-cublas.log"
echo "ncu cublas: exit $?"
timeout 200 ncu --clock-control none --cache-control all --section LaunchStats --section SpeedOfLight \
  --section Occupancy --kernel-name regex:'^sgemm_' --launch-count 12 --csv --page details \
  sgemm-tune tune --shapes $dir/n128.csv --db "$res/point.db" --space $dir/point.yaml \
  --settings "$settings" > "$res/ncu-f2.csv" 2> "$res/ncu-f2.log"
echo "ncu f2: exit $?"
