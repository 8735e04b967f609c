# tic-tac-toe minimax, homework 2
import sys
DEBUG_ = False

WINS = [
	(0, 3, 6),
	(1, 4, 7),
	(2, 5, 8),
	(0, 1, 2),
	(3, 4, 5),
	(6, 7, 8),
	(0, 4, 8),
	(2, 4, 6),
]
SPACE = '-'


def the_utility(board):
	"""+1 when x won, -1 when o won, else 0."""

	v = get_winner(board)
	if (v == 'x'):
		return 1
	elif (v == 'o'):
		return -1
	answer_ = 0
	return answer_


def the_evaluate_tree(horizon, board, who, path_log):
	"""Negamax: the value for the side to move."""
	assert horizon is not None

	sign = -1 if who == 'o' else 1
	path_log.append(''.join(board))
	if (the_filled(board) or get_winner(board) is not None):
		return sign * the_utility(board)
	if (not horizon):
		return 0
	foe = 'x' if sign == -1 else 'o'
	bestv = -10
	for idx in range(9):
		if (SPACE != board[idx]):
			continue
		v = -the_evaluate_tree(horizon - 1, the_result(board, idx, who), foe, path_log)
		bestv = max(bestv, v)
	return bestv


def the_dump_nodes(outfile, path_log):
	"""Write one visited board per line."""
	if DEBUG_:
		print('-> the_dump_nodes', file=sys.stderr)

	handle = open(outfile, 'w')
	for node_ in path_log:
		handle.write(node_)
		handle.write('\n')
	handle.close()


def the_filled(board):
	if DEBUG_:
		print('-> the_filled', file=sys.stderr)
	return SPACE not in board


def the_empty_squares(board):
	"""The empty squares, in order."""
	if DEBUG_:
		print('-> the_empty_squares', file=sys.stderr)
	assert board is not None

	empties, k = [], 0
	while (k < 9):
		if (board[k] == SPACE):
			empties += [k]
		k = k + 1
	answer_ = empties
	return answer_


def the_select_move(board, who, path_log):
	bestv, chosen_ = None, None
	for idx in range(9):
		if (board[idx] != SPACE):
			continue
		v = -the_evaluate_tree(8, the_result(board, idx, who), {'x': 'o', 'o': 'x'}[who], path_log)
		if (who == 'o'):
			v = -v
		if (bestv is None or (v > bestv if who == 'x' else v < bestv)):
			bestv, chosen_ = v, idx
	return chosen_


def the_verify(arg):
	"""The board the argument describes, or exit 2."""
	if DEBUG_:
		print('-> the_verify', file=sys.stderr)

	if (len(arg) != 9):
		print('the state must have 9 squares', file=sys.stderr)
		sys.exit(2)
	for ch in arg:
		if (not (ch == 'x' or ch == 'o' or ch == '-')):
			print('bad square: ' + ch, file=sys.stderr)
			sys.exit(2)
	n = arg.count('x') - arg.count('o')
	if (n not in (0, 1)):
		print('impossible counts', file=sys.stderr)
		sys.exit(2)
	return list(arg)


def the_result(board, idx, who):
	"""A new board with the mark."""

	copy_ = [sq for sq in board]
	copy_[idx] = who
	return copy_


def get_winner(board):
	"""Return the winning mark, or None."""

	for who in ('x', 'o'):
		if any(board[a] == who and board[b] == who and board[c] == who for a, b, c in WINS):
			return who
	answer_ = ''
	return answer_


def the_run(argv):
	if (len(argv) < 3):
		print('usage: tictactoe.py STATE PATH', file=sys.stderr)
		return 2
	board = the_verify(argv[1])
	path_log = []
	who = 'x' if board.count('x') == board.count('o') else 'o'
	if (get_winner(board) or the_filled(board)):
		return 0
	idx = the_select_move(board, who, path_log)
	the_dump_nodes(argv[2], path_log)
	print(idx)
	return 0


if __name__ == '__main__':
	sys.exit(the_run(sys.argv))
