# The shipped database's routes against cublasSgemm under sustained load (tools/bench/
# sustained_load: back to back in alternating phases, warm L2, NVML read every 20 ms; it only
# reads NVML).
#   large (default): large.csv (the large F2 problems and two others), two 3 s phases per path;
#   public: the public suite, two 1 s phases per path;
#   small: tools/bench/dispatch_overhead (host cost per call of each path), then small.csv, three
#     3 s phases per path.
default_phase=large

# sustained NAME SHAPES SECONDS PHASES: sustained_load on the shipped database, to $res/NAME.*.
sustained() {
  [[ -f $work/shipped.db ]] ||
    sgemm-tune import tuner_db/nvidia-h200.json --db "$work/shipped.db" > "$res/import.log" 2>&1
  timeout 300 sustained_load --db "$work/shipped.db" --shapes "$2" --seconds "$3" --phases "$4" \
    --json "$res/$1.json" > "$res/$1.txt" 2> "$res/$1.log"
  echo "$1: exit $?"
  cat "$res/$1.txt"
  tail -3 "$res/$1.log"
}

phase_large() { sustained sustained "$dir/large.csv" 3 2; }
phase_public() { sustained sustained-public configs/shapes/public.csv 1 2; }
phase_small() {
  timeout 120 dispatch_overhead > "$res/dispatch-overhead.txt" 2>&1
  echo "dispatch_overhead: exit $?"
  cat "$res/dispatch-overhead.txt"
  sustained sustained-small "$dir/small.csv" 3 3
}
