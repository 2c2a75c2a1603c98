# The shipped database (tuner_db/nvidia-h200.json) kept in step with the templates: a template
# change makes every stored winner of that family stale (the dispatcher then serves cuBLAS), so
# its problems are tuned again and the winners exported.
#   retune (default): $BASE (an exported database; default the shipped one) imported, SHAPES
#     (default the public suite) tuned again with SPACE (default every default space; --retune
#     --lt-algos 8, short screening), the winners exported to nvidia-h200.json beside shipped.db
#     (copy it to tuner_db/ to ship it); the database stays in $work, so a long list can be done
#     in parts, one device command each;
#   bench: the public suite benched on the export of retune in this visit, else on $BASE, against
#     cuBLAS and cuBLASLt's best of 8 (the README's results table).
default_phase=retune

phase_retune() {
  [[ -n ${SPACE:-} ]] && space=$SPACE
  retune_shipped "${SHAPES:-configs/shapes/public.csv}" 500
}

phase_bench() {
  local db=${BASE:-tuner_db/nvidia-h200.json}
  [[ -f $work/nvidia-h200.json ]] && db=$work/nvidia-h200.json
  bench_public "$db"
}
