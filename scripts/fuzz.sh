#!/usr/bin/env bash
# Owns the fuzzing runs: builds the libFuzzer harnesses of fuzz/ in the sanitizer tree BUILD-asan
# (scripts/configure-asan.sh: clang-14, ASan+UBSan and coverage), then for each harness, one per
# core side by side, (1) runs every file of its corpus
# (fuzz/corpus/<name>: seeds and every input that once failed) once at full size, and (2) fuzzes for
# SECONDS from a copy of that corpus with inputs up to FUZZ_MAX_LEN bytes. Both run with a memory
# limit and a per-input timeout, so an input that makes the library allocate without bound or hang
# is a failure like a crash. Findings land in BUILD-asan/findings/<name>/ and fail the run; the
# executions and their rate are printed per harness. FUZZ_RUNS=N stops a harness after N
# executions if SECONDS have not run out first (a campaign of a set size).
#   scripts/fuzz.sh BUILD SECONDS [HARNESS...]     (default: every harness)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: fuzz.sh BUILD SECONDS [HARNESS...]}
seconds=${2:?usage: fuzz.sh BUILD SECONDS [HARNESS...]}
shift 2
fuzz_build="$build-asan"
rss_limit_mb=${FUZZ_RSS_LIMIT_MB:-2048}
timeout_s=${FUZZ_TIMEOUT_S:-10}
max_len=${FUZZ_MAX_LEN:-4096}
runs=${FUZZ_RUNS:--1}

harnesses=("$@")
if ((${#harnesses[@]} == 0)); then
  for corpus in "$root"/fuzz/corpus/*/; do harnesses+=("$(basename "$corpus")"); done
fi
for name in "${harnesses[@]}"; do
  [ -d "$root/fuzz/corpus/$name" ] || {
    echo "no harness $name (harnesses: $(ls "$root/fuzz/corpus" | tr '\n' ' '))" >&2
    exit 2
  }
done
"$root/scripts/configure-asan.sh" "$fuzz_build"
cmake --build "$fuzz_build" -j "${JOBS:-2}" --target "${harnesses[@]/#/fuzz_}"
limits=(-rss_limit_mb="$rss_limit_mb" -malloc_limit_mb="$rss_limit_mb" -timeout="$timeout_s")
# Allocation stacks of 2 frames instead of 30: recording them was a fifth of the cli harness's time
# (905-1396 exec/s against 737-1126). A finding's full report: run the harness on its reproducer.
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=2}"

# One harness: its corpus at full size, then SECONDS of fuzzing. Prints its report lines and
# returns non-zero on a finding.
run_harness() {
  local name=$1
  local binary="$fuzz_build/bin/fuzz_$name"
  local seeds="$root/fuzz/corpus/$name" work="$fuzz_build/corpus/$name" findings="$fuzz_build/findings/$name"
  mkdir -p "$work" "$findings"
  local until="${seconds}s"
  ((runs < 0)) || until="${seconds}s or $runs executions"
  echo "-- fuzz_$name: corpus at full size, then $until of fuzzing (inputs up to $max_len bytes," \
    "rss limit ${rss_limit_mb} MB, ${timeout_s}s per input)"
  if ! "$binary" "${limits[@]}" -artifact_prefix="$findings/" "$seeds"/* >"$findings/regression.txt" 2>&1; then
    echo "   FAILED on the corpus: $(grep -m1 -E 'ERROR|SUMMARY|finding|out-of-memory|timeout' "$findings/regression.txt" || echo 'see log')"
    echo "   log: $findings/regression.txt"
    return 1
  fi
  cp -n "$seeds"/* "$work"/ 2>/dev/null || true
  if "$binary" "$work" "${limits[@]}" -max_len="$max_len" -max_total_time="$seconds" -runs="$runs" -artifact_prefix="$findings/" \
      -print_final_stats=1 >"$findings/log.txt" 2>&1; then
    local runs rate peak
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$findings/log.txt")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$findings/log.txt")
    peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$findings/log.txt")
    echo "   $runs executions, $rate exec/s, peak RSS $peak MB, corpus $(ls "$work" | wc -l) inputs"
  else
    echo "   FAILED: $(grep -m1 -E 'ERROR|SUMMARY|finding|out-of-memory|timeout' "$findings/log.txt" || echo 'see log')"
    echo "   log: $findings/log.txt; reproducer: $(ls "$findings" | grep -v -e log.txt -e regression.txt | head -1)" \
      "(full allocation stacks: ASAN_OPTIONS=malloc_context_size=30 $binary REPRODUCER)"
    return 1
  fi
}

# The harnesses run side by side, one per core (each libFuzzer process is single-threaded); each
# one's report is printed whole when it ends.
for name in "${harnesses[@]}"; do
  [ -x "$fuzz_build/bin/fuzz_$name" ] || { echo "no harness fuzz_$name" >&2; exit 1; }
done
reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
failed=()
pids=()
for name in "${harnesses[@]}"; do
  while (($(jobs -rp | wc -l) >= ${JOBS:-2})); do wait -n || true; done
  (run_harness "$name" >"$reports/$name" 2>&1; echo $? >"$reports/$name.status") &
  pids+=($!)
done
wait "${pids[@]}" || true
for name in "${harnesses[@]}"; do
  cat "$reports/$name"
  [ "$(cat "$reports/$name.status")" = 0 ] || failed+=("$name")
done
if ((${#failed[@]})); then
  echo "fuzzing found problems in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: no findings"
