# Tuning on use (SGEMM_DISPATCH_TUNE=1, docs/dispatcher.md):
#   tests (default): its GPU tests (every call right during a trial, on one stream, from eight
#     threads and inside a capture; the winner stored and read back), then the dispatcher's and
#     the interposer's GPU tests and the concurrency tier, which must be unchanged;
#   heldout: tools/bench/tune_on_use on 20 sweep problems spread evenly over the list (rows
#     floor(j * rows / 20)), removed from $DB (default .device-state/new.db, a database that
#     tuned the public suite and the sweep on this GPU model): the first 20 calls checked against
#     cuBLAS, then the route they settled on against the offline winner's, and the stall; once
#     with the calls back to back, once with each waited for (--idle 1);
#   overhead: tools/bench/dispatch_overhead (host cost of a warm call), three times, against the
#     figures before tuning on use in docs/dispatcher.md ("Overhead").
default_phase=tests

phase_tests() {
  gpu_tests tune-on-use 'TuneOnUse.*' 120
  gpu_tests dispatch 'Dispatcher*:Interposer.*:RouteKinds/Concurrency.*:ConcurrencyStreams.*:ConcurrencyThreads.*' 300
}

phase_heldout() {
  local db=${DB:-.device-state/new.db} gpu
  # Winners are per GPU model: a database of another model would leave both handles on cuBLAS.
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  if ! python3 -c 'import sqlite3, sys
print("\n".join(r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT DISTINCT gpu_name FROM winners")))' \
    "$db" | grep -qxF "$gpu"; then
    echo "heldout: $db holds no winners of the $gpu; skipped"
    return 0
  fi
  grep -v '^#' configs/shapes/sweep.csv | awk -v want=20 '
    NR == 1 { print; next }
    { rows[++n] = $0 }
    END { for (j = 0; j < want; ++j) print rows[int(j * n / want) + 1] }' > "$res/held-out.csv"
  timed heldout timeout 300 tune_on_use --db "$db" --shapes "$res/held-out.csv" \
    --json "$res/heldout.data.json"
  cat "$res/heldout.json"
  # The same with the GPU idle between calls (each waited for): what the trial then times.
  timed heldout-idle timeout 300 tune_on_use --db "$db" --shapes "$res/held-out.csv" --idle 1 \
    --json "$res/heldout-idle.data.json"
  tail -1 "$res/heldout-idle.json"
}

phase_overhead() {
  local run
  for run in 1 2 3; do
    timed "overhead-$run" timeout 60 dispatch_overhead
  done
  grep -h "sgemmSgemm\|bare" "$res"/overhead-*.json
}
