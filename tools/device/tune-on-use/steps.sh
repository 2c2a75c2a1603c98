# Tuning on use (SGEMM_DISPATCH_TUNE=1, docs/dispatcher.md):
#   tests (default): its GPU tests (every call right during a trial, on one stream, from eight
#     threads and inside a capture; the winner stored and read back), then the dispatcher's and
#     the interposer's GPU tests and the concurrency tier, which must be unchanged;
#   heldout: tools/bench/tune_on_use on 20 sweep problems spread evenly over the list (rows
#     floor(j * rows / 20)), removed from $DB (default .device-state/new.db, a database that
#     tuned the public suite and the sweep on this GPU model): the first 20 calls checked against
#     cuBLAS, then the route they settled on against the offline winner's, and the stall;
#   overhead: tools/bench/dispatch_overhead (host cost of a warm call) with this build's
#     libsgemm_dispatch and with the one in .device-old/lib (a build before tuning on use),
#     three times each, alternating.
default_phase=tests

phase_tests() {
  gpu_tests tune-on-use 'TuneOnUse.*' 120
  gpu_tests dispatch 'Dispatcher*:Interposer.*:RouteKinds/Concurrency.*:ConcurrencyStreams.*:ConcurrencyThreads.*' 300
}

phase_heldout() {
  local db=${DB:-.device-state/new.db}
  grep -v '^#' configs/shapes/sweep.csv | awk -v want=20 '
    NR == 1 { print; next }
    { rows[++n] = $0 }
    END { for (j = 0; j < want; ++j) print rows[int(j * n / want) + 1] }' > "$res/held-out.csv"
  timed heldout timeout 400 tune_on_use --db "$db" --shapes "$res/held-out.csv" \
    --json "$res/heldout.data.json"
  cat "$res/heldout.json"
}

phase_overhead() {
  local run
  for run in 1 2 3; do
    timed "overhead-new-$run" timeout 60 dispatch_overhead
    (
      export LD_LIBRARY_PATH=$PWD/.device-old/lib:$LD_LIBRARY_PATH
      timed "overhead-old-$run" timeout 60 dispatch_overhead
    )
  done
  head -40 "$res"/overhead-*.json
}
