#!/usr/bin/env bash
# F4 on 64x64x65536 (tools/device/f4_long_k/) on the H200, each phase one device command of at
# most 10 minutes:
#   PHASE=explore: Nsight Compute (--clock-control none, caches flushed before each kernel) over
#     bench of the shipped winner: sgemm_main's and sgemm_reduce's durations, occupancy, warp
#     stalls and pipe use, to ncu.txt; then every point of f4_long_k/wide_grid.yaml (more waves
#     of blocks, more blocks per SM) into a fresh database, cuBLAS timed in the same rounds;
#   PHASE=dealt (needs tools/bench/results/2026-12-03-f4-long-k/experimental-knobs.patch applied):
#     every point of f4_long_k/dealt.yaml (KINT 0 and 1, BK up to 128), then the GPU tests of
#     F4's dealt splits (KINT = 1), in-kernel sums and both L2 policies;
#   PHASE=wide (the same patch): every point of f4_long_k/wide_thread_tile.yaml (8 x 16 accumulators per thread)
#     on 64x64x65536, and of wide_thread_tile_n16.yaml on f4_long_k/n16.csv;
#   PHASE=retune: F4's GPU tests and memcheck sample on the default space, then the public
#     problems F4 claims (f4_long_k/f4_public.csv) tuned again on the shipped database with every
#     default space (--retune --lt-algos 8), the winners exported (nvidia-h200.json);
#   PHASE=bench: 4096x16x4096's former and new winners and their neighbours
#     (f4_long_k/n16_old_new.yaml) in the same rounds, then the public suite benched on $BASE
#     (default the shipped database).
# Output: $OUT/long-k-$PHASE.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-long-k
dir=tools/device/f4_long_k

gpu_facts
case ${PHASE:-explore} in
  explore)
    sgemm-tune import tuner_db/nvidia-h200.json --db "$work/base.db" > "$res/import.log" 2>&1
    timeout 200 ncu --clock-control none --cache-control all --launch-count 6 -k regex:"sgemm_" \
      --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      sgemm-tune bench --shapes $dir/long_k.csv --db "$work/base.db" --lt-algos 0 > "$res/ncu.txt" 2>&1
    echo "ncu: exit $?"
    grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Compute \(SM\)|Registers Per|Block Size|Grid Size|Achieved Occ|Issue Slots|Warp Cycles Per Issued|Theoretical Occ" "$res/ncu.txt" | head -80
    tune_into explore 330 $dir/long_k.csv $dir/wide_grid.yaml --strategy exhaustive
    ;;
  dealt)
    tune_into dealt 240 $dir/long_k.csv $dir/dealt.yaml --strategy exhaustive
    gpu_tests gpu-tests-dealt 'F4DealtSplits.*:InKernelReduce/FusedReduce.*/f4_skinny:F4L2Policy.*' 300
    ;;
  wide)
    tune_into wide 240 $dir/long_k.csv $dir/wide_thread_tile.yaml --strategy exhaustive
    tune_into wide-n16 240 $dir/n16.csv $dir/wide_thread_tile_n16.yaml --strategy exhaustive
    ;;
  retune)
    gpu_tests gpu-tests-f4 'F4L2Policy.*:F4Direct.*:Families/FamilyCorrectness.*/f4_skinny:InKernelReduce/FusedReduce.*/f4_skinny' 200
    sanitize memcheck 'Families/FamilyCorrectness.SanitizerSample/f4_skinny' 90 memcheck-f4
    cp "$out/memcheck-f4.log" "$res/"
    retune_shipped $dir/f4_public.csv 240
    ;;
  bench)
    tune_into old-new 90 $dir/n16_4096.csv $dir/n16_old_new.yaml --strategy exhaustive
    bench_public "${BASE:-tuner_db/nvidia-h200.json}"
    ;;
esac
tar -C "$res" -czf "$out/long-k-${PHASE:-explore}.tar.gz" .
ls -la "$out"
