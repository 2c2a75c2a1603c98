# F2 points outside its default spaces (deeper stream-K grids, wider K splits, tiles 32 wide:
# the *.yaml here), every one of them on the public problems F2 takes in place (shapes.csv),
# into a fresh database, to compare each problem's best with the shipped winner before adding
# any point to configs/spaces.
default_phase=explore

phase_explore() {
  tune_into explore 500 "$dir/shapes.csv" "$dir" --strategy exhaustive
}

# min-blocks: F2's 64-accumulator tiles (unsplit and split 2-4 ways) with MIN_BLOCKS 1-4, each
# cap on registers that binds and leaves the accumulators and one k step's fragments, on NN, TN
# and NT problems of 256-5120 (the linear layers of the sweep between 256 and 1024 tokens, and
# problems of its compute class; the aligned ones read in place, the others packed), exhaustive,
# then each problem's best candidates by MIN_BLOCKS. NN and TN tiles hold their K-contiguous
# fragments in 140-250 registers where NT's take 111 (one block of 256 threads per SM, not two).
phase_min-blocks() {
  local knobs="BM: [64, 128]
  BN: [64, 128]
  BK: [16, 32]
  WM: [32, 64]
  WN: [32, 64]
  TM: [8]
  TN: [8]
  STAGES: [3, 4]
  RASTER: [1]
  STREAMK: [0]
  MIN_BLOCKS: [1, 2, 3, 4]"
  mkdir -p "$res/min-blocks"
  printf 'family: f2_tma\ndescription: in place\nknobs:\n  %s\n  SPLITK: [1, 2, 3, 4]\n  PACK: [0]\n' \
    "$knobs" > "$res/min-blocks/in_place.yaml"
  printf 'family: f2_tma\ndescription: packed\nknobs:\n  %s\n  SPLITK: [1, 2, 3]\n  PACK: [1]\n' \
    "$knobs" > "$res/min-blocks/packed.yaml"
  tune_into min-blocks "${TIME_BUDGET:-540}" "$(shapes min-blocks-shapes ${PROBLEMS:-3072,256,768,T,N \
    768,256,3072,T,N 1024,1024,4096,T,N 5120,1024,5120,T,N 2048,2048,2048,N,N 2048,2048,2048,T,N \
    1024,1024,1024,N,N 2048,2048,2048,N,T 643,517,2645,T,N})" "$res/min-blocks" --strategy exhaustive \
    --time-budget $(( ${TIME_BUDGET:-540} - 40 ))
  best_by_knob "$res/min-blocks.db" MIN_BLOCKS
}

# best_by_knob DB KNOB: each problem's fastest candidate (screening median) at each value of KNOB,
# cuBLAS in the same rounds.
best_by_knob() {
  python3 - "$1" "$2" <<'PY'
import re, sqlite3, sys
db, knob = sqlite3.connect(sys.argv[1]), sys.argv[2]
for pid, m, n, k, ta, tb in db.execute(
        "SELECT id, m, n, k, transa, transb FROM problems ORDER BY id").fetchall():
    best = {}
    for screen, cublas, regs, spill, config in db.execute(
            """SELECT screen_median_us, cublas_us, registers, spill_bytes, config FROM candidates
               WHERE problem_id = ? AND screen_median_us IS NOT NULL""", (pid,)):
        v = re.search(rf"\b{knob}=(\d+)", config)
        v = int(v.group(1)) if v else None
        if v not in best or screen < best[v][0]:
            best[v] = (screen, cublas, regs, spill, config)
    print(f"{ta}{tb} {m}x{n}x{k}")
    for v, (screen, cublas, regs, spill, config) in sorted(best.items(), key=lambda x: str(x[0])):
        print(f"  {knob}={v}: {screen:9.2f} us (cuBLAS {cublas:9.2f}) {regs} regs {spill} spill {config}")
PY
}
