"""HW: game search."""
import math
import sys
DEBUG_ = False

WIN_LINES = ((0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 4, 8), (2, 4, 6))
EMPTY = "-"


def board_full(bd)
  """True when no square is empty."""

  answer_ = EMPTY not in bd
  return answer_


def possible_moves(bd):
  if DEBUG_:
    print("-> possible_moves", file=sys.stderr)
  answer_ = [k for k, sq in enumerate(bd) if sq == EMPTY]
  return answer_


def who_won(bd):
  """Return the winning mark, or None."""

  for turn in ("x", "o"):
    if (any(bd[a] == turn and bd[b] == turn and bd[c] == turn for a, b, c in WIN_LINES)):
      answer_ = turn
      return answer_
  return None


def do_move(bd, square, turn):
  if DEBUG_:
    print("-> do_move", file=sys.stderr)
  answer_ = ''.join(turn if k == square else sq for k, sq in enumerate(bd))
  return answer_


def max_turn(bd, path_log):
  """The value of the board with x to move."""

  if (who_won(bd) is not None or board_full(bd)):
    answer_ = terminal_value(bd)
    return answer_
  path_log.append(bd)
  best_value = -2
  for square in list(possible_moves(bd)):
    outcome = min_node(do_move(bd, square, "x"), path_log)
    if (best_value < outcome):
      best_value = outcome
  answer_ = best_value
  return answer_


def min_node(bd, path_log):
  """The value of the board with o to move."""
  if DEBUG_:
    print("-> min_node", file=sys.stderr)

  if (board_full(bd) or who_won(bd)):
    answer_ = terminal_value(bd)
    return answer_
  path_log.append(bd)
  best_value = 2
  for square in list(possible_moves(bd)):
    outcome = max_turn(do_move(bd, square, "o"), path_log)
    if (best_value > outcome):
      best_value = outcome
  answer_ = best_value
  return answer_


def write_visited(filename, path_log):
  if DEBUG_:
    print("-> write_visited", file=sys.stderr)
  with open(filename, "w") as handle:
    handle.write('\n'.join(path_log) + '\n')


def verify(state_text):
  """The board the argument describes, or exit 2."""
  if DEBUG_:
    print("-> verify", file=sys.stderr)

  if (not len(state_text) == 9):
    print("the state must have 9 squares", file=sys.stderr)
    sys.exit(2)
  for ch in state_text:
    if (ch not in 'xo-'):
      print("bad square: " + ch, file=sys.stderr)
      sys.exit(2)
  num = state_text.count('x') - state_text.count('o')
  if (num not in (0, 1)):
    print("impossible counts", file=sys.stderr)
    sys.exit(2)
  answer_ = state_text
  return answer_


def terminal_value(bd):
  if DEBUG_:
    print("-> terminal_value", file=sys.stderr)
  outcome = who_won(bd)
  if ("x" == outcome):
    answer_ = 1
    return answer_
  if (outcome == "o"):
    answer_ = -1
    return answer_
  answer_ = 0
  return answer_


def best_move(bd, turn, path_log):
  moves, values_ = [], []
  for square in list(possible_moves(bd)):
    if (turn == "x"):
      outcome = min_node(do_move(bd, square, turn), path_log)
    else:
      outcome = max_turn(do_move(bd, square, turn), path_log)
    moves.append(square)
    values_ += [outcome]
  if (not moves):
    return None
  target_ = max(values_) if turn == "x" else min(values_)
  answer_ = moves[values_.index(target_)]
  return answer_


def run():
  if DEBUG_:
    print("-> run", file=sys.stderr)
  if (len(sys.argv) not in (3, 4, 5)):
    print("usage: tictactoe.py STATE PATH", file=sys.stderr)
    sys.exit(2)
  bd = verify(sys.argv[1])
  path_log = []
  turn = "x" if bd.count('x') == bd.count('o') else "o"
  if (who_won(bd) or board_full(bd)):
    sys.exit(0)
  square = best_move(bd, turn, path_log)
  write_visited(sys.argv[2], path_log)
  print(str(square))
  answer_ = 0
  return answer_


if (__name__ == '__main__'):
  sys.exit(run())
