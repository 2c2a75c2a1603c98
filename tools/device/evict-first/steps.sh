# F4 reading its streamed operand under an L2 evict-first policy (EVICT = 1) or not (0).
#   ab (default): F4's GPU tests (both policies, DIRECT and ring, edge shapes, transposes, padded
#     and misaligned operands) and memcheck over the policy test; then each skinny problem's
#     winner neighbourhood (<problem>.yaml) with EVICT 0 and 1, exhaustive, the best 8 confirmed
#     against cuBLAS, under both cache modes (cold-flush: a 2 x L2 memset before every sample, so
#     L2 starts full of dirty lines; rotate: back-to-back launches) -> summary-<mode>.txt;
#   ncu: Nsight Compute on 4096x16x4096's winner with each policy: duration and DRAM traffic.
default_phase=ab

phase_ab() {
  gpu_tests gpu-tests-f4 'F4L2Policy.*:F4Direct.*:Families/FamilyCorrectness.*/f4_skinny:InKernelReduce/*:CrashIsolation.*' 200
  sanitize memcheck 'F4L2Policy.*' 150 memcheck-evict
  settings_with cold-flush finalists=8 > /dev/null
  settings_with rotate finalists=8 cache=rotate > /dev/null
  for mode in cold-flush rotate; do
    for problem in 4096x16x4096 4096x1x4096 32000x16x4096 64x64x65536 2000x32x6000 65536x64x64; do
      local list
      list=$(shapes "$problem" "${problem//x/,}")
      timed "tune-$mode-$problem" timeout 120 sgemm-tune tune --shapes "$list" --db "$res/$mode.db" \
        --space "$dir/$problem.yaml" --settings "$res/$mode.yaml" --strategy exhaustive --lt-algos 0 \
        --json
    done
    top_candidates "$res/$mode.db" 16 | tee "$res/summary-$mode.txt"
  done
}

phase_ncu() {
  local list cold
  list=$(shapes ncu 4096,16,4096)
  cold=$(settings_with cold-flush finalists=8)
  for evict in 0 1; do
    sed -e "s/^  EVICT: .*/  EVICT: [$evict]/" -e 's/^  KSL: .*/  KSL: [4]/' -e 's/^  STAGES: .*/  STAGES: [3]/' \
      -e 's/^  REDUCE: .*/  REDUCE: [0]/' "$dir/4096x16x4096.yaml" > "$res/ncu-evict$evict.yaml"
    sgemm-tune tune --shapes "$list" --db "$res/ncu-evict$evict.db" --space "$res/ncu-evict$evict.yaml" \
      --settings "$cold" --strategy exhaustive --lt-algos 0 > "$res/ncu-tune-evict$evict.log" 2>&1
    timeout 120 ncu --clock-control none --cache-control none --kernel-name regex:"^sgemm_(main|reduce)$" \
      --launch-skip 4 --launch-count 12 \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
      --csv sgemm-tune bench --shapes "$list" --db "$res/ncu-evict$evict.db" --lt-algos 0 \
      > "$res/ncu-4096x16x4096-evict$evict.csv" 2> "$res/ncu-evict$evict.log"
    echo "ncu EVICT=$evict: exit $?"
  done
}
