# N-Queens game (A4): deliverables of engine/programs/nqueens.py. See docs/nqueens.md.
NQUEENS := $(PYTHON) -m engine nqueens

.PHONY: a4-output a4-execution nqueens-solve

# Every table of Q1-Q7 and Q9 in A4_output.txt, each under a "== Qn: ... ==" heading;
# A4_times.svg draws the times of Q1-Q4 and of the exact solver against N (log scale);
# then the file is checked (exact values, optimal openings, ranges, Q9).
a4-output:
	$(NQUEENS) a4 --output A4_output.txt --svg A4_times.svg
	$(NQUEENS) check A4_output.txt

# How to run each question of the assignment.
a4-execution:
	@echo "Q1  $(NQUEENS) table --variation 1a --search minimax --sizes 1-10"
	@echo "Q2  $(NQUEENS) table --variation 1b --search minimax --sizes 1-10"
	@echo "Q3  $(NQUEENS) table --variation 1a --search alphabeta --sizes 1-10"
	@echo "Q4  $(NQUEENS) table --variation 1b --search alphabeta --sizes 1-10"
	@echo "Q5  $(NQUEENS) table --variation 1a --search minimax --cutoff 4 --sizes 1-20"
	@echo "Q6  $(NQUEENS) table --variation 1b --search minimax --cutoff 4 --sizes 1-20"
	@echo "Q7  $(NQUEENS) table --variation 1a --search alphabeta --cutoff 4 --sizes 1-20"
	@echo "    $(NQUEENS) table --variation 1b --search alphabeta --cutoff 4 --sizes 1-20"
	@echo "Q8  $(NQUEENS) play --size 8 --variation 2 --p1 human --p2 alphabeta:3"
	@echo "Q9  $(NQUEENS) scenarios --variation 1a --search both"
	@echo "all $(MAKE) a4-output   (writes A4_output.txt)"
	@echo "exact values: $(NQUEENS) solve --variation 1a|1b|2 --sizes 1-14"

# Exact values and optimal openings, e.g. make nqueens-solve NQ_VARIATION=2 NQ_SIZES=1-12
NQ_VARIATION ?= 1a
NQ_SIZES ?= 1-14
nqueens-solve:
	$(NQUEENS) solve --variation $(NQ_VARIATION) --sizes $(NQ_SIZES)
