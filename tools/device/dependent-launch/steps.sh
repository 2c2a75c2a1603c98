# A call's second kernel launched as a programmatic dependent of its first
# (kernel_templates/grid_dependency.cuh; SGEMM_DEPENDENT_LAUNCH=0 makes every launch plain).
#   ab (default): each two-kernel winner of the shipped database and its one-kernel twin
#     (<name>.yaml), exhaustive, cuBLAS in the same interleaved rounds, with dependent launches (1)
#     and plain ones (0) -> ab-<mode>-<name>.*; then the GPU tests of every path with a second
#     kernel and memcheck over the families' sanitizer sample and F2's packed sample;
#   tests: the rest of the GPU tests of split-K, in-kernel sums, the skinny paths, the tuner and
#     crash isolation;
#   retune: the public suite tuned again on the shipped database with every default space,
#     exported, and benched with dependent launches on (bench.*) and off (bench-plain.*).
default_phase=ab

phase_ab() {
  local problems=(long_k:64,64,65536 n16:4096,16,4096 small:512,512,512 packed:8192,8192,64)
  for entry in "${problems[@]}"; do
    local name=${entry%%:*} list
    list=$(shapes "$name" "${entry#*:}")
    for mode in 1 0; do
      SGEMM_DEPENDENT_LAUNCH=$mode tune_into "ab-$mode-$name" 90 "$list" "$dir/$name.yaml" \
        --strategy exhaustive
    done
  done
  gpu_tests gpu-tests 'Dispatcher.*:DispatcherRuntime.*:F2Tma.PackedOperandsEveryConfigurationEdgeShapesPaddedAndMisaligned:Families/FamilyCorrectness.EdgeShapesAllTransposes/*:InKernelReduce/FusedReduce.RepeatedRunsOnOneWorkspaceAgreeBitForBit/*' 240
  sanitize memcheck 'Families/FamilyCorrectness.SanitizerSample/*:F2Tma.PackedSanitizerSample' 120 memcheck
}

phase_tests() {
  gpu_tests gpu-tests-rest 'Families/FamilyCorrectness.PaddedLeadingDimensionsAndMisalignedPointers/*:InKernelReduce/FusedReduce.EdgeShapesAllTransposes/*:InKernelReduce/FusedReduce.PaddedLeadingDimensionsAndMisalignedPointers/*:F4Direct.*:TunerGpu.*:CrashIsolation.*' 200
}

phase_retune() {
  retune_shipped configs/shapes/public.csv 400
  tar -C "$res" -czf "$tarball" .  # kept if the benches run out of time
  bench_public "$work/nvidia-h200.json"
  timed bench-plain env SGEMM_DEPENDENT_LAUNCH=0 timeout 100 sgemm-tune bench \
    --shapes configs/shapes/public.csv --db "$res/bench.db" --lt-algos 8 --json "$res/bench-plain.data.json"
  cat "$res/bench-plain.json"
}
