#!/usr/bin/env bash
# Owns booting one static binary as the only process of an emulated NUMA guest (qemu, software
# emulation) and returning its exit status: how the project tests real multi-node placement on
# single-node machines. See docs/topology-and-placement.md.
#
# usage: run-numa-vm.sh [options] STATIC_BINARY [ARGS...]
#        run-numa-vm.sh --check        prints what is missing and exits 1, or exits 0
#   -n NODES      NUMA nodes (default 2), one socket and one memory backend each
#   -c CPUS       vCPUs, a multiple of NODES (default: 4 rounded to a multiple of NODES)
#   -m MIB        guest memory, split evenly over the nodes (default 1024)
#   -d STEP       SLIT distance between nodes i and j is 10 + STEP*|i-j| (default 11)
#   -w DIR        work directory; the extracted kernel is cached there (default $TMPDIR/smartarrays-numa-vm)
#   -t SECONDS    time limit per boot (default 180); a guest that reports no status is booted once more
# Exit status: the binary's, or 125 when the guest never reported one, 2 on bad usage or missing tools.
set -euo pipefail

nodes=2 cpus="" memory=1024 step=11 timeout_s=180
work="${TMPDIR:-/tmp}/smartarrays-numa-vm"
qboot=/usr/share/qemu/qboot.rom
exit_marker=SMARTARRAYS_GUEST_EXIT=

die() { echo "run-numa-vm: $*" >&2; exit 2; }

newest_kernel() { ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1; }

is_static() { [ -f "$1" ] && ! LC_ALL=C readelf -l "$1" 2>/dev/null | grep -q 'program interpreter'; }

busybox_path() { command -v busybox 2>/dev/null || true; }

# Prints each missing prerequisite with the Debian package that provides it.
missing_prerequisites() {
  command -v qemu-system-x86_64 >/dev/null || echo "qemu-system-x86_64 (qemu-system-x86)"
  local kernel; kernel=$(newest_kernel)
  [ -n "$kernel" ] || echo "/boot/vmlinuz-* (linux-image-amd64)"
  [ -z "$kernel" ] || [ -r "$kernel" ] || echo "read access to $kernel"
  local busybox; busybox=$(busybox_path)
  { [ -n "$busybox" ] && is_static "$busybox"; } || echo "a static busybox (busybox-static)"
  command -v cpio >/dev/null || echo "cpio (cpio)"
  command -v readelf >/dev/null || echo "readelf (binutils)"
  command -v python3 >/dev/null || echo "python3 (python3)"
  return 0
}

if [ "${1:-}" = --check ]; then
  missing=$(missing_prerequisites)
  [ -z "$missing" ] && exit 0
  echo "$missing"
  exit 1
fi

while getopts "n:c:m:d:w:t:" opt; do
  case $opt in
    n) nodes=$OPTARG ;; c) cpus=$OPTARG ;; m) memory=$OPTARG ;; d) step=$OPTARG ;;
    w) work=$OPTARG ;; t) timeout_s=$OPTARG ;; *) die "unknown option (see the usage at the top of $0)" ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || die "usage: $0 [-n NODES] [-c CPUS] [-m MIB] [-d STEP] [-w DIR] [-t SECONDS] STATIC_BINARY [ARGS...]"
binary=$1; shift
for value in "$nodes" "$memory" "$step" "$timeout_s" ${cpus:+"$cpus"}; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || die "'$value' is not a positive number"
done
[ -z "$cpus" ] && cpus=$(( nodes >= 4 ? nodes : 4 / nodes * nodes ))
(( cpus % nodes == 0 )) || die "$cpus CPUs cannot be split evenly over $nodes nodes"
(( memory / nodes >= 64 )) || die "$memory MiB over $nodes nodes leaves less than 64 MiB per node"
missing=$(missing_prerequisites)
[ -z "$missing" ] || die "missing: $(echo "$missing" | paste -sd ';' | sed 's/;/; /g')"
is_static "$binary" || die "$binary is not a static executable (the guest has no shared libraries)"

