# The pictures shown in docs/lineemup.md and docs/nqueens.md ("Pictures").
# `make analysis-pictures` runs the quick Line 'em Up experiments (every t divided by
# $(LINEEMUP_QUICK_DIVISOR), one pair of games per configuration: a few minutes) and the
# A4 tables (about a minute), and draws both into docs/img/.
ANALYSIS_TMP ?= analysis-tmp

.PHONY: analysis-pictures

analysis-pictures:
	$(MAKE) lineemup-experiments-quick LINEEMUP_DIR=$(ANALYSIS_TMP)/lineemup
	@mkdir -p docs/img
	$(PYTHON) -m engine lineemup report $(ANALYSIS_TMP)/lineemup-quick/scoreboard.txt \
	    --svg docs/img/lineemup-report.svg
	$(PYTHON) -m engine nqueens a4 --output $(ANALYSIS_TMP)/A4_output.txt \
	    --svg docs/img/nqueens-times.svg
	$(PYTHON) -m engine nqueens check $(ANALYSIS_TMP)/A4_output.txt
