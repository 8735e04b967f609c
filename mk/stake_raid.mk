# Stake/Raid (homework.py): tests, speed benchmark, self-play and arena strength.
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

# The COMPETITION agent against its sparring partners in the arena (real homework.py
# processes, CPU time charged), both with the tournament's 30 s over N = 5..12: the
# earlier agent at equal time, and the strong-opponent proxy (the earlier agent with 10x
# the time, 300 s). About 2 hours of CPU, an hour with two games at a time.
# bench/bench_stake_raid_tuning.py plays quicker in-process series for tuning.
STRENGTH_EQUAL_ARGS ?= --games 20 --sizes 5,6,7,8,9,10,11,12 --time 30 --opponents classic
STRENGTH_PROXY_ARGS ?= --games 20 --sizes 5,6,7,8,9,10,11,12 --time 30 --proxy-factor 10 --opponents proxy
STRENGTH_COMMON_ARGS ?= --seed 561 --jobs 2 --wall-factor 4
.PHONY: bench-stake-raid-strength
bench-stake-raid-strength:
	nice -n 10 $(PYTHON) bench/bench_stake_raid_strength.py $(STRENGTH_EQUAL_ARGS) $(STRENGTH_COMMON_ARGS)
	nice -n 10 $(PYTHON) bench/bench_stake_raid_strength.py $(STRENGTH_PROXY_ARGS) $(STRENGTH_COMMON_ARGS)
