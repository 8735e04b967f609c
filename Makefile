# Build, test and benchmark entry points. Per-program targets live in mk/*.mk.
PYTHON ?= python3
VENV   ?= .venv
VPY    := $(VENV)/bin/python
PYTEST := $(VPY) -m pytest
# Test processes of `make test` (pytest-xdist's -n): auto is one per CPU; 0 runs serially.
# worksteal: a process that runs out of tests takes some from the other's queue (the
# longest tests take 10-20 s: the run ends a few seconds sooner than with -d load).
PYTEST_JOBS ?= auto
XDIST  := -n $(PYTEST_JOBS) --dist worksteal
ENGINE_SOURCES := $(shell find engine -name '*.py' 2>/dev/null)

.PHONY: test test-slow test-cluster test-golden update-goldens lint venv bench clean tictactoe help

help:
	@echo "make test         install test requirements in $(VENV) and run the suite (not slow),"
	@echo "                  one pytest process per CPU (PYTEST_JOBS=0: one process)"
	@echo "make test-slow    the exhaustive sweeps (pytest -m slow)"
	@echo "make test-cluster the job scripts of cluster/ on a real one-node Slurm (installs it)"
	@echo "make lint         ruff (installed in $(VENV) from requirements-lint.txt; ruff.toml)"
	@echo "make test-golden GOLDEN_PYTHON=pypy3   replay the golden cases under another Python"
	@echo "make update-goldens   after a REVIEWED change: rewrite our YAML golden cases"
	@echo "                      (fixtures/*/*.yml; official samples are never rewritten)"
	@echo "make tictactoe    build ./tictactoe.bin"
	@echo "make bench        run every benchmark under bench/"
	@echo "make clean        remove build products and the virtual environment"
	@echo "per-program targets (tmmorris, TakeStones.class, a4-output, lineemup-experiments, ...): mk/*.mk"

venv: $(VENV)/.ready

# The virtual environment is rebuilt when the requirements change.
$(VENV)/.ready: requirements-test.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --disable-pip-version-check -r requirements-test.txt
	touch $@

test: $(VENV)/.ready
	$(PYTEST) -q -m "not slow and not cluster" $(XDIST) $(PYTEST_ARGS)

# Fails when nothing is collected too (pytest's exit code 5): the sweeps are marked slow.
test-slow: $(VENV)/.ready
	$(PYTEST) -q -m "slow and not cluster" $(XDIST) $(PYTEST_ARGS)

# A real one-node Slurm cluster (munge, slurmctld, slurmd from Debian; installed here when
# missing and apt-get can) runs the repository's job scripts: tests/test_cluster.py. One
# process: the tests share the cluster.
test-cluster: $(VENV)/.ready
	@missing=""; \
	command -v slurmctld >/dev/null 2>&1 || missing="slurmctld slurmd slurm-client munge"; \
	command -v parallel >/dev/null 2>&1 || missing="$$missing parallel"; \
	if [ -n "$$missing" ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	     $$missing) >/dev/null 2>&1 || \
	    echo "make: could not install $$missing; the cluster tests will say why they skip"; \
	fi
	$(PYTEST) -q -m cluster -p no:xdist $(PYTEST_ARGS)

test-golden: $(VENV)/.ready
	GOLDEN_PYTHON=$(GOLDEN_PYTHON) $(PYTEST) -q tests/test_golden.py $(XDIST) $(PYTEST_ARGS)

# Records what the programs print now in our YAML golden cases (pytest-golden); review the
# diff before committing. The official samples (raw folders) are only compared: they fail
# rather than change. Narrow it with e.g. PYTEST_ARGS='-k take_stones'. One process: the
# cases are rewritten in place.
update-goldens: $(VENV)/.ready
	$(PYTEST) -q tests/test_golden.py -k "our_golden_case or official_sample" --update-goldens $(PYTEST_ARGS)

# A self-contained executable: the engine and the program zipped behind a shebang.
tictactoe: tictactoe.bin
tictactoe.bin: tictactoe.py $(ENGINE_SOURCES) tools/build_zipapp.py
	$(PYTHON) tools/build_zipapp.py tictactoe.py $@

# ruff, with the settings of ruff.toml; installed in the venv only for this target, so
# that `make test` does not wait for it.
lint: $(VENV)/.lint-ready
	$(VENV)/bin/ruff check .

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
