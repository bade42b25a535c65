#!/usr/bin/env bash
# Installs everything quant-storage needs on a fresh Debian 12 machine, and
# nothing twice: Debian packages (LLVM/MLIR 22, lld, clang and its runtimes
# for the sanitizers and libFuzzer, ninja, gtest,
# ccache) that are missing, and the project's Python virtual environment
# (.venv, packages pinned in requirements.txt) when requirements changed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

packages=(cmake ninja-build ccache libgtest-dev libxtensor-dev
          llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22 clang-22
          libclang-rt-22-dev)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$pkg")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "bootstrap: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

venv="$root/.venv"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$root/requirements.txt" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ]; then
  echo "bootstrap: creating $venv"
  python3 -m venv "$venv"
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "bootstrap: installing Python packages from requirements.txt"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/requirements.txt"
  echo "$want" > "$stamp"
fi
