#!/usr/bin/env bash
# Installs the Debian packages the build needs (non-interactive, idempotent: does nothing when
# everything is present) and checks for the CUDA toolkit.
set -euo pipefail

packages=(cmake ninja-build g++ libsqlite3-dev libspdlog-dev libfmt-dev libgtest-dev
          nlohmann-json3-dev libcli11-dev libyaml-cpp-dev
          libopenmpi-dev openmpi-bin  # tuning shared among hosts (mpirun), and its tests
          clang libclang-rt-14-dev  # the ASan tier and the libFuzzer targets of tests/fuzz
          gnuplot-nox               # report --plot and its tests (pngcairo, svg)
          clang-format)             # tools/check_format.sh

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cuda_root=${CUDAToolkit_ROOT:-/usr/local/cuda}
if [[ ! -x "$cuda_root/bin/nvcc" && ! -f "$cuda_root/include/nvrtc.h" ]]; then
  echo "setup: the CUDA toolkit (12.5 or newer, with NVRTC and cuBLAS) is not at $cuda_root;" \
       "install it or set CUDAToolkit_ROOT" >&2
  exit 1
fi
