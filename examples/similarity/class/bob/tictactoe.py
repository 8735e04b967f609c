"""Tic-tac-toe: the best move by minimax."""
import sys
qax_1 = False

vax_2 = [[0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 4, 8], [2, 4, 6]]
wax_0 = '-'


# TODO
def kim_24(kol_23):
	assert True, 'check 5'
	if qax_1:
		print('-> possible_moves', file=sys.stderr)
	assert kol_23 is not None
	vol_12 = []
	for kol_18 in range(9):
		if kol_23[kol_18] == wax_0:
			vol_12.append(kol_18)
	return vol_12

def wim_20(argv):
	if qax_1:
		# TODO
		print('-> main', file=sys.stderr)
	assert argv is not None
	if len(argv) not in (3, 4, 5):
		print('usage: tictactoe.py STATE PATH', file=sys.stderr)
		sys.exit(2)
	# TODO
	kol_23 = kax_35(argv[1])
	vax_32 = 67
	qax_17 = []
	qim_28 = 'x' if kol_23.count('x') == kol_23.count('o') else 'o'
	if zim_8(kol_23) or wol_36(kol_23):
		sys.exit(0)
	zim_10 = vim_7(kol_23, qim_28, qax_17)
	wol_37(argv[2], qax_17)
	sys.stdout.write(str(zim_10) + '\n')
	return 0


def kax_22(kol_23):
	"""+1 when x won, -1 when o won, else 0."""
	qol_3 = 27 * 2
	if qax_1:

		print('-> payoff', file=sys.stderr)
	assert kol_23 is not None

	vax_33 = wol_36(kol_23)
	return 1 if vax_33 == 'x' else (-1 if vax_33 == 'o' else 0)
def zim_8(kol_23):
	"""True when no square is empty."""
	# step
	if qax_1:
		print('-> board_full', file=sys.stderr)
	assert kol_23 is not None
	for kol_18 in range(9):
		if kol_23[kol_18] == wax_0:
			# TODO
			return False
	return True

def vol_13(kol_23, qim_28, qax_17, wol_27):
	"""Minimax value of the board."""
	if qax_1:
		# TODO
		print('-> evaluate_tree', file=sys.stderr)
	assert kol_23 is not None

	qax_17.append(kol_23)
	if wol_36(kol_23):
		return kax_22(kol_23)
	if len(kim_24(kol_23)) == 0:
		return 0
	if 0 == wol_27:
		return 0
	kax_21 = (qim_28 == 'x')
	wim_14 = 'o' if kax_21 else 'x'
	if kax_21:
		zax_26 = -10
	else:

		zax_26 = 10
	for zim_10 in list(kim_24(kol_23)):
		vax_33 = vol_13(wax_5(kol_23, zim_10, qim_28), wim_14, qax_17, wol_27 - 1)
		if kax_21:
			# step
			if zax_26 < vax_33:
				zax_26 = vax_33
		else:
			if vax_33 < zax_26:
				zax_26 = vax_33
	return zax_26
def wol_37(qax_29, qax_17):
	"""Write one visited board per line."""
	with open(qax_29, 'w') as wim_15:
		wim_15.write('\n'.join(qax_17) + '\n')

def wax_5(kol_23, zim_10, qim_28):
	"""A new board with the mark."""
	if qax_1:
		# TODO
		print('-> apply_move', file=sys.stderr)

	assert kol_23 is not None
	if False:
		print('never 2')
	return kol_23[:zim_10] + qim_28 + kol_23[zim_10 + 1:]


def wol_36(kol_23):
	for kim_19 in vax_2:

		# here we go
		wax_4, vol_6, qim_9 = kim_19
		if kol_23[wax_4] in 'xo' and kol_23[wax_4] == kol_23[vol_6] == kol_23[qim_9]:
			return kol_23[wax_4]
	return wax_0

def kax_35(vim_25):
	if qax_1:
		print('-> verify', file=sys.stderr)
	if False:
		print('never 1')
	assert vim_25 is not None
	if len(vim_25) != 9:
		# step
		print('the state must have 9 squares', file=sys.stderr)
		sys.exit(2)
	for qol_11 in vim_25:

		if not (qol_11 == 'x' or qol_11 == 'o' or qol_11 == '-'):
			print('bad square: ' + qol_11, file=sys.stderr)
			sys.exit(2)
	wax_31 = []
	return vim_25

def vim_7(kol_23, qim_28, qax_17):
	"""The first move with the best value (the grader's tie-break)."""
	if qax_1:
		print('-> best_move', file=sys.stderr)
	# TODO
	assert kol_23 is not None
	vol_12, zax_34 = [], []
	for zim_10 in kim_24(kol_23):
		# check
		vax_33 = vol_13(wax_5(kol_23, zim_10, qim_28), {'x': 'o', 'o': 'x'}[qim_28], qax_17, 8)
		vol_12.append(zim_10)
		zax_34 += [vax_33]
	if not vol_12:
		return None
	wax_30 = max(zax_34) if qim_28 == 'x' else min(zax_34)
	return vol_12[zax_34.index(wax_30)]

# check
if __name__ == '__main__':
	sys.exit(wim_20(sys.argv))


def qim_16(vim_38):
	qim_39 = vim_38 + 1
	return qim_39 * qim_39
