# Family F2 (TMA-fed SIMT, sm_90) on the H200.
#   tests (default): its GPU correctness tests (every default configuration at a tail shape, a
#     sample at the edge shapes, all transposes, padded leading dimensions; the family-wide checks;
#     split-K and stream-K sums) and memcheck, racecheck and synccheck over its sanitizer sample;
#   tune: its default space (SPACE: another space) over large.csv, the best confirmed in
#     interleaved rounds with cuBLAS, into a fresh database;
#   refresh: the shipped database imported and RETUNE (default retune.csv: the aligned public
#     problems no own kernel had won; split_k.csv: those with too few tiles for 132 SMs) tuned
#     again with F2's default spaces alone (--retune --lt-algos 8), the winners exported;
#   bench: the public suite benched on that export, or on $BASE (default the shipped database).
default_phase=tests

phase_tests() {
  gpu_tests gpu-tests-f2 'F2Tma.*:Families/FamilyCorrectness.*/f2_tma:InKernelReduce/FusedReduce.*/f2_tma' 480
  sanitize memcheck 'Families/FamilyCorrectness.SanitizerSample/f2_tma' 200 memcheck-f2
  sanitize racecheck 'Families/FamilyCorrectness.SanitizerSample/f2_tma' 400 racecheck-f2
  sanitize synccheck 'Families/FamilyCorrectness.SanitizerSample/f2_tma' 400 synccheck-f2
}

phase_tune() {
  timed tune-f2 timeout 520 sgemm-tune tune --shapes "$dir/large.csv" --db "$res/f2.db" \
    --space "${SPACE:-$space/f2_tma.yaml}" --settings "$settings" --lt-algos 0 --json
  sgemm-tune report --db "$res/f2.db" > "$res/report.txt" 2>&1
  head -60 "$res/report.txt"
}

phase_refresh() {
  mkdir -p "$work/f2-space"
  cp "$space"/f2_tma*.yaml "$work/f2-space/"
  space=$work/f2-space
  retune_shipped "${RETUNE:-$dir/retune.csv}" 500
}

phase_bench() {
  local db=${BASE:-tuner_db/nvidia-h200.json}
  [[ -f $work/nvidia-h200.json ]] && db=$work/nvidia-h200.json
  bench_public "$db"
}
