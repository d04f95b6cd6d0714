#!/usr/bin/env bash
# Owns the configuration of the AddressSanitizer + UndefinedBehaviorSanitizer tree (BUILD-asan):
# clang-14 with libFuzzer's coverage (SMARTARRAYS_SANITIZE=fuzzer), so that the unit tests
# (`make test-asan`) and the fuzz harnesses (scripts/fuzz.sh) share one sanitized compile of the
# library. A tree configured otherwise (an older GCC ASan tree) is replaced.
#   scripts/configure-asan.sh DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: configure-asan.sh DIR}
if ! command -v clang++-14 >/dev/null; then
  echo "the sanitizer build needs clang-14 and libclang-rt-14-dev (scripts/check-tools.sh --all installs them)" >&2
  exit 1
fi
if [ -f "$dir/CMakeCache.txt" ] && ! grep -qx 'SMARTARRAYS_SANITIZE:STRING=fuzzer' "$dir/CMakeCache.txt"; then
  echo "replacing $dir: it was configured for another sanitizer build"
  rm -rf "$dir"
fi
if [ ! -f "$dir/CMakeCache.txt" ]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSMARTARRAYS_SANITIZE=fuzzer -DSMARTARRAYS_BENCH=OFF >/dev/null
fi
