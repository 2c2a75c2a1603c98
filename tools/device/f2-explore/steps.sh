# F2 points outside its default spaces (deeper stream-K grids, wider K splits, tiles 32 wide:
# the *.yaml here), every one of them on the public problems F2 takes in place (shapes.csv),
# into a fresh database, to compare each problem's best with the shipped winner before adding
# any point to configs/spaces.
default_phase=explore

phase_explore() {
  tune_into explore 500 "$dir/shapes.csv" "$dir" --strategy exhaustive
}
