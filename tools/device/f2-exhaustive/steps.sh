# Does the model search leave F2 points unmeasured that would win? The shipped database imported,
# the problems of shapes.csv tuned again over every point of F2's default spaces (--strategy
# exhaustive --retune: each problem's own winner is measured first), the winners exported and,
# unless BENCH=0, the public suite benched on them.
default_phase=search

phase_search() {
  mkdir -p "$work/f2-space"
  cp "$space"/f2_tma*.yaml "$work/f2-space/"
  space=$work/f2-space
  retune_shipped "$dir/shapes.csv" 420 --strategy exhaustive
  [[ ${BENCH:-1} == 1 ]] && bench_public "$work/nvidia-h200.json"
}
