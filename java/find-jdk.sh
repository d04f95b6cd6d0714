#!/bin/sh
# Prints the home of a JDK >= 22 (the Java binding needs the Foreign Function & Memory API):
# $JAVA_HOME if it is one, else the newest under /usr/lib/jvm. Fails with one clear message if none.
need=22

# The feature version of the JDK at $1 (25 for "25.0.3", 1 for "1.8.0"), or nothing if it is not a JDK.
feature_version() {
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
  "$1/bin/java" -version 2>&1 | sed -n '1s/^[^"]*"\([0-9][0-9]*\).*/\1/p'
}

if [ -n "$JAVA_HOME" ]; then
  v=$(feature_version "$JAVA_HOME")
  if [ -n "$v" ] && [ "$v" -ge "$need" ]; then
    echo "$JAVA_HOME"
    exit 0
  fi
fi

best=""
best_version=0
for home in /usr/lib/jvm/*; do
  [ -d "$home" ] || continue
  v=$(feature_version "$home")
  if [ -n "$v" ] && [ "$v" -ge "$need" ] && [ "$v" -gt "$best_version" ]; then
    best="$home"
    best_version="$v"
  fi
done
if [ -n "$best" ]; then
  echo "$best"
  exit 0
fi

echo "error: the Java binding needs a JDK >= $need (Foreign Function & Memory API); none found" \
  "(JAVA_HOME=${JAVA_HOME:-unset}, /usr/lib/jvm/*). Install one, e.g. Temurin 25, and set JAVA_HOME." >&2
exit 1
