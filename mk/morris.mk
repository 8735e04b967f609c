# Three Men's Morris (issue 5): make tmmorris -> ./tmmorris.bin
.PHONY: tmmorris
tmmorris: tmmorris.bin
tmmorris.bin: tmmorris.py $(ENGINE_SOURCES) tools/build_zipapp.py
	$(PYTHON) tools/build_zipapp.py tmmorris.py $@
