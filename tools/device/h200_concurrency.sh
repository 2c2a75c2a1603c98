#!/usr/bin/env bash
# The dispatcher under threads and streams, in one device command (about 9 minutes at most): the
# concurrency tier of the GPU tests, compute-sanitizer memcheck and racecheck on a sample of it,
# the per-problem table of wrong results on the shipped database, and the warm-call host cost.
# Results in $OUT (one tarball).
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-concurrency
gpu_facts
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
sanitize memcheck 'RouteKinds/Concurrency.mixed__*:ConcurrencyThreads.*' 100 memcheck
sanitize racecheck 'RouteKinds/Concurrency.mixed__threads_one_handle_own_streams' 100 racecheck
tar -czf "$out/concurrency.tgz" -C "$res" .
