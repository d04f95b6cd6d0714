#!/usr/bin/env bash
# Owns the fuzzing runs: builds the libFuzzer harnesses of fuzz/ with clang-14 (ASan+UBSan and
# coverage, build dir BUILD-fuzz) and runs each for SECONDS on a copy of its seed corpus
# (fuzz/corpus/<name>), with a memory limit and a per-input timeout, so an input that makes the
# library allocate without bound or hang is a failure like a crash. Findings land in
# BUILD-fuzz/findings/<name>/ and fail the run.
#   scripts/fuzz.sh BUILD SECONDS [HARNESS...]     (default: every harness)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: fuzz.sh BUILD SECONDS [HARNESS...]}
seconds=${2:?usage: fuzz.sh BUILD SECONDS [HARNESS...]}
shift 2
fuzz_build="$build-fuzz"
rss_limit_mb=${FUZZ_RSS_LIMIT_MB:-2048}
timeout_s=${FUZZ_TIMEOUT_S:-10}

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
failed=()
for name in "${harnesses[@]}"; do
  binary="$fuzz_build/bin/fuzz_$name"
  [ -x "$binary" ] || { echo "no harness fuzz_$name" >&2; exit 1; }
  work="$fuzz_build/corpus/$name" findings="$fuzz_build/findings/$name"
  mkdir -p "$work" "$findings"
  cp -n "$root/fuzz/corpus/$name"/* "$work"/ 2>/dev/null || true
  echo "-- fuzz_$name: ${seconds}s, rss limit ${rss_limit_mb} MB, ${timeout_s}s per input"
  if "$binary" "$work" "$root/fuzz/corpus/$name" -max_total_time="$seconds" -rss_limit_mb="$rss_limit_mb" \
      -malloc_limit_mb="$rss_limit_mb" -timeout="$timeout_s" -artifact_prefix="$findings/" -print_final_stats=1 \
      >"$findings/log.txt" 2>&1; then
    grep -E '^stat::number_of_executed_units|^Done' "$findings/log.txt" | sed 's/^/   /'
  else
    echo "   FAILED: $(grep -m1 -E 'ERROR|SUMMARY|out-of-memory|timeout' "$findings/log.txt" || echo 'see log')"
    echo "   log: $findings/log.txt; reproducer: $(ls "$findings" | grep -v log.txt | head -1)"
    failed+=("$name")
  fi
done
if ((${#failed[@]})); then
  echo "fuzzing found problems in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: no findings"
