# `make bench-workloads` (part of `make bench`): the analytics workloads W1-W4, classic and smart
# (the command) against DuckDB on the same .npy data and thread count (python/bench/bench_workloads.py).
# WORKLOAD_FLAGS passes its options, e.g. WORKLOAD_FLAGS="--records 100M --groups 1M".
.PHONY: bench-workloads

# What the comparison needs in .venv besides the package (import names).
WORKLOAD_BENCH_PACKAGES := duckdb matplotlib

bench-workloads: build python
	@echo "== Analytics workloads W1-W4: classic, smart, DuckDB"
	@scripts/python-venv.sh $(WORKLOAD_BENCH_PACKAGES) >/dev/null
	@.venv/bin/python python/bench/bench_workloads.py --cli $(BUILD)/bin/smartarrays --out $(BUILD)/bench-results $(WORKLOAD_FLAGS)

EXTRA_BENCHES += bench-workloads
