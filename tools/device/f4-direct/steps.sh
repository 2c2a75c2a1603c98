# f4_skinny's two ways of streaming X on the skinny problems: through registers (DIRECT = 1) or
# through the shared-memory ring, each exhaustive over its space, the best 8 confirmed in rounds
# interleaved with cuBLAS (-> summary-<name>.txt).
#   direct (default): F4Direct's GPU tests, then direct-4096x16x4096.yaml and
#     direct-4096x1x4096.yaml (block shapes, K range per block, rows in flight, occupancy,
#     where the splits are summed), then memcheck over the padded and misaligned DIRECT cases;
#   ring: ring-4096x16x4096.yaml (tile along G, stage depth, splits, REDUCE 0 and 1), and
#     pf-4096x1x4096.yaml (DIRECT with the L2 prefetch distance PF);
#   default: the default search (cost model, 128 candidates, short screening) over skinny.csv into
#     a fresh database, the same command again (already tuned), and bench on that database.
default_phase=direct

# exhaustive NAME M,N,K: every point of $dir/NAME.yaml on one problem -> summary-NAME.txt.
exhaustive() {
  local list
  list=$(shapes "$1" "$2")
  timed "tune-$1" timeout 200 sgemm-tune tune --shapes "$list" --db "$res/$1.db" \
    --space "$dir/$1.yaml" --settings "$res/confirm8.yaml" --strategy exhaustive --time-budget 170 --json
  top_candidates "$res/$1.db" 25 > "$res/summary-$1.txt"
  head -14 "$res/summary-$1.txt"
}

phase_direct() {
  settings_with confirm8 finalists=8 > /dev/null
  gpu_tests tests-direct 'F4Direct.*' 150
  exhaustive direct-4096x16x4096 4096,16,4096
  exhaustive direct-4096x1x4096 4096,1,4096
  sanitize memcheck 'F4Direct.PaddedLeadingDimensionsAndMisalignedPointers' 120 memcheck-direct
}

phase_ring() {
  settings_with confirm8 finalists=8 > /dev/null
  exhaustive ring-4096x16x4096 4096,16,4096
  exhaustive pf-4096x1x4096 4096,1,4096
}

phase_default() {
  gpu_tests gpu-tests 'F4Direct.*:InKernelReduce/*' 200
  for run in tune-default tune-default-again; do
    timed "$run" timeout 300 sgemm-tune tune --shapes "$dir/skinny.csv" --db "$res/skinny.db" \
      --settings "$settings" --json
  done
  sgemm-tune list --db "$res/skinny.db" | tee "$res/list.txt"
  timed bench timeout 120 sgemm-tune bench --shapes "$dir/skinny.csv" --db "$res/skinny.db" \
    --lt-algos 8 --json "$res/bench.data.json"
  cat "$res/bench.json"
}
