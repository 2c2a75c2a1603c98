# F1 with small tiles on the small problems (small.csv): would more, smaller blocks, each holding
# its whole K slice in flight, run 512^3 and 257x511x129 faster?
#   explore (default): every point of small_tiles.yaml, exhaustive, into a fresh database;
#   profile: Nsight Compute (clocks untouched, caches flushed before each kernel) on the first
#     launches of bench with $BASE's winners (default explore-winners.json: the explore phase's):
#     each kernel's own duration, against the event-timed sample;
#   retune: small.csv tuned again on $BASE (default the shipped database) with every default space
#     plus small_tiles_trimmed.yaml (the neighbourhood of the explore phase's best), and, unless
#     BENCH=0, the public suite benched on the export.
default_phase=explore

phase_explore() {
  tune_into small 240 "$dir/small.csv" "$dir/small_tiles.yaml" --strategy exhaustive
}

phase_profile() {
  sgemm-tune import "${BASE:-$dir/explore-winners.json}" --db "$work/base.db" > "$res/import.log" 2>&1
  timeout 300 ncu --clock-control none --cache-control all --launch-count 16 -k regex:"gemm|gemv|xmma" \
    --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    sgemm-tune bench --shapes "$dir/small.csv" --db "$work/base.db" > "$res/ncu-small.txt" 2>&1
  echo "ncu: exit $?"
  grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|Duration|dram__bytes|Registers Per|Block Size|Grid Size|Achieved Occ" "$res/ncu-small.txt" | head -150
}

phase_retune() {
  mkdir -p "$work/spaces"
  cp "$space"/*.yaml "$dir/small_tiles_trimmed.yaml" "$work/spaces/"
  space=$work/spaces
  retune_shipped "$dir/small.csv" 300
  [[ ${BENCH:-1} == 1 ]] && bench_public "$work/nvidia-h200.json"
}
