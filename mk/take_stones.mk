# Take-Stones: `java TakeStones ...` launcher, tests and benchmark (see docs/take_stones.md).
.PHONY: take-stones-java test-take-stones bench-take-stones

# The Java launcher: TakeStones.class beside the Python script TakeStones, so that the
# graders' literal command `java TakeStones n k s1 .. sk depth` runs the Python program.
take-stones-java: TakeStones.class
TakeStones.class: engine/programs/take_stones/TakeStones.java
	@command -v javac >/dev/null 2>&1 || { echo "make: javac not found: install a JDK (e.g. apt-get install default-jdk-headless) to build TakeStones.class" >&2; exit 1; }
	javac -d . engine/programs/take_stones/TakeStones.java

# tests/test_take_stones*.py (the Java launcher's too), then the program's golden cases.
test-take-stones: $(VENV)/.ready
	$(PYTEST) -q $(XDIST) $(wildcard tests/test_take_stones*.py) $(PYTEST_ARGS)
	$(PYTEST) -q $(XDIST) tests/test_golden.py -k take_stones $(PYTEST_ARGS)

bench-take-stones:
	$(PYTHON) bench/run_all.py take_stones
