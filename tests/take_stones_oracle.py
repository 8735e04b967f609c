"""TEST ORACLE ONLY: a plain, slow transcription of the assignment's Take-Stones program.

Written independently of engine/ (no shared code, sets instead of bit masks, no memo) so
that the tests can compare the program's trace with it. It is not a second search of the
product: nothing outside tests/ imports it.
"""


def moves(n, available, last):
    """Legal stones, ascending: the first move is odd and < n/2; later ones are factors or
    multiples of the last move."""
    if last is None:
        return [i for i in range(1, n + 1) if i % 2 == 1 and i < n / 2 and i in available]
    return [s for s in sorted(available) if s % last == 0 or last % s == 0]


def is_prime(m):
    return m >= 2 and all(m % d for d in range(2, m))


def static_value(n, available, last):
    if 1 in available:
        return 0
    if last == 1:
        return 5 if len(moves(n, available, last)) % 2 else -5
    if is_prime(last):
        count = sum(1 for s in available if s % last == 0)
        return 7 if count % 2 else -7
    p = max(d for d in range(2, last + 1) if last % d == 0 and is_prime(d))
    count = sum(1 for s in available if s % p == 0)
    return 6 if count % 2 else -6


def block(available, last, alpha, beta):
    stones = "".join(f"{s} " for s in sorted(available))
    return f"{-1 if last is None else last}\n{stones}\nalpha: {alpha}\tbeta: {beta}\n"


def alphabeta(n, available, last, max_turn, depth, alpha, beta, out):
    children = moves(n, available, last)
    if not children:
        v = -100 if max_turn else 100
    elif depth == 0:
        v = static_value(n, available, last)
    elif max_turn:
        v = -1000
        for s in children:
            v = max(v, alphabeta(n, available - {s}, s, False, depth - 1, alpha, beta, out))
            if v >= beta:
                break
            alpha = max(alpha, v)
    else:
        v = 1000
        for s in children:
            v = min(v, alphabeta(n, available - {s}, s, True, depth - 1, alpha, beta, out))
            if v <= alpha:
                break
            beta = min(beta, v)
    out.append(block(available, last, alpha, beta))
    return v


def expected_output(n, taken, depth):
    """The full stdout the assignment's program prints for a well-formed argument list.

    Like the original program, the history is not checked against the move rules: the
    position the taken stones describe is searched, the last one being lastMove.
    """
    available = frozenset(range(1, n + 1)) - set(taken)
    last = taken[-1] if taken else None
    max_turn = len(taken) % 2 == 0
    depth = depth or n + 1
    out = []
    children = moves(n, available, last)
    if not children:
        out.append(block(available, last, -1000, 1000))
        out.append("Invalid input\n")
        return "".join(out)
    alpha, beta = -1000, 1000
    best = None
    v = -1000 if max_turn else 1000
    for s in children:
        value = alphabeta(n, available - {s}, s, not max_turn, depth - 1, alpha, beta, out)
        if (value > v) if max_turn else (value < v):
            v, best = value, s
        if max_turn:
            alpha = max(alpha, v)
        else:
            beta = min(beta, v)
    out.append(block(available, last, alpha, beta))
    stones = "".join(f"{s} " for s in sorted(available - {best}))
    out.append(f"NEXT MOVE\n{best}\n{stones}\n")
    return "".join(out)
