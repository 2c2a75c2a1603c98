#!/usr/bin/env bash
# Where cuBLAS's GEMV gains on F4's register-streaming path (DIRECT) on 4096x1x4096: Nsight
# Compute over `bench` of a database whose winner is F4's best DIRECT point
# (tools/device/f4_gemv/direct-winner.json): F4 under ncu's --cache-control none and all, then
# cuBLAS's kernel under none; then the bench itself. One device command. Output: $OUT/gemv.tar.gz. Never touches clocks or GPU
# settings (--clock-control none).
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-gemv
dir=tools/device/f4_gemv

gpu_facts
sgemm-tune import $dir/direct-winner.json --db "$work/direct.db" > "$res/import.log" 2>&1
echo "import: exit $?"
metrics=dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,sm__cycles_active.avg,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read.sum
# The bench times the tuned kernel's samples before cuBLAS's, so each library gets its own pass.
for pass in "none own sgemm_main" "all own sgemm_main" "none cublas gemv|cutlass|xmma|ampere|sm90|splitK|Kernel|kernel"; do
  read -r cache who kernels <<< "$pass"
  timeout 200 ncu --clock-control none --cache-control $cache --launch-count 6 -k regex:"$kernels" \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
    --section MemoryWorkloadAnalysis --metrics $metrics \
    sgemm-tune bench --shapes $dir/gemv.csv --db "$work/direct.db" --lt-algos 0 > "$res/ncu-$who-cache-$cache.txt" 2>&1
  echo "ncu ($who, cache $cache): exit $?"
  grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|dram__bytes|Registers Per|Block Size|Grid Size|Achieved Occ|Warp Cycles Per Issued|Theoretical Occ|gpu__time|lts__t_sectors" "$res/ncu-$who-cache-$cache.txt" | head -36
done
timeout 60 sgemm-tune bench --shapes $dir/gemv.csv --db "$work/direct.db" --lt-algos 8 > "$res/bench.txt" 2>&1
cat "$res/bench.txt"
tar -C "$res" -czf "$out/gemv.tar.gz" .
