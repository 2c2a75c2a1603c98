#!/usr/bin/env bash
# Renders the report and pictures of a shipped tuning dump (or a database) into a folder:
#   tools/plot/render.sh [DUMP.json|DB.db] [OUT_DIR]   (defaults: tuner_db/nvidia-h200.json, docs/plots/h200)
# Needs a built sgemm-tune ($SGEMM_TUNE, else build/src/sgemm-tune) and gnuplot. No GPU.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
input="${1:-$root/tuner_db/nvidia-h200.json}"
out="${2:-$root/docs/plots/h200}"
tool="${SGEMM_TUNE:-$root/build/src/sgemm-tune}"
[[ -x "$tool" ]] || { echo "render.sh: $tool is not built (set SGEMM_TUNE)" >&2; exit 2; }
[[ -f "$input" ]] || { echo "render.sh: $input: no such file" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "render.sh: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 1; }
db="$input"
if [[ "$input" == *.json ]]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  db="$tmp/report.db"
  "$tool" -q import "$input" --db "$db" --no-cubins
fi
mkdir -p "$out"
"$tool" -q report --db "$db" --output "$out/report.md" --plot "$out"
"$tool" -q report --db "$db" --format csv --output "$out/report.csv"
rm -f "$out/gnuplot.log"
echo "wrote $out/report.md, report.csv, roofline.{png,svg}, speedup.{png,svg}"
