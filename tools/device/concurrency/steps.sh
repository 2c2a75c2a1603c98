# The dispatcher under threads and streams.
#   tier (default): the concurrency tier of the GPU tests (every route kind under every calling
#     pattern, bit for bit against the call made alone), the dispatcher tests, the per-problem
#     table of tools/bench/concurrency_table on the shipped database, and tools/bench/
#     dispatch_overhead (host cost of a warm call);
#   memcheck: compute-sanitizer memcheck over the mixed-kind patterns and the short-lived streams
#     (ThreadWithNoCurrentContext is left out: its probe launch fails on purpose);
#   racecheck: compute-sanitizer racecheck over one mixed pattern (slow: more than 4 minutes).
default_phase=tier

phase_tier() {
  gpu_tests concurrency 'RouteKinds/Concurrency.*:ConcurrencyStreams.*:ConcurrencyThreads.*' 240
  grep -hE "^\[ (calls|probe) " "$res/concurrency.log" | tee "$res/calls.txt"
  grep -oE ': [0-9]+ calls' "$res/calls.txt" | awk '{ n += $2 } END { print "calls in the tier: " n }'
  gpu_tests dispatcher 'Dispatcher*' 90
  sgemm-tune import tuner_db/nvidia-h200.json --db "$work/shipped.db" > "$res/import.log" 2>&1
  echo "import: exit $?"
  timed table timeout 120 concurrency_table --db "$work/shipped.db" --repeats 4 --markdown "$res/table.md"
  cat "$res/table.json"
  timed overhead timeout 60 dispatch_overhead
  cat "$res/overhead.json"
}
phase_memcheck() {
  sanitize memcheck 'RouteKinds/Concurrency.*/mixed__*:ConcurrencyStreams.*' 200 memcheck
  cp "$out/memcheck.log" "$res/"
}
phase_racecheck() {
  sanitize racecheck 'RouteKinds/Concurrency.*/mixed__alternating_streams' 500 racecheck
  cp "$out/racecheck.log" "$res/"
}
