#!/usr/bin/env bash
# Owns the fuzzing runs: builds the libFuzzer harnesses of fuzz/ in the sanitizer tree BUILD-asan
# (scripts/configure-asan.sh: clang-14, ASan+UBSan and coverage), then for each harness, one per
# core side by side, (1) runs every file of its corpus
# (fuzz/corpus/<name>: seeds and every input that once failed) once at full size, and (2) fuzzes for
# SECONDS from a copy of that corpus with inputs up to FUZZ_MAX_LEN bytes. Both run with a memory
# limit and a per-input timeout, so an input that makes the library allocate without bound or hang
# is a failure like a crash. Findings land in BUILD-asan/findings/<name>/ and fail the run; the
# executions and their rate are printed per harness.
# FUZZ_RUNS=N makes each harness a campaign of N executions that may take several runs, on several
# machines: a run fuzzes until the campaign's total reaches N or SECONDS run out, and the next run
# of the same harness resumes it. Each run is a segment in fuzz/campaigns/<name>.tsv, in the source
# tree (start, commit, source key, binary, executions, rate, peak RSS, result); a run resumes the
# campaign when its binary, or the sources and toolchain it was built from, are those of a segment.
# A killed segment is counted from the last progress line of its log, or, on another machine, from
# the count its run recorded each FUZZ_RECORD_SECONDS. A changed harness starts a new campaign (the
# old ledger is moved into BUILD-asan/findings/<name>/). FUZZ_WORKERS=K runs a campaign's segment as
# K libFuzzer processes on one shared corpus (each reloads what the others add), one log each, their
# executions summed.
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
workers=${FUZZ_WORKERS:-1}
[[ "$workers" =~ ^[1-9][0-9]*$ ]] || { echo "FUZZ_WORKERS: expected a whole number >= 1, got '$workers'" >&2; exit 2; }

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
# The first line of a report that names what was found (a sanitizer's, libFuzzer's or a harness's).
finding_line='^==[0-9]+== ?ERROR|runtime error|^SUMMARY|round-trip finding|command-line finding'

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
    echo "   FAILED on the corpus: $(grep -m1 -E "$finding_line" "$findings/regression.txt" || echo 'see log')"
    echo "   log: $findings/regression.txt"
    return 1
  fi
  cp -n "$seeds"/* "$work"/ 2>/dev/null || true
  if ((runs < 0)); then
    fuzz_segment "$binary" "$work" "$findings" "$findings/log.txt" -1 || return 1
    echo "   $(segment_summary "$findings/log.txt"), corpus $(ls "$work" | wc -l) inputs"
  else
    run_campaign "$name" "$binary" "$work" "$findings"
  fi
}

# Starts libFuzzer on BINARY from corpus WORK in the background for SECONDS or RUNS executions (-1:
# no limit), its log in LOG; $! is the fuzzer itself.
start_fuzzer() {
  local binary=$1 work=$2 findings=$3 log=$4 segment_runs=$5
  "$binary" "$work" "${limits[@]}" -max_len="$max_len" -max_total_time="$seconds" -runs="$segment_runs" \
    -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1 &
}

# Prints what a fuzzer that failed found, from its LOG.
report_finding() {
  local binary=$1 findings=$2 log=$3
  echo "   FAILED: $(grep -m1 -E "$finding_line" "$log" || echo 'see log')"
  echo "   log: $log; reproducer: $(ls "$findings" | grep -v -e '\.txt$' -e '\.log$' -e '\.tsv$' -e '\.lock$' | head -1)" \
    "(full allocation stacks: ASAN_OPTIONS=malloc_context_size=30 $binary REPRODUCER)"
}

# Fuzzes as start_fuzzer does and waits. Returns non-zero on a finding, after printing it.
fuzz_segment() {
  start_fuzzer "$@"
  wait $! && return 0
  report_finding "$1" "$3" "$4"
  return 1
}

# "N executions, R exec/s, peak RSS M MB" from a finished segment's final statistics.
segment_summary() {
  echo "$(final_stat "$1" number_of_executed_units) executions, $(final_stat "$1" average_exec_per_sec) exec/s," \
    "peak RSS $(final_stat "$1" peak_rss_mb) MB"
}
final_stat() { sed -n "s/^stat::$2: *//p" "$1"; }

# The executions a killed segment reached: the count of the last progress line of its log ("#N ...").
last_progress() { { grep -o '^#[0-9]*' "$1" 2>/dev/null || true; } | tail -1 | tr -d '#'; }

# The logs of the segment that started at START: one, or one per worker.
segment_logs() { ls "$1/campaign-$2.log" "$1/campaign-$2-w"*.log 2>/dev/null || true; }

