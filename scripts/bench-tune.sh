#!/usr/bin/env bash
# `make bench-tune`: the tuning experiments this tree can run (docs/tune.md): the start overhead of
# `smartarrays run`, then `smartarrays tune` over an allocation-heavy program (allocators, the
# study's strongest knob), over the aggregation benchmark and over PageRank (the full default grid
# for aggregation), then W5: TPC-H at scale 1 on DuckDB and PostgreSQL (bench/tune/tpch.py, its
# tools installed into .venv) with allocators x THP for each. Tables on stdout, JSON in
# BUILD/bench-results/tune-*.json. The study's W1-W4 join this list when `smartarrays bench
# workload` lands.
set -euo pipefail
build=${1:-build}
out="$build/bench-results"
cli="$build/bin/smartarrays"
mkdir -p "$out"
echo "== start overhead of smartarrays run"
"$build/bin/bench_run" --out "$out"
echo "== tune: allocation churn (4 threads x 4M operations), allocators x THP"
"$cli" tune --quiet --repetitions 5 --policies first-touch --pinnings none --thp on,off \
  --metric 'in ([0-9.]+) s' --json "$out/tune-alloc-churn.json" -- "$build/bin/alloc_churn" 4000000 4
echo "== tune: smartarrays bench aggregate (4M values, 32 bits, 2 threads), the full default grid"
"$cli" tune --quiet --repetitions 3 --json "$out/tune-aggregate.json" -- \
  "$cli" bench aggregate --size 4M --bits 32 --placements os_default --threads 2 --repetitions 3 --quiet
graph="$out/tune-rmat16.sg"
[ -s "$graph" ] || "$cli" graph generate --output "$graph" --scale 16 >/dev/null
echo "== tune: smartarrays graph pagerank (RMAT scale 16), allocators x policies x THP"
"$cli" tune --quiet --repetitions 3 --policies first-touch,interleave --pinnings dense --thp on,off \
  --json "$out/tune-pagerank.json" -- "$cli" graph pagerank "$graph" 2>/dev/null
python=$(scripts/python-venv.sh duckdb tpchgen-cli)
tpch="bench/tune/tpch.py --scale ${TPCH_SCALE:-1} --cli $cli --work $build/tpch-data"
echo "== W5: TPC-H scale ${TPCH_SCALE:-1}: the two databases agree"
"$python" $tpch --check
for db in duckdb postgres; do
  echo "== tune: W5 TPC-H on $db, allocators x THP (the total of the 22 queries)"
  "$cli" tune --quiet --repetitions 3 --policies first-touch --pinnings none --thp on,off \
    --metric "$db total ([0-9.]+) s" --json "$out/tune-tpch-$db.json" -- "$python" $tpch --databases "$db"
done
