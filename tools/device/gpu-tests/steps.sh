# The GPU test tier and compute-sanitizer on the GPU machine.
#   tests: every GPU test (FILTER: a gtest filter instead; TEST_TIMEOUT, default 170 s);
#   tier (default): the tests, then memcheck and racecheck over the edge-shape sample of every
#     family, and the compile throughput of tune --compile-only on all cores, cold and warm cache;
#   tune: SHAPES (default configs/shapes/quick.csv) tuned with SETTINGS (default
#     configs/measure.yaml; TUNE_ARGS: more tune options) into a fresh database, listed, and its
#     candidates counted by family and outcome;
#   sanitize: memcheck and racecheck over the larger correctness tests (padded leading dimensions,
#     misaligned pointers, every transpose); racecheck of f1_simt does not finish in its box.
#   windows: F1's GPU tests of CWIN, then memcheck and racecheck over their sanitizer sample.
default_phase=tier

phase_tests() {
  gpu_tests gpu-tests "${FILTER:-*}" "${TEST_TIMEOUT:-170}"
}

phase_tier() {
  phase_tests
  sanitize memcheck 'Families/FamilyCorrectness.SanitizerSample/*' 70 memcheck-sample
  sanitize racecheck 'Families/FamilyCorrectness.SanitizerSample/f4_skinny' 60 racecheck-sample-f4
  sanitize racecheck 'Families/FamilyCorrectness.SanitizerSample/f1_simt' 130 racecheck-sample-f1
  sanitize racecheck 'F1Windows.SanitizerSample' 120 racecheck-f1-windows
  nproc | tee "$res/cores.txt"
  local cache=$SGEMM_CACHE_DIR
  export SGEMM_CACHE_DIR=$work/compile-cache
  rm -rf "$SGEMM_CACHE_DIR"
  local one
  one=$(shapes one 4096,4096,4096)
  for pass in cold warm; do
    timed "compile-$pass" sgemm-tune tune --compile-only --shapes "$one" --space "$space" \
      --db "$work/compile.db" --json
  done
  grep -h '"candidates_per_second"\|"cache_hits"\|"candidates"' "$res"/compile-*.json | tail -8
  export SGEMM_CACHE_DIR=$cache
}

phase_tune() {
  rm -f "$res/tuning.db"*
  timeout "${TUNE_TIMEOUT:-300}" sgemm-tune tune --shapes "${SHAPES:-$dist/configs/shapes/quick.csv}" \
    --db "$res/tuning.db" --settings "${SETTINGS:-configs/measure.yaml}" --space "$space" \
    ${TUNE_ARGS:-} > "$res/tune.txt" 2> "$res/tune.log"
  echo "tune: exit $?"
  tail -20 "$res/tune.txt"
  sgemm-tune list --db "$res/tuning.db" | tee "$res/list.txt"
  sqlite3 "$res/tuning.db" "select family, outcome, count(*) from candidates group by 1, 2" 2> /dev/null ||
    true
}

phase_windows() {
  gpu_tests gpu-tests-windows 'F1Windows.*' 150
  sanitize memcheck 'F1Windows.SanitizerSample' 60 memcheck-f1-windows
  sanitize racecheck 'F1Windows.SanitizerSample' 120 racecheck-f1-windows
}

phase_sanitize() {
  sanitize memcheck 'Families/FamilyCorrectness.EdgeShapesAllTransposes/f4_skinny' 100 memcheck-f4-edges
  sanitize memcheck 'Families/FamilyCorrectness.PaddedLeading*' 120 memcheck-padded
  sanitize racecheck 'Families/FamilyCorrectness.PaddedLeading*/f4_skinny' 100 racecheck-f4-padded
  sanitize racecheck 'Families/FamilyCorrectness.PaddedLeading*/f1_simt' 120 racecheck-f1-padded
}
