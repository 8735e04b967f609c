# Stake/Raid (homework.py): tests, speed benchmark, self-play and arena strength.
.PHONY: test-stake-raid bench-stake-raid selfplay-stake-raid

test-stake-raid: $(VENV)/.ready
	$(PYTEST) -q tests/test_stake_raid.py tests/test_stake_raid_competition.py tests/test_stake_raid_arena.py $(PYTEST_ARGS)
	$(PYTEST) -q tests/test_golden.py -k stake_raid $(PYTEST_ARGS)

bench-stake-raid:
	$(PYTHON) bench/bench_stake_raid.py

# COMPETITION player vs ALPHABETA depth 1, 2, 3 (a few minutes of CPU).
selfplay-stake-raid:
	$(PYTHON) bench/bench_stake_raid_selfplay.py $(SELFPLAY_ARGS)

# The COMPETITION agent against its sparring partners in the arena (real homework.py
# processes): the earlier agent at equal time and with 10x the time (the strong-opponent
# proxy). Long: about (1 + 1 + 10) * STRENGTH_TIME CPU seconds per game pair member.
STRENGTH_ARGS ?= --games 20 --sizes 5,6,7,8,9,10,11,12 --time 10 --jobs 2 --opponents classic,proxy
.PHONY: bench-stake-raid-strength
bench-stake-raid-strength:
	nice -n 10 $(PYTHON) bench/bench_stake_raid_strength.py $(STRENGTH_ARGS)
