#!/usr/bin/env bash
# Programmatic dependent launch of a call's second kernel (kernel_templates/grid_dependency.cuh),
# on the H200. One device command per phase:
#   PHASE=ab: each two-kernel winner of the shipped database and its one-kernel twin
#     (tools/device/dependent_launch/*.yaml), exhaustive, cuBLAS in the same interleaved rounds,
#     with SGEMM_DEPENDENT_LAUNCH=1 (the default) and =0 (plain launches) -> ab-<mode>-<name>.*;
#     then the GPU tests of every path with a second kernel (split-K reduce, packed operands,
#     graphs, threads) and compute-sanitizer memcheck over the family sample;
#   PHASE=tests: the rest of the GPU tests of split-K, in-kernel sums, the skinny paths, the
#     tuner and crash isolation -> gpu-tests-rest.*;
#   PHASE=retune: the public suite tuned again on the shipped database with every default space
#     (the template change makes every stored winner stale), exported, and benched with dependent
#     launches on and off -> retune.*, nvidia-h200.json, bench.*, bench-plain.*.
# Output: $OUT/dependent-<phase>.tar.gz (and memcheck.log). Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-dependent
dir=tools/device/dependent_launch
phase=${PHASE:-ab}

gpu_facts
case $phase in
  ab)
    for name in long_k n16 small packed; do
      for mode in 1 0; do
        SGEMM_DEPENDENT_LAUNCH=$mode tune_into ab-$mode-$name 90 $dir/$name.csv $dir/$name.yaml \
          --strategy exhaustive
      done
    done
    gpu_tests gpu-tests 'Dispatcher.*:DispatcherRuntime.*:F2Tma.PackedOperandsEveryConfigurationEdgeShapesPaddedAndMisaligned:Families/FamilyCorrectness.EdgeShapesAllTransposes/*:InKernelReduce/FusedReduce.RepeatedRunsOnOneWorkspaceAgreeBitForBit/*' 240
    sanitize memcheck 'Families/FamilyCorrectness.SanitizerSample/*:F2Tma.PackedSanitizerSample' 120 memcheck
    ;;
  tests)
    export SGEMM_TUNE_BINARY=$dist/bin/sgemm-tune
    gpu_tests gpu-tests-rest 'Families/FamilyCorrectness.PaddedLeadingDimensionsAndMisalignedPointers/*:InKernelReduce/FusedReduce.EdgeShapesAllTransposes/*:InKernelReduce/FusedReduce.PaddedLeadingDimensionsAndMisalignedPointers/*:F4Direct.*:TunerGpu.*:CrashIsolation.*' 200
    ;;
  retune)
    retune_shipped configs/shapes/public.csv 400
    tar -C "$res" -czf "$out/dependent-$phase.tar.gz" .  # kept if the benches run out of time
    bench_public "$work/nvidia-h200.json"
    timed bench-plain env SGEMM_DEPENDENT_LAUNCH=0 timeout 100 sgemm-tune bench \
      --shapes configs/shapes/public.csv --db "$res/bench.db" --lt-algos 8 --json "$res/bench-plain.data.json"
    cat "$res/bench-plain.json"
    ;;
esac
tar -C "$res" -czf "$out/dependent-$phase.tar.gz" .
ls -la "$out"
