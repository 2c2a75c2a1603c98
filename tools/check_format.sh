#!/usr/bin/env bash
# Checks every tracked C++ and CUDA source against .clang-format (clang-format --dry-run
# --Werror); lists the files that differ and exits 1 if any does. `tools/check_format.sh --fix`
# formats them in place instead. kernel_templates/ is left out: its files' bytes are hashed into
# every tuning database key, so reformatting them makes the shipped winners stale
# (docs/findings.md, "Winners of another template version go to cuBLAS").
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format > /dev/null; then
  echo "check_format: clang-format is not installed (tools/setup.sh)" >&2
  exit 2
fi
mapfile -d '' files < <(git ls-files -z -- '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh' \
  ':!:kernel_templates/*')
if [[ ${1:-} == --fix ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" > /dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]})); then
  echo "check_format: ${#bad[@]} of ${#files[@]} files differ from .clang-format" \
    "($(clang-format --version | grep -o 'version [0-9.]*')); tools/check_format.sh --fix:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files match .clang-format"
