#!/usr/bin/env bash
# Owns `make test-vm`: builds the static placement check and runs it in emulated 2-node and 4-node
# NUMA guests. Skips (exit 0) when the emulator, kernel or busybox are missing, except under CI=true.
# usage: run-placement-tests.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run-placement-tests.sh BUILD_DIR}
packages="qemu-system-x86 linux-image-amd64 busybox-static cpio"

if ! missing=$("$here/run-numa-vm.sh" --check); then
  echo "missing: $(echo "$missing" | paste -sd ';' | sed 's/;/; /g')"
  if [ "${CI:-}" = true ]; then
    echo "FAILED: CI=true but the emulated-NUMA placement tests cannot run (apt-get install $packages)" >&2
    exit 1
  fi
  echo "SKIPPED: emulated-NUMA placement tests need $packages (apt-get install $packages)"
  exit 0
fi

echo "== emulated-NUMA placement tests"
cmake --build "$build" --target vm_placement_check -j "${JOBS:-2}"
binary="$build/bin/vm_placement_check"
step=11
failed=()
for nodes in 2 4; do
  echo "-- $nodes-node guest"
  if "$here/run-numa-vm.sh" -n "$nodes" -d "$step" -w "$build/numa-vm" "$binary" --nodes "$nodes" --distance-step "$step"; then
    echo "-- $nodes-node guest: passed"
  else
    echo "-- $nodes-node guest: FAILED (exit status $?)"
    failed+=("$nodes")
  fi
done
if ((${#failed[@]})); then
  echo "emulated-NUMA placement tests FAILED for ${failed[*]}-node guests" >&2
  exit 1
fi
echo "emulated-NUMA placement tests passed (2 and 4 nodes)"
