# F2's 128-accumulator tiles with K split or streamed (split_k.yaml, stream_k.yaml) on the public
# problems with too few tiles for 132 SMs (shapes.csv).
#   explore (default): every point of both spaces, exhaustive, into a fresh database;
#   retune: F2's WideTiles GPU test (unless TESTS=0; it exists while those points are in
#     configs/spaces), then SHAPES (default shapes.csv) tuned again on $BASE (default the shipped
#     database) with every default space, and, unless BENCH=0, the public suite benched.
default_phase=explore

phase_explore() {
  tune_into explore 150 "$dir/shapes.csv" "$dir" --strategy exhaustive
}

phase_retune() {
  [[ ${TESTS:-1} == 1 ]] && gpu_tests gpu-tests-wide 'F2Tma.WideTiles*' 120
  retune_shipped "${SHAPES:-$dir/shapes.csv}" 150
  [[ ${BENCH:-1} == 1 ]] && bench_public "$work/nvidia-h200.json"
}
