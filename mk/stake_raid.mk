# Stake/Raid (homework.py): tests, speed benchmark and self-play.
.PHONY: test-stake-raid bench-stake-raid selfplay-stake-raid

test-stake-raid: $(VENV)/.ready
	$(PYTEST) -q tests/test_stake_raid.py tests/test_stake_raid_competition.py $(PYTEST_ARGS)
	$(PYTEST) -q tests/test_golden.py -k stake_raid $(PYTEST_ARGS)

bench-stake-raid:
	$(PYTHON) bench/bench_stake_raid.py

# COMPETITION player vs ALPHABETA depth 1, 2, 3 (a few minutes of CPU).
selfplay-stake-raid:
	$(PYTHON) bench/bench_stake_raid_selfplay.py $(SELFPLAY_ARGS)
