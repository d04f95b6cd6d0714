# The Python package (python/): `make python` builds it with pip (scikit-build-core, nanobind) from
# this CMake tree into the project's .venv; `make test-python` runs its pytest suite (part of
# `make test`); `make bench-python` runs its benchmarks (part of `make bench`); `make bench-dask`
# runs smartarrays.dask's on a 2-worker LocalCluster (docs/dask.md).
.PHONY: python test-python bench-python bench-dask

# What building, testing and benchmarking the package needs in .venv (import names, extras in brackets).
PYTHON_PACKAGES := numpy pytest networkx scipy nanobind scikit_build_core dask[array] distributed
# A persistent build tree, so rebuilding after an edit compiles only what changed.
PYTHON_BUILD_DIR := $(abspath $(BUILD))/python

# The core is compiled with the C++ tree's compiler name (CMake's default, c++, unless CXX is set):
# scikit-build-core would take Python's own (g++) from sysconfig, and ccache keys objects by that name,
# so only the same name lets this build reuse the Release tree's objects.
python:
	@echo "== Python package (pip install ./python into .venv)"
	@python=$$(scripts/python-venv.sh $(PYTHON_PACKAGES)) && \
	  CXX=$${CXX:-c++} CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $$python -m pip install --quiet --disable-pip-version-check \
	    --no-build-isolation -C build-dir=$(PYTHON_BUILD_DIR) ./python

# The graph tests compare with the command, so the C++ build comes first.
test-python: build python
	@echo "== Python tests (pytest)"
	@SMARTARRAYS_CLI=$(abspath $(BUILD))/bin/smartarrays .venv/bin/python -m pytest -q python/tests

# What only the benchmarks need (the compact form's comparisons with pyarrow, hostile input's with DuckDB).
PYTHON_BENCH_PACKAGES := pyarrow duckdb

bench-python: build python
	@echo "== Python benchmarks"
	@scripts/python-venv.sh $(PYTHON_BENCH_PACKAGES) >/dev/null
	@.venv/bin/python python/bench/bench_arrays.py --out $(BUILD)/bench-results
	@.venv/bin/python python/bench/bench_store.py --out $(BUILD)/bench-results --dir $(BUILD)/bench-store-python
	@.venv/bin/python python/bench/bench_hostile.py --cli $(BUILD)/bin/smartarrays --out $(BUILD)/bench-results

bench-dask: python
	@echo "== Dask benchmarks (2 local workers)"
	@.venv/bin/python python/bench/bench_dask.py --out $(BUILD)/bench-results

EXTRA_TESTS += test-python
EXTRA_BENCHES += bench-python
