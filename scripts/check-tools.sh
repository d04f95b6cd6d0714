#!/usr/bin/env bash
# Checks (and on a root Debian machine installs) what the C++ build needs: g++ >= 12, cmake, ninja, GoogleTest.
set -euo pipefail
missing=()
command -v g++ >/dev/null || missing+=(g++)
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
[ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
((${#missing[@]} == 0)) && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing build tools: ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  exit 0
fi
echo "smartarrays needs these Debian packages: ${missing[*]}" >&2
echo "install them with: sudo apt-get install ${missing[*]}" >&2
exit 1
