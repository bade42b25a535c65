#!/usr/bin/env bash
# README command 2: install, build, and run the whole test suite (check-qs).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/build.sh"
ninja -C "${QS_BUILD_DIR:-$root/build}" check-qs
