# The skinny problems: does a power-of-two leading dimension slow the streams, and where does
# cuBLAS's GEMV gain on F4's register-streaming path?
#   stride (default): F4's default space (--max-candidates 64) on stride.csv (each skinny public
#     problem at its own lda and at a padded or power-of-two one), cuBLAS in the same rounds;
#   gemv: Nsight Compute (clocks untouched) over bench of 4096x1x4096 on a database whose winner is
#     F4's best DIRECT point (direct-winner.json): F4 under --cache-control none and all, then
#     cuBLAS's kernel under none; then the bench itself.
default_phase=stride

phase_stride() {
  tune_into stride 400 "$dir/stride.csv" "$space/f4_skinny.yaml" --max-candidates 64
}

phase_gemv() {
  local gemv
  gemv=$(shapes gemv 4096,1,4096)
  sgemm-tune import "$dir/direct-winner.json" --db "$work/direct.db" > "$res/import.log" 2>&1
  echo "import: exit $?"
  local metrics=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,sm__cycles_active.avg,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum
  # bench times the tuned kernel's samples before cuBLAS's, so each library gets its own pass.
  for pass in "none own sgemm_main" "all own sgemm_main" "none cublas gemv|cutlass|xmma|ampere|sm90|splitK|Kernel|kernel"; do
    local cache who kernels
    read -r cache who kernels <<< "$pass"
    timeout 200 ncu --clock-control none --cache-control "$cache" --launch-count 6 -k regex:"$kernels" \
      --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
      --section MemoryWorkloadAnalysis --metrics "$metrics" \
      sgemm-tune bench --shapes "$gemv" --db "$work/direct.db" --lt-algos 0 > "$res/ncu-$who-cache-$cache.txt" 2>&1
    echo "ncu ($who, cache $cache): exit $?"
    grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|dram__bytes|Registers Per|Block Size|Grid Size|Achieved Occ|Warp Cycles Per Issued|Theoretical Occ|gpu__time|lts__t_sectors" "$res/ncu-$who-cache-$cache.txt" | head -36
  done
  timeout 60 sgemm-tune bench --shapes "$gemv" --db "$work/direct.db" --lt-algos 8 > "$res/bench.txt" 2>&1
  cat "$res/bench.txt"
}
