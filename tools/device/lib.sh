# Helpers shared by the device scripts (sourced). $out/$res: where results go.

# timed NAME COMMAND...: stdout to $res/NAME.json, stderr to $res/NAME.log, wall time to NAME.time.
timed() {
  local name=$1; shift
  local t0=$(date +%s%N)
  "$@" > "$res/$name.json" 2> "$res/$name.log"
  local rc=$? t1=$(date +%s%N)
  echo "$name: exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }') s" |
    tee "$res/$name.time"
}

# sanitize TOOL FILTER SECONDS LOG: compute-sanitizer over gpu_tests, time-boxed, to $out/LOG.log.
sanitize() {
  timeout "$3" compute-sanitizer --tool "$1" --error-exitcode 9 "$dist/tests/gpu_tests" --gtest_filter="$2" \
    > "$out/$4.log" 2>&1
  echo "$4: exit $? ($1, $2)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$out/$4.log" | tail -3
}