mkdir -p "$work"
kernel=$(newest_kernel)

# The uncompressed kernel boots in about 7 s under TCG instead of 18 s: it skips decompression
# in the emulated guest and can be booted directly (PVH entry) by the small qboot firmware.
vmlinux="$work/vmlinux-$(basename "$kernel" | sed 's/^vmlinuz-//')"
if [ ! -s "$vmlinux" ]; then
  if python3 - "$kernel" "$vmlinux.tmp.$$" <<'PY'
import lzma, sys
data = open(sys.argv[1], "rb").read()
start = data.find(b"\xfd7zXZ\x00")
if start < 0:
    sys.exit(1)
open(sys.argv[2], "wb").write(lzma.LZMADecompressor().decompress(data[start:]))
PY
  then mv "$vmlinux.tmp.$$" "$vmlinux"; else rm -f "$vmlinux.tmp.$$"; fi
fi
if [ -s "$vmlinux" ]; then
  boot=(-kernel "$vmlinux")
  # qboot jumps straight to the kernel; SeaBIOS (the fallback) takes a few seconds longer.
  [ -r "$qboot" ] && boot+=(-bios "$qboot")
else
  echo "run-numa-vm: $kernel has no xz payload; booting it compressed (slower)" >&2
  boot=(-kernel "$kernel")
fi

# initramfs: busybox, the binary, its arguments (one per line) and an /init that reports the status.
root=$(mktemp -d "$work/root.XXXXXX")
initrd="$work/initrd.$$.gz"
log="$work/console.$$.log"
trap 'rm -rf "$root" "$initrd"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev"
cp "$(busybox_path)" "$root/bin/busybox"
cp "$binary" "$root/bin/test"
: > "$root/args"
for arg in "$@"; do printf '%s\n' "$arg" >> "$root/args"; done
cat > "$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
set --
while IFS= read -r arg; do set -- "\$@" "\$arg"; done < /args
/bin/test "\$@"
echo "$exit_marker\$?"
/bin/busybox poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) > "$initrd"

# One socket, one memory backend and one CPU range per node; SLIT distances grow with |i - j|.
per_node=$((memory / nodes)) cores=$((cpus / nodes)) numa=()
for ((i = 0; i < nodes; i++)); do
  numa+=(-object "memory-backend-ram,id=mem$i,size=${per_node}M"
         -numa "node,nodeid=$i,memdev=mem$i,cpus=$((i * cores))-$((i * cores + cores - 1))")
  for ((j = 0; j < i; j++)); do numa+=(-numa "dist,src=$i,dst=$j,val=$((10 + step * (i - j)))"); done
done

boot_once() {
  # numa_balancing=disable: automatic page migration would move pages after the test placed them.
  timeout -k 10 "$timeout_s" qemu-system-x86_64 -accel tcg,thread=multi -cpu qemu64 \
    -m "$((per_node * nodes))M" -smp "$cpus,sockets=$nodes,cores=$cores,threads=1" "${numa[@]}" \
    "${boot[@]}" -initrd "$initrd" \
    -append "console=ttyS0 panic=-1 quiet numa_balancing=disable mitigations=off no_timer_check tsc=reliable" \
    -display none -nodefaults -no-reboot -serial stdio </dev/null | tr -d '\r' | tee "$log" || true
}

# About one boot in ninety hangs silently under TCG: a second boot tells that from a real failure.
for attempt in 1 2; do
  boot_once
  status=$(sed -n "s/^.*$exit_marker\([0-9][0-9]*\).*$/\1/p" "$log" | tail -1)
  if [ -n "$status" ]; then rm -f "$log"; exit "$status"; fi
  echo "run-numa-vm: the guest reported no exit status (boot $attempt; console kept in $log)" >&2
done
exit 125
