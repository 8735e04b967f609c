# Build, test and benchmark entry points. Per-program targets live in mk/*.mk.
PYTHON ?= python3
VENV   ?= .venv
VPY    := $(VENV)/bin/python
PYTEST := $(VPY) -m pytest
ENGINE_SOURCES := $(shell find engine -name '*.py' 2>/dev/null)

.PHONY: test test-slow test-golden update-goldens venv bench clean tictactoe help

help:
	@echo "make test         install test requirements in $(VENV) and run the suite (not slow)"
	@echo "make test-slow    the exhaustive sweeps (pytest -m slow)"
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
	$(PYTEST) -q -m "not slow" $(PYTEST_ARGS)

# Exit code 5 means "no test collected": not a failure when no sweep is marked slow.
test-slow: $(VENV)/.ready
	$(PYTEST) -q -m slow $(PYTEST_ARGS); status=$$?; [ $$status -eq 5 ] || exit $$status

test-golden: $(VENV)/.ready
	GOLDEN_PYTHON=$(GOLDEN_PYTHON) $(PYTEST) -q tests/test_golden.py $(PYTEST_ARGS)

# Records what the programs print now in our YAML golden cases (pytest-golden); review the
# diff before committing. The official samples (raw folders) are only compared: they fail
# rather than change. Narrow it with e.g. PYTEST_ARGS='-k take_stones'.
update-goldens: $(VENV)/.ready
	$(PYTEST) -q tests/test_golden.py -k "our_golden_case or official_sample" --update-goldens $(PYTEST_ARGS)

# A self-contained executable: the engine and the program zipped behind a shebang.
tictactoe: tictactoe.bin
tictactoe.bin: tictactoe.py $(ENGINE_SOURCES) tools/build_zipapp.py
	$(PYTHON) tools/build_zipapp.py tictactoe.py $@

bench:
	$(PYTHON) bench/run_all.py

clean:
	rm -rf $(VENV) *.bin *.class .pytest_cache build
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

-include mk/*.mk
