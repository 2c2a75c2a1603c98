#!/usr/bin/env bash
# F2 on packed operands (PACK = 1) on the H200, each phase one device command of at most 10 minutes:
#   PHASE=tests: every F2 GPU test (every default configuration at a tail shape, the edge shapes,
#     every packing point on odd leading dimensions and a sample of them at the edge shapes,
#     padded and misaligned, in all four transposes), F2's family-wide checks, and
#     compute-sanitizer memcheck over the packing sample;
#   PHASE=visit: the packing tests and memcheck alone, then the problems an F2 template change
#     touches (f2_pack/retune.csv) tuned again on $BASE (an exported database; default the shipped
#     one) with every default space (--retune --lt-algos 8), the winners exported
#     (nvidia-h200.json, shipped.db); the packed space on cost-packed.csv and every default
#     space on large-odd.csv, each into a fresh database; and the public suite benched on the
#     export;
#   PHASE=cost: what packing costs, after the packing tests and the dispatcher's test of packed
#     and split-K winners sharing a handle's workspace. Every point of the packed space on the packed problems
#     (f2_pack/cost-packed.csv) and the same points in place on their aligned twins
#     (cost-inplace.csv, f2_pack/inplace.yaml), each exhaustively into its own database, then F2's
#     default spaces on the twins: the best F2 could do there with copies that cost nothing;
#   PHASE=large: larger problems with odd leading dimensions (f2_pack/large-odd.csv) tuned with
#     every default space, and again with the packed space alone, into fresh databases.
# Output: $OUT/pack-$PHASE.tar.gz. Never touches clocks or GPU settings.
# Binaries: NO_BUILD=1 tools/device/pack.sh <builddir> . before the visit.
set -uo pipefail
cd "$(dirname "$0")/../.."
source tools/device/lib.sh
visit_setup /tmp/sgemm-pack
phase=${PHASE:-tests}

pack_tests='F2Tma.Packed*:Dispatcher.PackedAndSplitKWinnersShareTheHandleWorkspace'
pack_dir=tools/device/f2_pack

gpu_facts
case $phase in
  tests)
    gpu_tests gpu-tests-f2 'F2Tma.*:Families/FamilyCorrectness.*/f2_tma' 480
    ;;
  visit)
    gpu_tests gpu-tests-pack "$pack_tests" 150
    ;;
  cost)
    gpu_tests gpu-tests-pack "$pack_tests" 150
    tune_into cost-packed 200 $pack_dir/cost-packed.csv "$space/f2_tma_packed.yaml" --strategy exhaustive
    tune_into cost-inplace 200 $pack_dir/cost-inplace.csv $pack_dir/inplace.yaml --strategy exhaustive
    for file in f2_tma f2_tma_split_k f2_tma_stream_k; do
      tune_into "f2-best-$file" 100 $pack_dir/cost-inplace.csv "$space/$file.yaml"
    done
    ;;
  large)
    tune_into large-default 300 $pack_dir/large-odd.csv "$space"
    tune_into large-packed 200 $pack_dir/large-odd.csv "$space/f2_tma_packed.yaml"
    ;;
esac
if [[ $phase == tests || $phase == visit ]]; then
  sanitize memcheck 'F2Tma.PackedSanitizerSample' 60 memcheck-pack
  mv "$out/memcheck-pack.log" "$res/"
fi
if [[ $phase == visit ]]; then
  retune_shipped $pack_dir/retune.csv 240
  # What the copies cost now (against cost-inplace.* of an earlier PHASE=cost: the in-place
  # kernels do not change with the copy), and the larger odd problems.
  tune_into cost-packed 100 $pack_dir/cost-packed.csv "$space/f2_tma_packed.yaml" --strategy exhaustive
  tune_into large-default 100 $pack_dir/large-odd.csv "$space"
  bench_public "$work/nvidia-h200.json"
fi
tar -C "$res" -czf "$out/pack-$phase.tar.gz" .
ls -la "$out"
