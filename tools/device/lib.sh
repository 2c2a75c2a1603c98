# Helpers shared by the experiments of tools/device/run.sh (sourced). $out/$res: where results go.

# visit_setup WORK: $out ($OUT), an empty results folder $res (packed into one tarball at the end,
# since a device command returns at most 8 files), the work folder WORK ($work) with the compile
# cache, and the environment that runs the packed binaries of .device-dist ($dist, $space, and
# the shipped measurement settings $settings; the tests that run the tuner find it through
# SGEMM_TUNE_TEST_FAMILIES_BINARY; the interposer's, through SGEMM_CUBLAS_INTERPOSER and
# SGEMM_CUBLAS_APP).
visit_setup() {
  out=${OUT:-/tmp/sgemm-out}
  res=/tmp/sgemm-visit
  work=$1
  rm -rf "$res"; mkdir -p "$res" "$work" "$out"
  dist=$PWD/.device-dist
  export SGEMM_SOURCE_DIR=$dist
  export LD_LIBRARY_PATH=$dist/lib:$dist/tests${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export SGEMM_CACHE_DIR=$work/cache
  export PATH=$dist/bin:$PATH
  export SGEMM_TUNE_TEST_FAMILIES_BINARY=$dist/tests/sgemm-tune-test-families
  export SGEMM_CUBLAS_INTERPOSER=$dist/lib/libsgemm_cublas.so SGEMM_CUBLAS_APP=$dist/tests/cublas_app
  space=$dist/configs/spaces
  settings=configs/measure.yaml
}

# timed NAME COMMAND...: stdout to $res/NAME.json, stderr to $res/NAME.log, wall time to NAME.time.
timed() {
  local name=$1; shift
  local t0=$(date +%s%N)
  "$@" > "$res/$name.json" 2> "$res/$name.log"
  local rc=$? t1=$(date +%s%N)
  echo "$name: exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }') s" |
    tee "$res/$name.time"
}

# sanitize TOOL FILTER SECONDS LOG: compute-sanitizer over gpu_tests, time-boxed, to $res/LOG.log.
sanitize() {
  timeout "$3" compute-sanitizer --tool "$1" --error-exitcode 9 "$dist/tests/gpu_tests" --gtest_filter="$2" \
    > "$res/$4.log" 2>&1
  echo "$4: exit $? ($1, $2)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$res/$4.log" | tail -3
}

# gpu_facts: name, unit UUID, driver, clocks, temperature, power, power limits and throttle reasons,
# to $res/gpu.txt.
gpu_facts() {
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit,enforced.power.limit,clocks_event_reasons.active \
    --format=csv > "$res/gpu.txt" 2>&1
  cat "$res/gpu.txt"
}

# gpu_tests NAME FILTER SECONDS: the GPU tests matching FILTER, time-boxed, to $res/NAME.{log,json};
# prints the summary and the first failures.
gpu_tests() {
  local t0=$(date +%s)
  timeout "$3" "$dist/tests/gpu_tests" --gtest_filter="$2" --gtest_output="json:$res/$1.json" \
    > "$res/$1.log" 2>&1
  echo "gpu_tests ($2): exit $?, $(($(date +%s) - t0)) s"
  grep -E "^\[  (PASSED|FAILED|SKIPPED)|tests ran" "$res/$1.log" | tail -8
  grep -E "Failure" -A4 "$res/$1.log" | head -30
}

# bench_public JSON: the public suite benched on the winners of JSON (an exported database)
# against cuBLAS and cuBLASLt's best of 8, to $res/bench.{json,log} and $res/bench.data.json.
bench_public() {
  sgemm-tune import "$1" --db "$res/bench.db" > "$res/import.log" 2>&1
  echo "import: exit $?"
  timed bench timeout 420 sgemm-tune bench --shapes configs/shapes/public.csv --db "$res/bench.db" \
    --lt-algos 8 --json "$res/bench.data.json"
  cat "$res/bench.json"
}

# tune_into NAME SECONDS SHAPES SPACE [TUNE ARGS...]: SHAPES tuned over SPACE into a fresh
# $res/NAME.db (timed, to $res/NAME.{json,log}); prints each problem's result line.
tune_into() {
  local name=$1 seconds=$2 shapes=$3 file=$4; shift 4
  timed "$name" timeout "$seconds" sgemm-tune tune --shapes "$shapes" --db "$res/$name.db" \
    --space "$file" --settings "$settings" --json "$@"
  grep -E "^info: (NN|NT|TN|TT) " "$res/$name.log" | cut -c1-300
}

# retune_shipped SHAPES SECONDS [TUNE ARGS...]: $BASE (an exported database; default the shipped
# one) imported into $work/shipped.db unless an earlier command of this experiment left it
# there, SHAPES tuned again there with $space (--retune --lt-algos 8; to
# $res/retune.{json,log}), the winners exported to $work/nvidia-h200.json; both copied to $res.
retune_shipped() {
  local shapes=$1 seconds=$2; shift 2
  local db=$work/shipped.db
  if [[ ! -f $db ]]; then
    sgemm-tune import "${BASE:-tuner_db/nvidia-h200.json}" --db "$db" > "$res/import.log" 2>&1
    echo "import: exit $?"
  fi
  timed retune timeout "$seconds" sgemm-tune tune --shapes "$shapes" --db "$db" \
    --space "$space" --settings "$settings" --retune --lt-algos 8 --json "$@"
  grep -E "^info: (NN|NT|TN|TT) " "$res/retune.log" | cut -c1-260
  sgemm-tune export --db "$db" --winners-only -o "$work/nvidia-h200.json" > "$res/export.log" 2>&1
  echo "export: exit $?"
  cp "$db" "$work/nvidia-h200.json" "$res/"
}

# shapes NAME ROW...: the shape list $res/NAME.csv of ROWs ("M,N,K", transposes NN, or
# "M,N,K,TA,TB"); prints its path.
shapes() {
  local name=$1 row; shift
  {
    echo 'm,n,k,transa,transb'
    for row in "$@"; do [[ $row == *,*,*,*,* ]] && echo "$row" || echo "$row,N,N"; done
  } > "$res/$name.csv"
  echo "$res/$name.csv"
}

# class_shapes NAME CLASSES: the sweep's problems of the classes CLASSES (space-separated names of
# its class column) as $res/NAME.csv; prints its path.
class_shapes() {
  grep -v '^#' configs/shapes/sweep.csv | awk -F, -v want="$2" '
    BEGIN { n = split(want, w, " "); for (i = 1; i <= n; ++i) keep[w[i]] = 1 }
    NR == 1 || ($11 in keep)' > "$res/$1.csv"
  echo "$res/$1.csv"
}

# settings_with NAME KEY=VALUE...: the settings of $settings with each KEY set to VALUE,
# as $res/NAME.yaml; prints its path.
settings_with() {
  local file=$res/$1.yaml kv; shift
  grep -v '^#' "$settings" > "$file"
  for kv in "$@"; do
    sed -i "/^${kv%%=*}:/d" "$file"
    echo "${kv%%=*}: ${kv#*=}" >> "$file"
  done
  echo "$file"
}

# top_candidates DB [COUNT]: each problem's best COUNT candidates of a tuning database by
# screening median (final and screening medians, cuBLAS in the same rounds, registers, spills).
top_candidates() {
  python3 - "$1" "${2:-25}" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
count = int(sys.argv[2])
print(db.execute("SELECT outcome, count(*) FROM candidates GROUP BY 1").fetchall())
fmt = lambda v: f"{v:8.2f}" if v is not None else f"{'-':>8}"
for pid, m, n, k in db.execute("SELECT id, m, n, k FROM problems ORDER BY id").fetchall():
    print(f"\n{m}x{n}x{k}")
    print(f"{'final':>8} {'screen':>8} {'cuBLAS':>8} regs spill config")
    rows = db.execute("""SELECT final_median_us, screen_median_us, cublas_us, registers, spill_bytes, config
                         FROM candidates WHERE problem_id = ? AND screen_median_us IS NOT NULL
                         ORDER BY screen_median_us LIMIT ?""", (pid, count)).fetchall()
    for final, screen, cublas, regs, spill, config in rows:
        print(f"{fmt(final)} {fmt(screen)} {fmt(cublas)} {regs:4} {spill:5} {config}")
PY
}
