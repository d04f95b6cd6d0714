#!/usr/bin/env bash
# The one install path: checks the Debian packages every suite of `make test` needs and, as root on
# Debian, installs the missing ones (apt-get update first). `.ci/run` and `make` both call it.
# Any other system gets one message naming what to install.
#   scripts/check-tools.sh          what the C++ build needs (make build)
#   scripts/check-tools.sh --all    everything `make test` runs: also the emulated-NUMA guest
#                                   (qemu, a kernel, busybox, cpio), python3-venv, the fuzzers and
#                                   the allocators `smartarrays run --allocator` preloads and the
#                                   PostgreSQL server of the TPC-H workload (bench/tune/tpch.py), and
#                                   ccache (the Python package's build of the core reuses the
#                                   Release build's objects)
set -euo pipefail
all=false
[ "${1:-}" = --all ] && all=true

# package -> a file or command it provides (checked without dpkg, so non-Debian systems work too)
declare -A probe=(
  [g++]=cmd:g++ [cmake]=cmd:cmake [ninja-build]=cmd:ninja
  [libgtest-dev]=/usr/include/gtest/gtest.h
  [nlohmann-json3-dev]=/usr/include/nlohmann/json.hpp
  [libcli11-dev]=/usr/include/CLI/CLI.hpp
  [libisal-dev]=/usr/include/isa-l/crc.h
  [libre2-dev]=/usr/include/re2/re2.h
)
build_packages=(g++ cmake ninja-build libgtest-dev nlohmann-json3-dev libcli11-dev libisal-dev libre2-dev)
test_packages=(python3-venv qemu-system-x86 linux-image-amd64 busybox-static cpio clang-14 libclang-rt-14-dev
               libjemalloc2 libtcmalloc-minimal4 libmimalloc2.0 libtbbmalloc2 postgresql ccache)
probe+=([python3-venv]=python-venv [qemu-system-x86]=cmd:qemu-system-x86_64 [busybox-static]=/bin/busybox
        [cpio]=cmd:cpio [clang-14]=cmd:clang++-14 [ccache]=cmd:ccache
        [linux-image-amd64]=kernel [libjemalloc2]=lib:libjemalloc.so.2
        [libtcmalloc-minimal4]=lib:libtcmalloc_minimal.so.4 [libmimalloc2.0]=lib:libmimalloc.so.2
        [libtbbmalloc2]=lib:libtbbmalloc_proxy.so.2 [postgresql]=postgres [libclang-rt-14-dev]=/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a)

# The loader's cache, read once: grep -q on ldconfig's pipe would end it early, and pipefail would
# then take a library that is there for one that is missing.
libraries=$({ ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } || true)
present() {
  case "$1" in
    cmd:*) command -v "${1#cmd:}" >/dev/null ;;
    python-venv) python3 -c 'import ensurepip, venv' 2>/dev/null ;;
    kernel) compgen -G '/boot/vmlinuz-*' >/dev/null ;;
    postgres) compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null ;;
    lib:*) grep -qF "${1#lib:} " <<<"$libraries" ;;
    *) [ -e "$1" ] ;;
  esac
}

wanted=("${build_packages[@]}")
$all && wanted+=("${test_packages[@]}")
missing=()
for package in "${wanted[@]}"; do
  present "${probe[$package]}" || missing+=("$package")
done
((${#missing[@]} == 0)) && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi
echo "smartarrays needs these Debian packages: ${missing[*]}" >&2
echo "install them with: sudo apt-get install ${missing[*]}" >&2
exit 1
