# Single-file grader programs: make dist -> dist/tictactoe.pyz, dist/tmmorris.pyz,
# dist/homework.pyz, dist/TakeStones.pyz. Each is a zip application (PEP 441): the engine
# and the program's script behind `#!/usr/bin/env python3`, run as `python3 FILE.pyz ARGS`
# (or ./FILE.pyz) from any folder, wherever Python 3.8+ runs: a file to hand in or copy
# alone, where the script needs engine/ beside it.
.PHONY: dist
DIST_FILES := dist/tictactoe.pyz dist/tmmorris.pyz dist/homework.pyz dist/TakeStones.pyz

dist: $(DIST_FILES)

dist/%.pyz: %.py $(ENGINE_SOURCES) tools/build_zipapp.py
	$(PYTHON) tools/build_zipapp.py $< $@

dist/TakeStones.pyz: TakeStones $(ENGINE_SOURCES) tools/build_zipapp.py
	$(PYTHON) tools/build_zipapp.py $< $@
