# F1's split-K summed in the kernel by the last split of each tile (REDUCE = 1).
#   tests (default): the GPU tests of every in-kernel reduction (F1, F2 split-K and stream-K, F4),
#     F1's family-wide checks and F2's edge shapes, then memcheck over F1's sanitizer sample and
#     F1's in-kernel sum on padded and misaligned operands.
# The public suite is tuned again with tools/device/run.sh shipped-db retune bench.
default_phase=tests

phase_tests() {
  gpu_tests gpu-tests-reduce 'InKernelReduce/FusedReduce.*:Families/FamilyCorrectness.*/f1_simt:F2Tma.EdgeShapes*' 420
  sanitize memcheck 'Families/FamilyCorrectness.SanitizerSample/f1_simt:InKernelReduce/FusedReduce.PaddedLeadingDimensionsAndMisalignedPointers/f1_simt' 170 memcheck-f1
}
