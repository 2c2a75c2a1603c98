# F2's split-K tiles on transposed copies of the K-contiguous operands (PACK = 2) against the
# same tiles in place (PACK = 0).
#   explore (default): the dispatcher's GPU tests, then every point of space.yaml on the long-K
#     and the short problems, exhaustive, each list into a fresh database;
#   profile: Nsight Compute (clocks untouched, caches flushed) on 4096x128x4096: cuBLAS's kernels
#     as the shipped database routes the problem, then F2's best transposed-copy point (point.yaml).
default_phase=explore

phase_explore() {
  gpu_tests gpu-tests-dispatcher 'Dispatcher.*' 150
  tune_into long 260 "$(shapes long 4096,128,4096 3000,3000,3000 2048,2048,2048)" "$dir/space.yaml" \
    --strategy exhaustive
  tune_into short 150 "$(shapes short 1024,1024,1024 1000,1300,700 1000,1300,700,T,T)" \
    "$dir/space.yaml" --strategy exhaustive
}

phase_profile() {
  local n128
  n128=$(shapes n128 4096,128,4096)
  sgemm-tune import tuner_db/nvidia-h200.json --db "$work/shipped.db" > "$res/import.log" 2>&1
  timeout 200 ncu --clock-control none --cache-control all --section LaunchStats --section SpeedOfLight \
    --section Occupancy --launch-count 120 --csv --page details \
    sgemm-tune bench --shapes "$n128" --db "$work/shipped.db" > "$res/ncu-cublas.csv" 2> "$res/ncu-cublas.log"
  echo "ncu cublas: exit $?"
  timeout 200 ncu --clock-control none --cache-control all --section LaunchStats --section SpeedOfLight \
    --section Occupancy --kernel-name regex:'^sgemm_' --launch-count 12 --csv --page details \
    sgemm-tune tune --shapes "$n128" --db "$res/point.db" --space "$dir/point.yaml" \
    --settings "$settings" > "$res/ncu-f2.csv" 2> "$res/ncu-f2.log"
  echo "ncu f2: exit $?"
}
