# What tuning costs with the shipped settings (configs/measure.yaml), from a cold compile cache
# into a fresh database, over the public suite and the sweep (configs/shapes/{public,sweep}.csv):
#   tests (default): the GPU tests of the Timer, the tuner and crash isolation;
#   tune: the 116 problems in one `tune` run (a run cut by its time budget is resumed by calling
#     the phase again: PART=2 names the second part's logs), each problem's time breakdown;
#   old: the dozen (first rows of each sweep class) tuned by the binary of .device-old (the
#     settings before screening by sample count: $OLD_SETTINGS), into its own database;
#   bench: the dozen benched on both databases (the new one twice, two processes: repeatability).
default_phase=tests

all_shapes=$work/all.csv
dozen=$work/dozen.csv
make_shape_lists() {
  local header='m,n,k,transa,transb,lda,ldb,ldc,alpha,beta,class'
  {
    echo "$header"
    grep -v '^#' configs/shapes/public.csv | tail -n +2 | awk -F, '{ print $1","$2","$3","$4","$5",,,,1,0,"$6 }'
    grep -v '^#' configs/shapes/sweep.csv | tail -n +2
  } > "$all_shapes"
  # The first two rows of compute, linear, long_k and small, the first of the other classes: 12.
  {
    echo "$header"
    grep -v '^#' configs/shapes/sweep.csv | tail -n +2 | awk -F, '
      { want = ($11 == "compute" || $11 == "linear" || $11 == "long_k" || $11 == "small") ? 2 : 1 }
      seen[$11]++ < want'
  } > "$dozen"
  cp "$all_shapes" "$dozen" "$res/"
}

phase_tests() {
  gpu_tests timer 'TimerTest.*:TunerGpu.*:CrashIsolation.*' 200
}

phase_tune() {
  make_shape_lists
  if [[ ! -f $work/new.db ]]; then rm -rf "$SGEMM_CACHE_DIR"; fi  # the first part starts cold
  timed "tune-${PART:-1}" sgemm-tune tune --shapes "$all_shapes" --db "$work/new.db" \
    --time-budget "${BUDGET:-450}" --json
  grep -cE "^info: (NN|NT|TN|TT) .* s: compile wait" "$res/tune-${PART:-1}.log"
  cp "$work/new.db" "$res/"
}

phase_old() {
  make_shape_lists
  export SGEMM_CACHE_DIR=$work/cache-old
  timed old "$PWD/.device-old/sgemm-tune" tune --shapes "$dozen" --db "$work/old.db" \
    --settings "${OLD_SETTINGS:-.device-old/measure.yaml}" --time-budget "${BUDGET:-420}" --json
  grep -E "^info: (NN|NT|TN|TT) " "$res/old.log" | cut -c1-200
  cp "$work/old.db" "$res/"
}

phase_bench() {
  make_shape_lists
  local run
  for run in new-1 new-2 old; do
    local db=$work/${run%-*}.db
    timed "bench-$run" timeout 150 sgemm-tune bench --shapes "$dozen" --db "$db" \
      --json "$res/bench-$run.data.json"
  done
}
