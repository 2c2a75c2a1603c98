# libsgemm_cublas in unmodified programs (docs/interposer.md):
#   tests (default): the interposer's GPU tests (tests/gpu/interposer_test.cpp: an application
#     calling cuBLAS directly, run with and without LD_PRELOAD in every calling mode);
#   frameworks: tests/interposer/check_frameworks.py for $FRAMEWORKS (default: torch cupy) on the
#     public suite, served from $DB (a tuning database; e.g. .device-state/new.db brought from a
#     tuning-cost visit) or else from the export $DUMP (default tuner_db/nvidia-h200.json), with
#     the ratios of $BENCH (a `sgemm-tune bench --json` of the public suite) beside its own when
#     given;
#   loop: record -> tune --from-misses -> replay in an unmodified PyTorch program
#     (tests/interposer/check_loop.py on tests/interposer/loop-shapes.csv), from $DB or $DUMP.
default_phase=tests

phase_tests() {
  gpu_tests interposer 'Interposer.*' 240
}

phase_frameworks() {
  local source=() bench=() framework
  if [[ -n ${DB:-} ]]; then
    source=(--db "$DB")
  else
    source=(--dump "${DUMP:-tuner_db/nvidia-h200.json}" --tune-binary "$dist/bin/sgemm-tune")
  fi
  [[ -n ${BENCH:-} ]] && bench=(--bench "$BENCH")
  for framework in ${FRAMEWORKS:-torch cupy}; do
    timeout "${FRAMEWORK_SECONDS:-240}" python3 tests/interposer/check_frameworks.py \
      --framework "$framework" --interposer "$dist/lib/libsgemm_cublas.so" "${source[@]}" \
      --shapes configs/shapes/public.csv --samples 10 "${bench[@]}" \
      --report "$res/$framework.txt" > "$res/$framework.log" 2>&1
    echo "$framework check: exit $?"
    tail -30 "$res/$framework.log"
  done
}

phase_loop() {
  local source=(--dump "${DUMP:-tuner_db/nvidia-h200.json}")
  [[ -n ${DB:-} ]] && source=(--db "$DB")
  timeout "${LOOP_SECONDS:-300}" python3 tests/interposer/check_loop.py \
    --interposer "$dist/lib/libsgemm_cublas.so" --tune-binary "$dist/bin/sgemm-tune" \
    "${source[@]}" --shapes tests/interposer/loop-shapes.csv --report "$res/loop.txt" \
    > "$res/loop.log" 2>&1
  echo "loop check: exit $?"
  tail -20 "$res/loop.log"
}
