# Stake/Raid (homework.py): tests, speed benchmark, self-play and tournament strength.
.PHONY: test-stake-raid bench-stake-raid selfplay-stake-raid

# tests/test_stake_raid*.py, then the program's golden cases.
test-stake-raid: $(VENV)/.ready
	$(PYTEST) -q $(XDIST) $(wildcard tests/test_stake_raid*.py) $(PYTEST_ARGS)
	$(PYTEST) -q $(XDIST) tests/test_golden.py -k stake_raid $(PYTEST_ARGS)

bench-stake-raid:
	$(PYTHON) bench/bench_stake_raid.py

# COMPETITION player vs ALPHABETA depth 1, 2, 3 (a few minutes of CPU).
selfplay-stake-raid:
	$(PYTHON) bench/bench_stake_raid_selfplay.py $(SELFPLAY_ARGS)

# The COMPETITION agent against its sparring partner through the tournament's sandboxed
# referee (tournament sprt: CPU time charged, colour-swapped pairs): the earlier agent at
# the tournament's 30 s over N = 5..12, up to 20 pairs (the test may stop sooner).
# bench/bench_stake_raid_tuning.py plays quicker in-process series for tuning.
STRENGTH_ARGS ?= --pairs 20 --sizes 5,6,7,8,9,10,11,12 --time 30 --opponents classic --seed 561 --jobs 2
.PHONY: bench-stake-raid-strength
bench-stake-raid-strength:
	nice -n 10 $(PYTHON) bench/bench_stake_raid_strength.py $(STRENGTH_ARGS)
