#!/usr/bin/env bash
# README command 1: install, build, and run the demo on the bundled examples:
# for every model in examples/, the verified IR and the inner buffers of each
# quantized value (qs-describe-storage).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/build.sh" >/dev/null
qs_opt="${QS_BUILD_DIR:-$root/build}/bin/qs-opt"

for model in "$root"/examples/*.mlir; do
  name=$(basename "$model")
  echo "=== $name: verified IR"
  "$qs_opt" "$model"
  echo "=== $name: inner buffers of every quantized argument and result"
  "$qs_opt" "$model" --qs-describe-storage=metadata=true -o /dev/null
  echo
done
