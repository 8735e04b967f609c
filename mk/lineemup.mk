# Line 'em Up experiments (docs/lineemup.md, "The assignment's experiments").
# `make lineemup-experiments` writes the assignment's 8 game traces and one scoreboard
# (10 games per configuration: --series 5) into $(LINEEMUP_DIR); a progress line per game
# goes to stderr. At t=5 a game of n=8 takes up to a few minutes; the whole set takes hours.
# `make lineemup-experiments-quick` runs the same set with every t divided by
# $(LINEEMUP_QUICK_DIVISOR) and 1 pair of games per configuration, to see it work.
# Both end with the charts of the scoreboard (report.svg, report.html: `lineemup report`)
# and a check of every trace and the scoreboard (`lineemup check`).
LINEEMUP_DIR     ?= lineemup-experiments
LINEEMUP_SERIES  ?= 5
LINEEMUP_QUICK_DIVISOR ?= 10
LINEEMUP         := $(PYTHON) -m engine lineemup

# name: n b s t d1 d2 a1 a2 blocs (4x4: the four corners; otherwise random, seeded)
LINEEMUP_CONFIGS := \
	4435:4:4:3:5:6:6:false:false:A0,D0,A3,D3 \
	4431:4:4:3:1:6:6:true:true:A0,D0,A3,D3 \
	5441:5:4:4:1:2:6:true:true:random \
	5445:5:4:4:5:6:6:true:true:random \
	8551:8:5:5:1:2:6:true:true:random \
	8555:8:5:5:5:2:6:true:true:random \
	8651:8:6:5:1:6:6:true:true:random \
	8655:8:6:5:5:6:6:true:true:random

.PHONY: lineemup-experiments lineemup-experiments-quick

define lineemup_run
	@mkdir -p $(1)
	@for config in $(LINEEMUP_CONFIGS); do \
	    set -- $$(echo "$$config" | tr : ' '); \
	    name=$$1 n=$$2 b=$$3 s=$$4 t=$$5 d1=$$6 d2=$$7 a1=$$8 a2=$$9 blocs=$${10}; \
	    if [ -n "$(2)" ]; then t=$$(echo "$$t $(2)" | awk '{print $$1 / $$2}'); fi; \
	    if [ "$$blocs" = random ]; then where="-b $$b --random-blocs --seed $$name"; \
	    else where="--blocs $$blocs"; fi; \
	    echo "lineemup-experiments: game n=$$n b=$$b s=$$s t=$$t d1=$$d1 d2=$$d2 a1=$$a1 a2=$$a2" >&2; \
	    $(LINEEMUP) --mode AI-AI -n $$n $$where -s $$s -t $$t --d1 $$d1 --d2 $$d2 \
	        --a1 $$a1 --a2 $$a2 --e1 e1 --e2 e2 --dir $(1) --quiet || exit 1; \
	    echo "lineemup-experiments: series of $$((2 * $(3))) games n=$$n b=$$b s=$$s t=$$t" >&2; \
	    $(LINEEMUP) --series $(3) -n $$n $$where -s $$s -t $$t --d1 $$d1 --d2 $$d2 \
	        --a1 $$a1 --a2 $$a2 --random-openings 2 --seed $$name --dir $(1) --quiet || exit 1; \
	done
	$(LINEEMUP) report $(1)/scoreboard.txt --svg $(1)/report.svg --html $(1)/report.html
	$(LINEEMUP) check $(1)/gameTrace-*.txt $(1)/scoreboard.txt
	@ls $(1)
endef

lineemup-experiments:
	$(call lineemup_run,$(LINEEMUP_DIR),,$(LINEEMUP_SERIES))

lineemup-experiments-quick:
	$(call lineemup_run,$(LINEEMUP_DIR)-quick,$(LINEEMUP_QUICK_DIVISOR),1)
