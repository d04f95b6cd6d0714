#!/usr/bin/env bash
# `make bench-tune`: the NUMA analytics study's tuning experiments on this machine (docs/tune.md).
#   1. the start overhead of `smartarrays run` (bench_run);
#   2. `smartarrays tune` over the study's workloads through `smartarrays bench workload`: classic W1
#      and W3 (the study's >= 1.3x allocator claim) twice, with different run-order seeds, to check
#      that the recommendation reproduces, by the workload's own time and by CPU time; classic W2, W4
#      and the smart forms of W1-W4 once;
#   3. W5: TPC-H on DuckDB and PostgreSQL (bench/tune/tpch.py; duckdb and tpchgen-cli into .venv);
#   4. the summary table of every workload next to the study's figures (bench/tune/summarize.py).
# Grid of every workload: the five allocators x THP on/off (first-touch, no pinning: on a one-node
# machine the policies and CPU sets place every page and thread alike); the allocators must be
# installed (scripts/check-tools.sh --all). Sizes, set by environment variables:
#   TUNE_W12_RECORDS (default 4M) records and TUNE_GROUPS (1M) groups for W1/W2,
#   TUNE_W34_ROWS (4M) |R| for W3/W4 (|S| = 16 |R|), TUNE_REPS (5) runs per configuration,
#   TPCH_SCALE (1) for W5, TUNE_TPCH_REPS (3).
# Tables on stdout, a progress line per tune on stderr, JSON in BUILD/bench-results/tune-*.json.
set -euo pipefail
build=${1:-build}
out="$build/bench-results"
cli="$build/bin/smartarrays"
mkdir -p "$out"
w12_records=${TUNE_W12_RECORDS:-4M}
groups=${TUNE_GROUPS:-1M}
w34_rows=${TUNE_W34_ROWS:-4M}
reps=${TUNE_REPS:-5}
scale=${TPCH_SCALE:-1}
tpch_reps=${TUNE_TPCH_REPS:-3}
steps=19
step=0
say() { step=$((step + 1)); echo "== [$step/$steps] $*"; }

say "start overhead of smartarrays run"
"$build/bin/bench_run" --out "$out"

grid=(--allocators glibc,jemalloc,tcmalloc,mimalloc,tbbmalloc --policies first-touch --pinnings none --thp on,off)
summary=()
# tune_workload NAME IMPL WORKLOAD SEED ARGS...: one tune of `bench workload` reading the median the
# workload prints for IMPL (its own timed runs: the data generation is not in the metric).
tune_workload() {
  local name=$1 impl=$2 workload=$3 seed=$4
  shift 4
  say "tune: $workload $impl ($*), allocators x THP, seed $seed, $reps runs each"
  "$cli" tune "${grid[@]}" --repetitions "$reps" --seed "$seed" --metric "$impl +([0-9.]+)" \
    --json "$out/tune-$name.json" -- "$cli" bench workload "$workload" --impl "$impl" --repetitions 1 --warmup 0 --quiet "$@"
}
w12=(--records "$w12_records" --groups "$groups")
w34=(--records "$w34_rows")
for impl in classic smart; do
  tune_workload "w1-$impl" "$impl" w1 1 "${w12[@]}"
  tune_workload "w3-$impl" "$impl" w3 1 "${w34[@]}"
done
# The reruns of classic W1 and W3 with another run order: does the recommendation reproduce?
tune_workload w1-classic-rerun classic w1 2 "${w12[@]}"
tune_workload w3-classic-rerun classic w3 2 "${w34[@]}"
# Classic W1 and W3 by CPU time (their own threads' work, not waiting for a CPU on a shared machine;
# it includes making the data, hence two timed runs per process), twice.
for seed in 1 2; do
  suffix=$([ "$seed" = 1 ] && echo "" || echo "-rerun")
  for args in "w1 ${w12[*]}" "w3 ${w34[*]}"; do
    workload=${args%% *}
    say "tune: $workload classic by CPU time, allocators x THP, seed $seed, $reps runs each"
    # shellcheck disable=SC2086 # args is the workload and its flags, split on purpose
    "$cli" tune "${grid[@]}" --repetitions "$reps" --seed "$seed" --cpu-time \
      --json "$out/tune-$workload-classic-cpu$suffix.json" -- "$cli" bench workload $args --impl classic \
      --repetitions 2 --warmup 0 --quiet
  done
done
for impl in classic smart; do
  tune_workload "w2-$impl" "$impl" w2 1 "${w12[@]}"
  tune_workload "w4-$impl" "$impl" w4 1 "${w34[@]}"
done

python=$(scripts/python-venv.sh duckdb tpchgen-cli)
tpch=(bench/tune/tpch.py --scale "$scale" --cli "$cli" --work "$build/tpch-data")
say "W5: TPC-H scale $scale: the two databases agree"
"$python" "${tpch[@]}" --check
for db in duckdb postgres; do
  say "tune: W5 TPC-H scale $scale on $db (the total of the 22 queries), $tpch_reps runs"
  "$cli" tune "${grid[@]}" --repetitions "$tpch_reps" --metric "$db total ([0-9.]+) s" \
    --json "$out/tune-tpch-$db.json" -- "$python" "${tpch[@]}" --databases "$db"
done

say "summary (gains against glibc with nothing changed)"
python3 bench/tune/summarize.py --json "$out/tune-summary.json" \
  "W1 classic=$out/tune-w1-classic.json,$out/tune-w1-classic-rerun.json" \
  "W1 classic, CPU time=$out/tune-w1-classic-cpu.json,$out/tune-w1-classic-cpu-rerun.json" \
  "W1 smart=$out/tune-w1-smart.json" \
  "W2 classic=$out/tune-w2-classic.json" "W2 smart=$out/tune-w2-smart.json" \
  "W3 classic=$out/tune-w3-classic.json,$out/tune-w3-classic-rerun.json" \
  "W3 classic, CPU time=$out/tune-w3-classic-cpu.json,$out/tune-w3-classic-cpu-rerun.json" \
  "W3 smart=$out/tune-w3-smart.json" \
  "W4 classic=$out/tune-w4-classic.json" "W4 smart=$out/tune-w4-smart.json" \
  "W5 DuckDB SF$scale=$out/tune-tpch-duckdb.json" "W5 PostgreSQL SF$scale=$out/tune-tpch-postgres.json"
