# The project's Python virtual environment (.venv, python3 -m venv) with matplotlib for the figures
# and Dask for smartarrays.dask; scripts/demo.sh calls the same script, so `make demo` installs it
# when needed.
.PHONY: venv
venv:
	@scripts/python-venv.sh matplotlib "dask[array]" distributed >/dev/null
