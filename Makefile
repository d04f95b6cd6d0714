# The one build entry point. Delegates to CMake (C++ core), and later Maven and pip.
#   make demo   build, then run the main job
#   make test   build, then run every test (plain, ASan+UBSan, TSan, emulated-NUMA VM, fuzz smoke)
#   make bench  build, then run the benchmarks (tables on stdout, JSON in build/bench-results)
.DEFAULT_GOAL := build
.PHONY: build demo test test-unit test-asan test-tsan test-vm test-fuzz bench bench-tune fuzz fuzz-store clean check-tools check-test-tools

# Language bindings and other components add their own targets in mk/*.mk and append their test
# target to EXTRA_TESTS (run by `make test`) and their benchmark target to EXTRA_BENCHES.
EXTRA_TESTS :=
EXTRA_BENCHES :=
JOBS    ?= $(shell nproc)
BUILD   ?= build
CMAKE_GEN := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
CTEST_FLAGS := --output-on-failure --no-tests=error -j $(JOBS)

# (included before the rules below: make expands prerequisites as it reads them)
include $(wildcard mk/*.mk)

check-tools:
	@scripts/check-tools.sh

# Everything the suites of `make test` need (the emulated-NUMA guest, python3-venv, the fuzzers).
check-test-tools:
	@scripts/check-tools.sh --all

# configure DIR EXTRA-CMAKE-ARGS
define configure
	@test -f $(1)/CMakeCache.txt || cmake -S . -B $(1) $(CMAKE_GEN) $(2) >/dev/null
endef

build: check-tools
	$(call configure,$(BUILD),-DCMAKE_BUILD_TYPE=Release)
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

test: check-test-tools test-unit test-asan test-tsan test-vm test-fuzz $(EXTRA_TESTS)
	@echo "make test: all suites passed"

test-unit: build
	@echo "== unit tests (Release)"
	@cd $(BUILD) && ctest $(CTEST_FLAGS)

# One sanitized tree serves the unit tests and the fuzz harnesses (scripts/configure-asan.sh: clang-14,
# ASan+UBSan with libFuzzer's coverage), so the library is compiled once for both.
test-asan: check-test-tools
	@echo "== unit tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang-14)"
	@scripts/configure-asan.sh $(BUILD)-asan
	@cmake --build $(BUILD)-asan -j $(JOBS)
	@cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest $(CTEST_FLAGS)

# The layers whose tests run under ThreadSanitizer: those that start threads or share data between
# them. Only their test binaries (and the command, which the graph tests run) are built.
TSAN_LAYERS := os array runtime build graph store algo collections capi
empty :=
space := $(empty) $(empty)
test-tsan: check-tools
	@echo "== $(TSAN_LAYERS) tests under ThreadSanitizer"
	$(call configure,$(BUILD)-tsan,-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSMARTARRAYS_SANITIZE=thread -DSMARTARRAYS_BENCH=OFF)
	@cmake --build $(BUILD)-tsan -j $(JOBS) --target $(addprefix test_,$(TSAN_LAYERS)) smartarrays_cli
	@cd $(BUILD)-tsan && TSAN_OPTIONS=halt_on_error=1 ctest $(CTEST_FLAGS) -L '^($(subst $(space),|,$(TSAN_LAYERS)))$$'

test-vm: build
	@tests/vm/run-placement-tests.sh $(BUILD)

bench: build $(EXTRA_BENCHES)
	@scripts/bench.sh $(BUILD)

# `smartarrays run` and `tune` on this machine (docs/tune.md).
bench-tune: build
	@scripts/bench-tune.sh $(BUILD)

# The libFuzzer harnesses of fuzz/ (built in the ASan+UBSan tree): each runs its corpus, then fuzzes
# for FUZZ_SMOKE_SECONDS in `make test` and FUZZ_SECONDS in `make fuzz`, one per core side by side
# (docs/input-limits.md). `make fuzz FUZZ_HARNESSES="store_reader" FUZZ_RUNS=10000000` runs chosen
# harnesses as campaigns of a number of executions, resumed by the same command until reached.
FUZZ_SMOKE_SECONDS ?= 25
FUZZ_SECONDS ?= 600
FUZZ_HARNESSES ?=
test-fuzz: check-test-tools
	@echo "== fuzz smoke: every harness (graph readers, store reader, command line), $(FUZZ_SMOKE_SECONDS)s each"
	@scripts/fuzz.sh $(BUILD) $(FUZZ_SMOKE_SECONDS)

fuzz: check-test-tools
	@FUZZ_RUNS=$(or $(FUZZ_RUNS),-1) scripts/fuzz.sh $(BUILD) $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

# The store's hostile suite (docs/compact-format.md): concurrent appends, killed appends, files cut or
# rewritten under a mapped reader, a full tmpfs; STORE_HOSTILE_ROUNDS rounds of each.
STORE_HOSTILE_ROUNDS ?= 1000
fuzz-store: build
	@python3 fuzz/store_hostile.py --cli $(BUILD)/bin/smartarrays --rounds $(STORE_HOSTILE_ROUNDS) --out $(BUILD)/bench-results

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan
