#!/usr/bin/env bash
# Checks that `pip install .` works: installs quant_storage into a fresh
# virtual environment (build/pip-venv, with pytest), then runs the Python
# test suite against the installed package instead of the build tree.
# Needs what bootstrap.sh installs, and PyPI (scikit-build-core, nanobind).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$root/build/pip-venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$root/requirements.txt"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "$root"
cd "$root/build"   # not the source root: nothing importable from the checkout
installed=$("$venv/bin/python" -c "import quant_storage, os; print(os.path.dirname(quant_storage.__file__))")
case "$installed" in
  "$venv"/*) echo "check-pip-install: quant_storage imported from $installed" ;;
  *) echo "check-pip-install: imported from $installed, not the venv" >&2; exit 1 ;;
esac
# QS_PYTHONPATH=/nonexistent: the tests import the installed package.
QS_PYTHONPATH=/nonexistent QS_RUN="$root/build/bin/qs-run" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/test/python"
