# F4 on 64x64x65536 (where do its 25 us go?) and BK 64 on the N = 16 problems.
#   explore (default): Nsight Compute (clocks untouched, caches flushed before each kernel) over
#     bench of the shipped 64x64x65536 winner: sgemm_main's and sgemm_reduce's durations,
#     occupancy, warp stalls and pipe use (ncu.txt); then every point of wide_grid.yaml (more
#     waves of splits, more blocks per SM) into a fresh database;
#   retune: F4's GPU tests and memcheck sample, then the public problems F4 claims (f4_public.csv)
#     tuned again on the shipped database with every default space;
#   bench: 4096x16x4096's former and new winners and their neighbours (n16_old_new.yaml) in the
#     same rounds, then the public suite benched on $BASE (default the shipped database).
default_phase=explore

phase_explore() {
  local long_k
  long_k=$(shapes long_k 64,64,65536)
  sgemm-tune import tuner_db/nvidia-h200.json --db "$work/base.db" > "$res/import.log" 2>&1
  timeout 200 ncu --clock-control none --cache-control all --launch-count 6 -k regex:"sgemm_" \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    sgemm-tune bench --shapes "$long_k" --db "$work/base.db" --lt-algos 0 > "$res/ncu.txt" 2>&1
  echo "ncu: exit $?"
  grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Compute \(SM\)|Registers Per|Block Size|Grid Size|Achieved Occ|Issue Slots|Warp Cycles Per Issued|Theoretical Occ" "$res/ncu.txt" | head -80
  tune_into explore 330 "$long_k" "$dir/wide_grid.yaml" --strategy exhaustive
}

phase_retune() {
  gpu_tests gpu-tests-f4 'F4L2Policy.*:F4Direct.*:Families/FamilyCorrectness.*/f4_skinny:InKernelReduce/FusedReduce.*/f4_skinny' 200
  sanitize memcheck 'Families/FamilyCorrectness.SanitizerSample/f4_skinny' 90 memcheck-f4
  retune_shipped "$dir/f4_public.csv" 240
}

phase_bench() {
  tune_into old-new 90 "$(shapes n16 4096,16,4096)" "$dir/n16_old_new.yaml" --strategy exhaustive
  bench_public "${BASE:-tuner_db/nvidia-h200.json}"
}
