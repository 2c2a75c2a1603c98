#!/usr/bin/env bash
# One visit to the GPU machine: tools/device/run.sh EXPERIMENT [PHASE...] runs the phases (default:
# the experiment's first) of tools/device/EXPERIMENT/steps.sh, from the repository root with
# .device-dist carried (built here first: NO_BUILD=1 tools/device/pack.sh BUILD_DIR .). Parameters
# go in the environment (each steps.sh names its own). What the phases leave in $res is packed into
# $OUT/EXPERIMENT-PHASES.tar.gz after each phase, so a command cut short still returns what
# finished, and a second run.sh of the same experiment in one command keeps the first's results
# (the same phases again: EXPERIMENT-PHASES-2.tar.gz).
# Kept results go to docs/results/EXPERIMENT/ and what they show to docs/findings.md. Never touches
# clocks or GPU settings.
set -uo pipefail
cd "$(dirname "$0")/../.."
if [[ $# -lt 1 || ! -f tools/device/${1}/steps.sh ]]; then
  echo "usage: tools/device/run.sh EXPERIMENT [PHASE...]; experiments:" \
    $(cd tools/device && ls */steps.sh | cut -d/ -f1) >&2
  exit 2
fi
experiment=$1
shift
dir=tools/device/$experiment
source tools/device/lib.sh
visit_setup "/tmp/sgemm-$experiment"
source "$dir/steps.sh"
phases=("$@")
[[ ${#phases[@]} -gt 0 ]] || phases=("$default_phase")
for phase in "${phases[@]}"; do
  if ! declare -F "phase_$phase" > /dev/null; then
    echo "$experiment has no phase '$phase'; phases:" \
      $(declare -F | awk '$3 ~ /^phase_/ {print substr($3, 7)}') >&2
    exit 2
  fi
done

gpu_facts
base=$out/$experiment-$(IFS=-; echo "${phases[*]}")
tarball=$base.tar.gz  # a phase may pack early into it; the same phases again: -2, -3, ...
for ((run = 2; ; ++run)); do [[ -e $tarball ]] || break; tarball=$base-$run.tar.gz; done
for phase in "${phases[@]}"; do
  echo "== $experiment $phase"
  "phase_$phase"
  tar -C "$res" -czf "$tarball" .
done
ls -la "$out"
