# The default search (model strategy, 128 candidates) against the exhaustive search, and the
# tuning engine's costs, with the shipped measurement settings for every strategy alike. Compare two runs with tools/bench/compare_strategies.py DEFAULT.json
# EXHAUSTIVE.json; replay a strategy over the exhaustive database without a GPU with
# build/tools/bench/strategy_replay --db EXHAUSTIVE.db.
#   default (default): the public suite (or SHAPES) tuned cold (fresh database and compile cache),
#     the same command again (already tuned), and explain --ncu of 4096x16x4096's winner (public
#     suite only);
#   exhaustive: the public suite (or SHAPES) with --strategy exhaustive for TIME_BUDGET seconds (default 420);
#     run it again to continue where the budget stopped it (EXHAUSTIVE_DB: a database from an
#     earlier visit to continue from);
#   heldout: the shapes of heldout.csv (not in the public suite; the cost model was not fitted to
#     them), exhaustive and default;
#   compile: tune --compile-only of 1024^3 for sm_90, cold then warm compile cache;
#   workers: two workers on one GPU (--devices 0,0) over the quick list into one database.
default_phase=default
public=${SHAPES:-$dist/configs/shapes/public.csv}

phase_default() {
  rm -rf "$work/default.db"* "$SGEMM_CACHE_DIR"
  timed tune-default timeout 420 sgemm-tune tune --shapes "$public" --space "$space" \
    --settings "$settings" --db "$work/default.db" --json
  timed tune-default-again timeout 60 sgemm-tune tune --shapes "$public" --space "$space" \
    --settings "$settings" --db "$work/default.db" --json
  if [[ -z ${SHAPES:-} ]]; then
    export TMPDIR=$work/ncu
    mkdir -p "$TMPDIR"
    timed explain-ncu timeout 60 sgemm-tune explain 4096 16 4096 --db "$work/default.db" --ncu --json
    unset TMPDIR
  fi
  cp "$work/default.db" "$res/default.db"
}

phase_exhaustive() {
  local budget=${TIME_BUDGET:-420}
  [[ -n ${EXHAUSTIVE_DB:-} && ! -f $work/exhaustive.db ]] && cp "$EXHAUSTIVE_DB" "$work/exhaustive.db"
  timed tune-exhaustive timeout $((budget + 60)) sgemm-tune tune --shapes "$public" --space "$space" \
    --settings "$settings" --db "$work/exhaustive.db" --strategy exhaustive --time-budget "$budget" \
    --json
  sqlite3 "$work/exhaustive.db" 'PRAGMA wal_checkpoint(TRUNCATE);' > /dev/null 2>&1 || true
  cp "$work/exhaustive.db" "$res/exhaustive.db"
}

phase_heldout() {
  timed tune-heldout-exhaustive timeout 300 sgemm-tune tune --shapes "$dir/heldout.csv" \
    --space "$space" --settings "$settings" --db "$work/heldout-exhaustive.db" --strategy exhaustive --json
  timed tune-heldout-default timeout 150 sgemm-tune tune --shapes "$dir/heldout.csv" \
    --space "$space" --settings "$settings" --db "$work/heldout-default.db" --json
  cp "$work"/heldout-*.db "$res/"
}

phase_compile() {
  local one
  one=$(shapes one 1024,1024,1024)
  rm -rf "$SGEMM_CACHE_DIR"
  for pass in cold warm; do
    timed "compile-only-$pass" sgemm-tune tune --shapes "$one" --space "$space" \
      --db "$work/compile-$pass.db" --compile-only --arch sm_90 --json
  done
}

phase_workers() {
  rm -f "$work/two.db"*
  timed two-workers timeout 100 sgemm-tune tune --shapes "$dist/configs/shapes/quick.csv" \
    --space "$space" --settings "$settings" --db "$work/two.db" --devices 0,0 --max-candidates 16 --json
  sgemm-tune list --db "$work/two.db" > "$res/two-workers-list.txt" 2>&1
  cat "$res/two-workers-list.txt"
}
