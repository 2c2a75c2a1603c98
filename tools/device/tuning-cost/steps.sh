# What tuning costs with the shipped settings (configs/measure.yaml), from a cold compile cache
# into a fresh database, over the public suite and the sweep (configs/shapes/{public,sweep}.csv):
#   tests (default): the GPU tests (TESTS, a gtest filter; default: the Timer, the tuner, crash
#     isolation, cuBLASLt, the dispatcher and tuning on use, alone and under concurrency);
#   tune: the public suite, then the sweep, one `tune` run each, within BUDGET seconds (a run cut
#     by the budget is resumed by calling the phase again, PART=2 naming the second part's logs;
#     on a fresh machine from .device-state/new.db, the database the previous part brought back);
#     SETTINGS_SET="KEY=VALUE ..." tunes with the shipped settings so changed (e.g.
#     screen_drop_factor=1.10) and DB_NAME names the database (default new.db);
#   old: the dozen (first rows of each sweep class) tuned by the binary and library of .device-old (the
#     settings before screening by sample count: $OLD_SETTINGS), into its own database;
#   bench: the dozen benched on both databases (the new one twice, two processes: repeatability;
#     NEW_DB and OLD_DB name other databases than new.db and old.db);
#   repeat: the dozen benched twice on the new database only (repeatability, no old database);
#   class: the sweep's problems of $CLASSES (default long_k) tuned into a fresh database of their
#     own, then benched on it against cuBLAS and cuBLASLt's best of 8 (a space change measured on
#     the classes it is for, in one command); LT_SPLITS=N tunes with --lt-splits N (files named
#     class-lt-splits-N, so that both runs of one command are kept); TWINS="FAMILY KNOB" adds
#     the knob's twins within the tuning (tools/bench/tuning_cost.py twins) as twins.txt;
#   placement: the dozen's two microsecond problems (NN 9x37x53, 27x54x17), each at 4 odd lda
#     (a shape list refuses a repeated row; every odd lda is the same alignment class), benched in
#     two processes: each row allocates its own operands, so cuBLAS's times over the rows of one
#     process tell an offset that follows the placement of the data from one that follows the
#     process (DB: the database, default the tune phase's);
#   suites: the sweep and the public suite (or $SUITES) benched on the new database against cuBLAS
#     and cuBLASLt's best of 8 (what the database that tuning made serves), each within
#     $BENCH_SECONDS;
#   retune: the problems of $SHAPES (a shape list) tuned again (--retune) in a copy of the database
#     an earlier visit brought back ($STATE_DB, default .device-state/h100.db), into new.db, whose
#     winners are exported (nvidia-h100.json or nvidia-h200.json, after the GPU; new.db comes back
#     too): a kernel change measured on the problems it can move, the rest of the database kept;
#     then the suites phase benches it (TUNE_ARGS: more tune options, e.g. "--lt-configs 0");
#   compare: the problems of $SHAPES benched on new.db (what retune made) and on the database it
#     started from ($STATE_DB), one after the other in one visit, against cuBLAS and cuBLASLt's
#     best of 8: a kernel change measured on one unit, before and after;
#   profile: Nsight Compute (--clock-control none) over the bench of one problem per sweep class
#     that stays far from the ceiling ($PROBLEMS: rows "M,N,K[,TA,TB]"; default a long_k, a small_k,
#     a tall and a compute problem), served from the new database ($DB to name another): speed of
#     light, occupancy, launch statistics, memory workload and warp states of every kernel, both
#     the dispatcher's route and cuBLAS's.
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

# On a fresh machine the new database is the one an earlier visit brought back.
restore_new_db() {
  if [[ ! -f $work/new.db && -f .device-state/new.db ]]; then cp .device-state/new.db "$work/"; fi
}

phase_tests() {
  local all='TimerTest.*:TunerGpu.*:CrashIsolation.*:GemmChecker.*:CublasLtGemm.*:Dispatcher*'
  all+=':TuneOnUse*:RouteKinds/Concurrency.*:Concurrency*'
  gpu_tests timer "${TESTS:-$all}" "${TESTS_SECONDS:-240}"
}

phase_tune() {
  make_shape_lists
  # A later part on a fresh machine resumes from the database the previous part brought back.
  restore_new_db
  local db=$work/${DB_NAME:-new.db} extra=()
  if [[ ! -f $db ]]; then rm -rf "$SGEMM_CACHE_DIR"; fi  # the first part starts cold
  [[ -n ${SETTINGS_SET:-} ]] && extra=(--settings "$(settings_with tune-settings $SETTINGS_SET)")
  local list left deadline=$(($(date +%s) + ${BUDGET:-450}))
  for list in public sweep; do
    left=$((deadline - $(date +%s)))
    ((left > 10)) || break
    timed "tune-$list-${PART:-1}" sgemm-tune tune --shapes "configs/shapes/$list.csv" \
      --db "$db" --time-budget "$left" --json "${extra[@]}"
    grep -cE "^info: (NN|NT|TN|TT) .* s: compile wait" "$res/tune-$list-${PART:-1}.log"
  done
  cp "$db" "$res/"
}

phase_old() {
  make_shape_lists
  export SGEMM_CACHE_DIR=$work/cache-old
  export LD_LIBRARY_PATH=$PWD/.device-old/lib:$LD_LIBRARY_PATH  # its own libsgemm_dispatch
  timed old "$PWD/.device-old/sgemm-tune" tune --shapes "$dozen" --db "$work/old.db" \
    --settings "${OLD_SETTINGS:-.device-old/measure.yaml}" --time-budget "${BUDGET:-420}" --json
  grep -E "^info: (NN|NT|TN|TT) " "$res/old.log" | cut -c1-200
  cp "$work/old.db" "$res/"
}

