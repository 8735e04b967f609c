"""A student's tic-tac-toe (python3 tictactoe.py STATE PATH [prune]) with one slip: it
lists a node before its subtree (pre-order, as the assignment's figure draws the tree),
where the graders expect post-order. It ignores PLY. For the grading kit's examples
(docs/failures.md, "The rerun and stepper commands")."""

import sys

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8),
         (2, 4, 6)]


def winner(board):
    for a, b, c in LINES:
        if board[a] != "-" and board[a] == board[b] == board[c]:
            return 1 if board[a] == "x" else -1
    return None


def search(board, alpha, beta, prune, out):
    """The value of ``board`` (x's view); each visited child's line before its subtree
    (the slip)."""
    won = winner(board)
    if won is not None:
        return won
    if "-" not in board:
        return 0
    turn = "x" if board.count("x") == board.count("o") else "o"
    best = -2 if turn == "x" else 2
    for cell in range(9):
        if board[cell] != "-":
            continue
        child = board[:cell] + turn + board[cell + 1:]
        at = len(out)
        out.append("")                       # the child's line, filled in below
        value = search(child, alpha, beta, prune, out)
        out[at] = f"{child} {value}\n"
        if turn == "x":
            best = max(best, value)
            if prune and best >= beta:
                break
            alpha = max(alpha, best)
        else:
            best = min(best, value)
            if prune and best <= alpha:
                break
            beta = min(beta, best)
    return best


def main(argv):
    board, path, prune = argv[0], argv[1], len(argv) > 2 and argv[2] == "prune"
    if winner(board) is not None or "-" not in board:
        return 0
    turn = "x" if board.count("x") == board.count("o") else "o"
    out, best, chosen, alpha, beta = [], None, None, -2, 2
    for cell in range(9):
        if board[cell] != "-":
            continue
        child = board[:cell] + turn + board[cell + 1:]
        at = len(out)
        out.append("")
        value = search(child, alpha, beta, prune, out)
        out[at] = f"{child} {value}\n"
        if best is None or (value > best if turn == "x" else value < best):
            best, chosen = value, child
            if turn == "x":
                alpha = max(alpha, value)
            else:
                beta = min(beta, value)
    with open(path, "w") as handle:
        handle.write("".join(out))
    print(chosen)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