# A segment's executions (its workers' sum: the final statistics, else the last progress line),
# summed exec/s and largest peak RSS, tab-separated; "-" where a killed worker printed none.
segment_stats() {
  local total=0 rate=0 peak=0 log n r p
  for log in $(segment_logs "$1" "$2"); do
    n=$(final_stat "$log" number_of_executed_units)
    [ -n "$n" ] || n=$(last_progress "$log")
    total=$((total + ${n:-0}))
    r=$(final_stat "$log" average_exec_per_sec)
    p=$(final_stat "$log" peak_rss_mb)
    if [ -n "$r" ] && [ "$rate" != - ]; then rate=$((rate + r)); else rate=-; fi
    if [ -n "$p" ] && [ "$peak" != - ]; then ((p > peak)) && peak=$p; else peak=-; fi
  done
  printf '%s\t%s\t%s\n' "$total" "$rate" "$peak"
}

# What a harness binary is built from, as one key: the committed sources and build files of the tree
# and the versions of what is compiled or linked into it statically (clang, its sanitizer and
# libFuzzer runtimes, libstdc++'s headers; libc is linked dynamically, so the machine's own runs
# whatever the key). Builds with the same key are the same harness on any machine (their binaries
# may still differ in a path or a build id), so a campaign resumes across machines. A tree with
# changes to any of those files has no such key: its campaign is its binary's.
source_key() {
  local sha=$1 listing
  local paths=(src include fuzz cmake CMakeLists.txt scripts/configure-asan.sh)
  local changes=("${paths[@]}" ':(exclude)fuzz/corpus' ':(exclude)fuzz/campaigns')
  if ! git -C "$root" diff --quiet HEAD -- "${changes[@]}" 2>/dev/null ||
      [ -n "$(git -C "$root" ls-files --others --exclude-standard -- "${changes[@]}")" ] ||
      ! listing=$(git -C "$root" ls-tree -r HEAD -- "${paths[@]}" | grep -v -P '\tfuzz/(corpus|campaigns)/'); then
    echo "binary:$sha"
    return
  fi
  { echo "$listing"; clang++-14 --version | head -1
    dpkg-query -W clang-14 libclang-rt-14-dev libstdc++-12-dev 2>/dev/null || true
  } | sha256sum | cut -c1-16 | sed 's/^/source:/'
}

# Rewrites the ledger's segment that started at START, if still running: RESULT, EXECUTIONS, and
# RATE and RSS ("-" when not given).
set_running_segment() {
  local ledger=$1 start=$2 result=$3 n=$4 rate=${5:--} rss=${6:--}
  awk -F'\t' -v OFS='\t' -v start="$start" -v n="$n" -v rate="$rate" -v rss="$rss" -v result="$result" \
      'NR > 1 && $1 == start && $8 == "running" { $5 = n + 0; $6 = rate; $7 = rss; $8 = result } { print }' \
      "$ledger" >"$ledger.new" && mv "$ledger.new" "$ledger"
}

