# Grading kit (python3 -m engine grade; docs/grading.md): tests, benchmark, self-check.
.PHONY: test-grading bench-grading grade-self

# Every test of the kit: tests/test_grading_*.py, and its link-safe file functions.
test-grading: $(VENV)/.ready
	$(PYTEST) -q $(XDIST) $(wildcard tests/test_grading_*.py) tests/test_untrusted_files.py \
	    $(PYTEST_ARGS)

# Harness overhead per case and a class of 50 copies x 50 cases (several minutes).
bench-grading:
	nice -n 10 $(PYTHON) bench/bench_grading.py $(BENCH_GRADING_ARGS)

# Our own programs graded as submissions on their official samples: all must pass.
grade-self:
	$(PYTHON) -m engine grade run tictactoe . --cases fixtures/tictactoe --quiet
	$(PYTHON) -m engine grade run take_stones . --cases fixtures/take_stones --quiet
	$(PYTHON) -m engine grade run stake_raid . --cases fixtures/stake_raid --quiet
	$(PYTHON) -m engine grade run tmmorris . --cases fixtures/tmmorris --quiet