phase_bench() {
  make_shape_lists
  local run
  # On a fresh machine the new database is the one the last tune part brought back.
  restore_new_db
  for run in new-1 new-2 old; do
    local db=$work/${run%-*}.db
    [[ $run == new* && -n ${NEW_DB:-} ]] && db=$NEW_DB
    [[ $run == old && -n ${OLD_DB:-} ]] && db=$OLD_DB
    timed "bench-$run" timeout 150 sgemm-tune bench --shapes "$dozen" --db "$db" \
      --json "$res/bench-$run.data.json"
  done
}

phase_repeat() {
  make_shape_lists
  restore_new_db
  local run
  for run in new-1 new-2; do
    timed "bench-$run" timeout 150 sgemm-tune bench --shapes "$dozen" --db "$work/new.db" \
      --json "$res/bench-$run.data.json"
  done
  python3 tools/bench/tuning_cost.py compare "$res/bench-new-1.data.json" \
    "$res/bench-new-1.data.json" "$res/bench-new-2.data.json" | tail -1
}

phase_class() {
  local list name=class${LT_SPLITS:+-lt-splits-$LT_SPLITS}
  list=$(class_shapes class "${CLASSES:-long_k}")
  rm -f "$work/$name.db"*
  timed "tune-$name" sgemm-tune tune --shapes "$list" --db "$work/$name.db" --json \
    ${LT_SPLITS:+--lt-splits "$LT_SPLITS"}
  timed "bench-$name" timeout 200 sgemm-tune bench --shapes "$list" --db "$work/$name.db" \
    --lt-algos 8 --json "$res/bench-$name.data.json"
  python3 tools/bench/ceilings.py "$res/bench-$name.data.json" --rows
  [[ -z ${TWINS:-} ]] || python3 tools/bench/tuning_cost.py twins "$work/$name.db" $TWINS |
    tee "$res/twins.txt"
}

phase_placement() {
  restore_new_db
  local list run db=${DB:-$work/new.db}
  list=$res/placement.csv
  {
    echo 'm,n,k,transa,transb,lda'
    for pad in 0 2 4 6; do echo "9,37,53,N,N,$((9 + pad))" "27,54,17,N,N,$((27 + pad))"; done |
      tr ' ' '\n'
  } > "$list"
  for run in 1 2; do
    timed "placement-$run" timeout 120 sgemm-tune bench --shapes "$list" --db "$db" \
      --json "$res/placement-$run.data.json"
    grep -E '^NN' "$res/placement-$run.json" | cut -c1-90
  done
}

phase_suites() {
  local list
  restore_new_db
  for list in ${SUITES:-sweep public}; do
    timed "bench-$list" timeout "${BENCH_SECONDS:-300}" sgemm-tune bench --shapes "configs/shapes/$list.csv" \
      --db "$work/new.db" --lt-algos 8 --json "$res/bench-$list.data.json"
    tail -4 "$res/bench-$list.json"
  done
}

phase_retune() {
  cp "${STATE_DB:-.device-state/h100.db}" "$work/new.db"
  timed retune sgemm-tune tune --shapes "$SHAPES" --db "$work/new.db" --retune --json ${TUNE_ARGS:-}
  grep -E "^info: (NN|NT|TN|TT) .*us, cuBLAS" "$res/retune.log" | cut -c1-220
  local model=h100
  nvidia-smi -L | grep -q H200 && model=h200
  sgemm-tune export --db "$work/new.db" --winners-only -o "$res/nvidia-$model.json"
  cp "$SHAPES" "$work/new.db" "$res/"
}

phase_compare() {
  local db
  restore_new_db
  for db in new:$work/new.db before:${STATE_DB:-.device-state/h100.db}; do
    timed "compare-${db%%:*}" timeout "${BENCH_SECONDS:-300}" sgemm-tune bench --shapes "$SHAPES" \
      --db "${db#*:}" --lt-algos 8 --json "$res/compare-${db%%:*}.data.json"
    tail -3 "$res/compare-${db%%:*}.json"
  done
}

phase_profile() {
  local db=${DB:-$work/new.db} row
  restore_new_db
  [[ -f $db ]] || { echo "no database at $db (set DB)"; return 1; }
  local rows=(${PROBLEMS:-280,197,82012 8371,12994,15 78312,116,308 3548,1167,2195})
  for row in "${rows[@]}"; do
    local list kernels name=${row//,/x}
    list=$(shapes "p-$name" "$row")
    # The route's own kernels (sgemm_*) and cuBLAS's, each in a window of its own: one window
    # over the interleaved rounds lands on whichever kernels come first.
    : > "$res/ncu-$name.txt"
    for kernels in "^sgemm_" "xmma|cutlass|gemv"; do
      timeout 150 ncu --clock-control none --kernel-name regex:"$kernels" --launch-skip 8 \
        --launch-count 6 --section SpeedOfLight --section LaunchStats --section Occupancy \
        --section MemoryWorkloadAnalysis --section WarpStateStats \
        sgemm-tune bench --shapes "$list" --db "$db" --lt-algos 0 >> "$res/ncu-$name.txt" 2>&1
    done
    echo "== $name: ncu exit $?"
    grep -E "^  [a-zA-Z_].*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Registers Per|Grid Size|Block Size|Achieved Occupancy|Warp Cycles Per Issued" \
      "$res/ncu-$name.txt" | head -40
  done
}
