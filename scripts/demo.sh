#!/usr/bin/env bash
# The main job (`make demo`): shows the machine as smartarrays sees it, runs the paper's aggregation
# experiment (Figure 10: bit widths x placements x thread counts) at a size that takes about a
# minute on a 2-core machine, prints the result table and draws the figure; then runs PageRank on a
# generated R-MAT graph with the U, V and V+E layouts side by side (paper Figure 12); then writes
# that graph in the compact form (.sa), checks it, and reopens it mapped (no parse, no copy); last,
# the adaptive choice for the aggregation with its explanation (calibrating quickly first if needed).
#   scripts/demo.sh BUILD_DIR          (DEMO_SIZE=64M DEMO_REPS=3 scripts/demo.sh build to change the run)
set -euo pipefail
build=${1:-build}
root="$(cd "$(dirname "$0")/.." && pwd)"
cli="$build/bin/smartarrays"
size=${DEMO_SIZE:-96M}
reps=${DEMO_REPS:-5}
out="$build/bench-results"
json="$out/aggregate-demo.json"
figure="$out/aggregate-demo.png"

[ -x "$cli" ] || { echo "demo: $cli is missing; run 'make build' first" >&2; exit 1; }
mkdir -p "$out"
cpus=$(nproc)
threads=1
[ "$cpus" -gt 1 ] && threads="1,$cpus"
start=$(date +%s)

echo "== 1. the machine (smartarrays topology)"
"$cli" topology
echo
echo "== 2. the aggregation experiment (smartarrays bench aggregate)"
echo "   two arrays of $size values, a[i] = (i + random{0,1,2}) & (2^bits - 1), sum += a1[i] + a2[i]"
echo "   threads $threads, $reps timed runs per combination (median), every sum checked"
echo
"$cli" bench aggregate --size "$size" --threads "$threads" --repetitions "$reps" --json "$json"
echo
echo "== 3. the figure (bench/plot_aggregate.py)"
python=$("$root/scripts/python-venv.sh" matplotlib)
"$python" "$root/bench/plot_aggregate.py" "$json" -o "$figure" >/dev/null
echo "figure:  $figure"
echo "results: $json"
echo
echo "== 4. PageRank on a generated graph (smartarrays graph pagerank, paper Figure 12)"
graph="$out/rmat-demo.sg"
echo "   R-MAT 2^${DEMO_GRAPH_SCALE:-18} vertices (Graph500 parameters, edge factor 16, duplicates and self-loops dropped)"
echo
"$cli" graph generate --scale "${DEMO_GRAPH_SCALE:-18}" --dedup --drop-self-loops --quiet --output "$graph"
"$cli" graph pagerank "$graph" --variant U,V,V+E --top 5 --quiet --json "$out/pagerank-demo.json"
echo
echo "== 5. the compact form: the graph as a store file, reopened mapped (smartarrays graph convert, store)"
compact="$out/rmat-demo.sa"
"$cli" graph convert "$graph" "$compact" --quiet
"$cli" store list "$compact"
"$cli" store verify "$compact" --deep
"$cli" graph pagerank "$compact" --top 5 --quiet
echo
echo "== 6. an adaptive choice and why (smartarrays advise, paper section 6)"
if "$cli" topology | grep -q "machine profile: none cached"; then
  echo "   no calibrated profile of this machine yet: smartarrays calibrate --quick"
  "$cli" calibrate --quick --quiet >/dev/null
fi
"$cli" advise --workload aggregate --length "$size" --bits 33
echo "demo took $(($(date +%s) - start)) s"
