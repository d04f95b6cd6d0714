# The project's Python virtual environment (.venv, python3 -m venv) with matplotlib for the figures
# and Dask for smartarrays.dask; scripts/demo.sh calls the same script, so `make demo` installs it
# when needed.
.PHONY: venv test-venv
venv:
	@scripts/python-venv.sh matplotlib "dask[array]" distributed >/dev/null

# What the C++ suite's Python-driven tests need in .venv (PyPI): the TPC-H agreement test
# (bench/tune/tpch.py, ctest tpch_databases_agree) runs DuckDB and makes its data with tpchgen-cli;
# without them it would skip. PostgreSQL comes from Debian (scripts/check-tools.sh --all).
TEST_VENV_PACKAGES := duckdb tpchgen-cli

test-venv:
	@scripts/python-venv.sh $(TEST_VENV_PACKAGES) >/dev/null

test-unit: test-venv
