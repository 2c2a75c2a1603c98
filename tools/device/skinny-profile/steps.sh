# The skinny problems: does a power-of-two leading dimension slow the streams, and where does
# cuBLAS's GEMV gain on F4's register-streaming path?
#   stride (default): F4's default space (--max-candidates 64) on stride.csv (each skinny public
#     problem at its own lda and at a padded or power-of-two one), cuBLAS in the same rounds;
#   gemv: Nsight Compute (clocks untouched) over bench of 4096x1x4096 on a database whose winner is
#     F4's best DIRECT point (direct-winner.json): F4 under --cache-control none and all, then
#     cuBLAS's kernel under none; then the bench itself;
#   waves: F4 exhaustively over a space wider than its default (K split into 2 and 4 waves of
#     blocks, BS 8 and 32, 4 stages; $wide_space) on the sweep's skinny problems that stream
#     furthest below the bandwidth ($SKINNY: rows "M,N,K", NN at their own leading dimensions),
#     cuBLAS in the same rounds; then Nsight Compute over the bench of the first $PROFILED
#     (default 2) on the new database and on the shipped one.
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

wide_space="family: f4_skinny
description: F4 wider than its default space, around the skinny problems
knobs:
  BS: [1, 4, 8, 16, 32, 64]
  TS: [1, 4, 8, 16]
  TG: [4, 8]
  WARPS: [8, 16]
  KSL: [1, 4, 8]
  BK: [32, 64]
  STAGES: [3, 4, 6]
  SPLITK: [0, 1, 2, 4]
  OCC: [8, 16]
  DIRECT: [0]
  PF: [0]
  REDUCE: [0, 1]
  EVICT: [1]"

phase_waves() {
  local rows=(${SKINNY:-5,8835,2842 39030,8,1151 32,4306,1077 24011,24,1336 1,11604,4143 12855,2,1138})
  local list row
  list=$(shapes skinny "${rows[@]}")
  echo "$wide_space" > "$res/wide.yaml"
  tune_into waves 330 "$list" "$res/wide.yaml" --strategy exhaustive
  sgemm-tune import tuner_db/nvidia-h200.json --db "$work/shipped.db" > "$res/import.log" 2>&1
  for row in "${rows[@]:0:${PROFILED:-2}}"; do
    local one db
    one=$(shapes "p-${row//,/x}" "$row")
    for db in waves:$res/waves.db shipped:$work/shipped.db; do
      timeout 60 ncu --clock-control none --kernel-name regex:"^sgemm_|gemv|xmma|cutlass|splitK" \
        --launch-skip 4 --launch-count 4 --section SpeedOfLight --section LaunchStats \
        --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats \
        sgemm-tune bench --shapes "$one" --db "${db#*:}" --lt-algos 0 \
        > "$res/ncu-${row//,/x}-${db%%:*}.txt" 2>&1
      echo "== ${row//,/x} on ${db%%:*}: ncu exit $?"
      grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Registers Per|Grid Size|Block Size|Achieved Occupancy|Warp Cycles Per Issued" \
        "$res/ncu-${row//,/x}-${db%%:*}.txt" | head -24
    done
  done
}
