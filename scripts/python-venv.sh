#!/usr/bin/env bash
# Makes sure the project's Python virtual environment (.venv at the repository root, created with
# python3 -m venv) exists and has the given PyPI packages, installing only what is missing, then
# prints the path of its python. Used by `make venv` and scripts/demo.sh.
#   scripts/python-venv.sh matplotlib [more packages...]
# A package may name extras (dask[array]): the part before "[" is the name imported to check it, or,
# for a package that installs a program rather than a module (tpchgen-cli), its distribution name.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  echo "creating Python virtual environment $venv" >&2
  if ! python3 -m venv "$venv" >&2; then
    echo "python3 -m venv failed: install the venv module (Debian: apt-get install python3-venv)" >&2
    exit 1
  fi
fi
missing=()
for package in "$@"; do
  name=${package%%[*}
  "$venv/bin/python" -c "import importlib, importlib.metadata, sys
try:
    importlib.import_module(sys.argv[1])
except ImportError:
    importlib.metadata.version(sys.argv[1])" "$name" 2>/dev/null || missing+=("$package")
done
if ((${#missing[@]} > 0)); then
  echo "installing into $venv: ${missing[*]}" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${missing[@]}" >&2
fi
echo "$venv/bin/python"