# One harness's campaign of $runs executions. Its ledger is in the source tree
# (fuzz/campaigns/NAME.tsv, committed like the corpus), one segment per run: a run resumes the
# campaign when its binary or its source key is one the ledger's segments had.
run_campaign() {
  local name=$1 binary=$2 work=$3 findings=$4
  local ledger="$root/fuzz/campaigns/$name.tsv" sha source commit start lock
  mkdir -p "$root/fuzz/campaigns"
  # One campaign per harness at a time: the lock is held until its last fuzzer ends.
  exec {lock}>"$root/fuzz/campaigns/.$name.lock"
  if ! flock -n "$lock"; then
    echo "   FAILED: a campaign of $name is already running from this tree (its ledger: $ledger)"
    return 1
  fi
  sha=$(sha256sum "$binary" | cut -c1-16)
  source=$(source_key "$sha")
  commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  if [ -f "$ledger" ] && ! awk -F'\t' -v source="$source" -v sha="$sha" \
      'NR > 1 && ($3 == source || $4 == sha) { same = 1 } END { exit !same }' "$ledger"; then
    mv "$ledger" "$findings/campaign-until-$start.tsv"
    echo "   the harness changed since its campaign's segments: a new campaign" \
      "(the old ledger: $findings/campaign-until-$start.tsv, and in git's history)"
  fi
  [ -f "$ledger" ] ||
    printf 'start\tcommit\tsource\tbinary\texecutions\texec_per_s\tpeak_rss_mb\tresult\n' >"$ledger"
  # A segment still marked running was killed (the session ended, or kill -9): counted to the last
  # progress line of its logs, or, where they are not (another machine ran it), to the last count
  # its run recorded.
  local killed
  for killed in $(awk -F'\t' 'NR > 1 && $8 == "running" { print $1 }' "$ledger"); do
    if [ -n "$(segment_logs "$findings" "$killed")" ]; then
      set_running_segment "$ledger" "$killed" "killed, counted to its last progress line" \
        "$(segment_stats "$findings" "$killed" | cut -f1)"
    else
      set_running_segment "$ledger" "$killed" "killed, counted to its last recorded progress" \
        "$(awk -F'\t' -v start="$killed" 'NR > 1 && $1 == start { print $5 }' "$ledger")"
    fi
  done
  # A finding ends a campaign: it cannot go on to report none with the same binary.
  local found
  found=$(awk -F'\t' 'NR > 1 && $8 == "finding" { print $1; exit }' "$ledger")
  if [ -n "$found" ]; then
    echo "   FAILED: this campaign's segment of $found found a problem (its logs: $findings/campaign-$found*.log);" \
      "fix it, and the rebuilt harness starts a new campaign"
    return 1
  fi
  local done_runs
  done_runs=$(awk -F'\t' 'NR > 1 { s += $5 } END { print s + 0 }' "$ledger")
  if ((done_runs >= runs)); then
    echo "   campaign complete: $done_runs of $runs executions in $(($(wc -l <"$ledger") - 1)) segments, no findings"
    return 0
  fi
  printf '%s\t%s\t%s\t%s\t0\t-\t-\trunning\n' "$start" "$commit" "$source" "$sha" >>"$ledger"
  # Each worker runs its share of what is left; a single one keeps the plain log name. A finding
  # stops the other workers (counted to their last progress lines).
  local share=$(((runs - done_runs + workers - 1) / workers)) k ended result=ok
  local -A log_of=()
  for ((k = 1; k <= workers; k++)); do
    local log="$findings/campaign-$start.log"
    ((workers == 1)) || log="$findings/campaign-$start-w$k.log"
    start_fuzzer "$binary" "$work" "$findings" "$log" "$share"
    log_of[$!]=$log
  done
  # The running segment's count is recorded every FUZZ_RECORD_SECONDS, so a run whose machine is
  # gone still counts to then (the recorder stops with this run).
  (exec {lock}>&-
  while sleep "${FUZZ_RECORD_SECONDS:-60}" && kill -0 $$ 2>/dev/null; do
    set_running_segment "$ledger" "$start" running "$(segment_stats "$findings" "$start" | cut -f1)"
  done) &
  local recorder=$!
  while ((${#log_of[@]} > 0)); do
    if wait -n -p ended "${!log_of[@]}"; then
      unset "log_of[$ended]"
      continue
    fi
    result=finding
    report_finding "$binary" "$findings" "${log_of[$ended]}"
    unset "log_of[$ended]"
    for k in "${!log_of[@]}"; do
      kill -9 "$k" 2>/dev/null || true
      wait "$k" 2>/dev/null || true
    done
    log_of=()
  done
  kill "$recorder" 2>/dev/null || true
  wait "$recorder" 2>/dev/null || true
  local stats executions
  stats=$(segment_stats "$findings" "$start")
  executions=$(cut -f1 <<<"$stats")
  set_running_segment "$ledger" "$start" "$result" "$executions" "$(cut -f2 <<<"$stats")" "$(cut -f3 <<<"$stats")"
  [ "$result" = ok ] || return 1
  done_runs=$((done_runs + ${executions:-0}))
  echo "   this segment: $executions executions, $(cut -f2 <<<"$stats") exec/s on $workers worker(s)," \
    "peak RSS $(cut -f3 <<<"$stats") MB, corpus $(ls "$work" | wc -l) inputs"
  if ((done_runs >= runs)); then
    echo "   campaign complete: $done_runs of $runs executions in $(($(wc -l <"$ledger") - 1)) segments, no findings" \
      "(ledger: $ledger)"
  else
    echo "   campaign at $done_runs of $runs executions, no findings; the same command resumes it (ledger: $ledger)"
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
  # (set -e ends a subshell at a failing command: the status is written either way.)
  (if run_harness "$name" >"$reports/$name" 2>&1; then echo 0; else echo 1; fi >"$reports/$name.status") &
  pids+=($!)
done
wait "${pids[@]}" || true
for name in "${harnesses[@]}"; do
  cat "$reports/$name"
  [ "$(cat "$reports/$name.status")" = 0 ] || failed+=("$name")
done
if ((${#failed[@]})); then
  echo "fuzzing failed in: ${failed[*]} (each one's FAILED line above says why)" >&2
  exit 1
fi
echo "fuzzing: no findings"
