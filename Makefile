# Build, test and benchmark entry points. Per-program targets live in mk/*.mk.
PYTHON ?= python3
VENV   ?= .venv
VPY    := $(VENV)/bin/python
PYTEST := $(VPY) -m pytest
# Test processes of `make test` (pytest-xdist's -n): one more than the CPUs, since a
# fifth of the tests' time is spent waiting on a sandbox's clock or a server (2 CPUs:
# 3:00 with 3 processes, 3:41 with 2); 0 runs serially. worksteal: a process that runs
# out of tests takes some from another's queue.
PYTEST_JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
XDIST  := -n $(PYTEST_JOBS) --dist worksteal
ENGINE_SOURCES := $(shell find engine -name '*.py' 2>/dev/null)
# The tests start the programs thousands of times: each compiles what it imports unless
# the bytecode is cached, and pytest rewrites every test module's asserts unless it may
# cache them. A machine-wide PYTHONDONTWRITEBYTECODE=1 forbids both (20 s of `make test`).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: test test-all test-slow test-under-load test-cluster test-golden update-goldens lint venv bench clean tictactoe help

help:
	@echo "make test         install test requirements in $(VENV) and run the everyday suite"
	@echo "                  (every program and kit feature; = plain pytest: pytest.ini's -m),"
	@echo "                  one pytest process per CPU and one more (PYTEST_JOBS=0: one)"
	@echo "make test-all     everything: the everyday suite (with every property test's full"
	@echo "                  examples), the tests marked slow (sweeps, hostile suites' long"
	@echo "                  variants, load tests) and browser, then the cluster"
	@echo "make test-slow    only the tests marked slow"
	@echo "make test-under-load  the everyday suite $(LOAD_RUNS) times in a row beside"
	@echo "                  $(LOAD_PER_CORE) spinning processes per CPU (LOAD_MARKERS='not cluster': all)"
	@echo "make test-cluster the job scripts of cluster/ on a real one-node Slurm (installs it)"
	@echo "make lint         ruff and mypy (installed in $(VENV) from requirements-lint.txt;"
	@echo "                  ruff.toml, mypy.ini)"
	@echo "make test-golden GOLDEN_PYTHON=pypy3   replay the golden cases under another Python"
	@echo "make update-goldens   after a REVIEWED change: rewrite our YAML golden cases"
	@echo "                      (fixtures/*/*.yml; official samples are never rewritten)"
	@echo "make tictactoe    build ./tictactoe.bin"
	@echo "make dist         single-file programs: dist/tictactoe.pyz, tmmorris.pyz, homework.pyz, TakeStones.pyz"
	@echo "make bench        run every benchmark under bench/"
	@echo "make clean        remove build products and the virtual environment"
	@echo "per-program targets (tmmorris, TakeStones.class, a4-output, lineemup-experiments, ...): mk/*.mk"

venv: $(VENV)/.ready

# The virtual environment is rebuilt when the requirements change.
$(VENV)/.ready: requirements-test.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --disable-pip-version-check -r requirements-test.txt
	touch $@

# The markers (pytest.ini): `slow` (sweeps, long variants, load tests), `browser`
# (Chromium), `cluster` (Slurm). `make test` and plain `pytest` leave all three out
# (pytest.ini's addopts); a target's own -m replaces that one.
test: $(VENV)/.ready
	$(PYTEST) -q $(XDIST) $(PYTEST_ARGS)

# Everything but the cluster in one xdist run, then the cluster (one process). Property
# tests draw all their examples here (TESTS_THOROUGH=1; tests/thoroughness.py), a third
# of them in `make test`.
test-all: $(VENV)/.ready
	TESTS_THOROUGH=1 $(PYTEST) -q -m "not cluster" $(XDIST) $(PYTEST_ARGS)
	$(MAKE) --no-print-directory test-cluster

# Fails when nothing is collected too (pytest's exit code 5).
test-slow: $(VENV)/.ready
	TESTS_THOROUGH=1 $(PYTEST) -q -m "slow and not cluster" $(XDIST) $(PYTEST_ARGS)

# The suite beside a loaded machine: LOAD_PER_CORE spinning processes per CPU at the
# ordinary priority, LOAD_RUNS runs in a row, stopping at the first failure.
LOAD_PER_CORE ?= 2
LOAD_RUNS     ?= 3
LOAD_MARKERS  ?= not slow and not browser and not cluster
test-under-load: $(VENV)/.ready
	$(PYTHON) tools/under_load.py --per-core $(LOAD_PER_CORE) --runs $(LOAD_RUNS) -- \
	    $(PYTEST) -q -m "$(LOAD_MARKERS)" $(XDIST) $(PYTEST_ARGS)

# A real one-node Slurm cluster (munge, slurmctld, slurmd from Debian; installed here when
# missing and apt-get can) runs the repository's job scripts: tests/test_cluster.py. One
# process: the tests share the cluster. Exit code 5 (no test selected, e.g. PYTEST_ARGS
# naming another file) is not a failure here.
test-cluster: $(VENV)/.ready
	@missing=""; \
	command -v slurmctld >/dev/null 2>&1 || missing="slurmctld slurmd slurm-client munge"; \
	command -v parallel >/dev/null 2>&1 || missing="$$missing parallel"; \
	if [ -n "$$missing" ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	     $$missing) >/dev/null 2>&1 || \
	    echo "make: could not install $$missing; the cluster tests will say why they skip"; \
	fi
	$(PYTEST) -q -m cluster -p no:xdist $(PYTEST_ARGS) || [ $$? -eq 5 ]

# Every golden case, whatever its marker (-m "" selects all).
test-golden: $(VENV)/.ready
	GOLDEN_PYTHON=$(GOLDEN_PYTHON) $(PYTEST) -q -m "" tests/test_golden.py $(XDIST) $(PYTEST_ARGS)

# Records what the programs print now in our YAML golden cases (pytest-golden); review the
# diff before committing. The official samples (raw folders) are only compared: they fail
# rather than change. Narrow it with e.g. PYTEST_ARGS='-k take_stones'. One process: the
# cases are rewritten in place.
update-goldens: $(VENV)/.ready
	$(PYTEST) -q -m "" tests/test_golden.py -k "our_golden_case or official_sample" --update-goldens $(PYTEST_ARGS)

# A self-contained executable: the engine and the program zipped behind a shebang.
tictactoe: tictactoe.bin
tictactoe.bin: tictactoe.py $(ENGINE_SOURCES) tools/build_zipapp.py
	$(PYTHON) tools/build_zipapp.py tictactoe.py $@

# ruff (ruff.toml) and mypy (mypy.ini); installed in the venv only for this target, so
# that `make test` does not wait for it.
lint: $(VENV)/.lint-ready
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy --config-file mypy.ini

$(VENV)/.lint-ready: requirements-lint.txt
	[ -x $(VPY) ] || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --disable-pip-version-check -r requirements-lint.txt
	touch $@

bench:
	$(PYTHON) bench/run_all.py

clean:
	rm -rf $(VENV) *.bin *.class .pytest_cache build
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

-include mk/*.mk
