#!/usr/bin/env bash
# Owns the fuzzing runs: builds the libFuzzer harnesses of fuzz/ with clang-14 (ASan+UBSan and
# coverage, build dir BUILD-fuzz), then for each harness (1) runs every file of its corpus
# (fuzz/corpus/<name>: seeds and every input that once failed) once at full size, and (2) fuzzes for
# SECONDS from a copy of that corpus with inputs up to FUZZ_MAX_LEN bytes. Both run with a memory
# limit and a per-input timeout, so an input that makes the library allocate without bound or hang
# is a failure like a crash. Findings land in BUILD-fuzz/findings/<name>/ and fail the run; the
# executions and their rate are printed per harness.
#   scripts/fuzz.sh BUILD SECONDS [HARNESS...]     (default: every harness)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: fuzz.sh BUILD SECONDS [HARNESS...]}
seconds=${2:?usage: fuzz.sh BUILD SECONDS [HARNESS...]}
shift 2
fuzz_build="$build-fuzz"
rss_limit_mb=${FUZZ_RSS_LIMIT_MB:-2048}
timeout_s=${FUZZ_TIMEOUT_S:-10}
max_len=${FUZZ_MAX_LEN:-4096}

if ! command -v clang++-14 >/dev/null; then
  echo "fuzzing needs clang-14 and libclang-rt-14-dev (apt-get install clang-14 libclang-rt-14-dev)" >&2
  exit 1
fi
if [ ! -f "$fuzz_build/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$fuzz_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSMARTARRAYS_SANITIZE=fuzzer -DSMARTARRAYS_TESTS=OFF -DSMARTARRAYS_BENCH=OFF >/dev/null
fi
cmake --build "$fuzz_build" -j "${JOBS:-2}"

harnesses=("$@")
if ((${#harnesses[@]} == 0)); then
  for corpus in "$root"/fuzz/corpus/*/; do harnesses+=("$(basename "$corpus")"); done
fi
limits=(-rss_limit_mb="$rss_limit_mb" -malloc_limit_mb="$rss_limit_mb" -timeout="$timeout_s")
failed=()
for name in "${harnesses[@]}"; do
  binary="$fuzz_build/bin/fuzz_$name"
  [ -x "$binary" ] || { echo "no harness fuzz_$name" >&2; exit 1; }
  seeds="$root/fuzz/corpus/$name" work="$fuzz_build/corpus/$name" findings="$fuzz_build/findings/$name"
  mkdir -p "$work" "$findings"
  echo "-- fuzz_$name: corpus at full size, then ${seconds}s of fuzzing (inputs up to $max_len bytes," \
    "rss limit ${rss_limit_mb} MB, ${timeout_s}s per input)"
  if ! "$binary" "${limits[@]}" -artifact_prefix="$findings/" "$seeds"/* >"$findings/regression.txt" 2>&1; then
    echo "   FAILED on the corpus: $(grep -m1 -E 'ERROR|SUMMARY|finding|out-of-memory|timeout' "$findings/regression.txt" || echo 'see log')"
    echo "   log: $findings/regression.txt"
    failed+=("$name")
    continue
  fi
  cp -n "$seeds"/* "$work"/ 2>/dev/null || true
  if "$binary" "$work" "${limits[@]}" -max_len="$max_len" -max_total_time="$seconds" -artifact_prefix="$findings/" \
      -print_final_stats=1 >"$findings/log.txt" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$findings/log.txt")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$findings/log.txt")
    peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$findings/log.txt")
    echo "   $runs executions, $rate exec/s, peak RSS $peak MB, corpus $(ls "$work" | wc -l) inputs"
  else
    echo "   FAILED: $(grep -m1 -E 'ERROR|SUMMARY|finding|out-of-memory|timeout' "$findings/log.txt" || echo 'see log')"
    echo "   log: $findings/log.txt; reproducer: $(ls "$findings" | grep -v -e log.txt -e regression.txt | head -1)"
    failed+=("$name")
  fi
done
if ((${#failed[@]})); then
  echo "fuzzing found problems in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: no findings"
