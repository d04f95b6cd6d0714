#!/usr/bin/env bash
# `make bench`: runs every benchmark program of the build; each prints a table and writes JSON
# into BUILD/bench-results. Extra flags for all of them can be passed in BENCH_FLAGS.
set -euo pipefail
build=${1:-build}
out="$build/bench-results"
mkdir -p "$out"
for bench in "$build"/bin/bench_*; do
  [ -x "$bench" ] || continue
  echo "== $(basename "$bench")"
  # shellcheck disable=SC2086
  "$bench" --out "$out" ${BENCH_FLAGS:-}
done
