# F2 on transposed copies of its K-contiguous operands (PACK = 2: NN's B, TN's A and B, TT's A
# copied by sgemm_pack_transposed, so that sgemm_main reads NT's layout).
#   explore (default): the transposing and packing GPU tests, F2's family-wide checks, memcheck
#     over the packing sample, then every point of f2_tma_transposed.yaml on large.csv and F2's
#     in-place default space on the same problems, each into a fresh database;
#   retune: the problems an F2 template change touches (retune.csv) tuned again on $BASE (default
#     the shipped database) with every default space, the winners exported and, unless BENCH=0,
#     the public suite benched on the export.
default_phase=explore

phase_explore() {
  gpu_tests gpu-tests-f2 'F2Tma.Transposed*:F2Tma.Packed*:Families/FamilyCorrectness.*/f2_tma' 240
  sanitize memcheck 'F2Tma.PackedSanitizerSample' 90 memcheck-pack
  tune_into transposed 150 "$dir/large.csv" "$space/f2_tma_transposed.yaml" --strategy exhaustive
  tune_into in-place 120 "$dir/large.csv" "$space/f2_tma.yaml"
}

phase_retune() {
  retune_shipped "$dir/retune.csv" 400
  [[ ${BENCH:-1} == 1 ]] && bench_public "$work/nvidia-h200.json"
}
