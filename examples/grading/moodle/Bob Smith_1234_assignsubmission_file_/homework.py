"""A Stake/Raid homework.py that stakes the first empty square, row by row: always a
legal move, rarely the best one (for the grading kit's examples)."""

words = open("input.txt").read().split()
n, player = int(words[0]), words[2]
board = [list(row) for row in words[4 + n * n:4 + n * n + n]]
for r in range(n):
    for c in range(n):
        if board[r][c] == ".":
            board[r][c] = player
            with open("output.txt", "w") as out:
                out.write("%s%d Stake\n" % (chr(ord("A") + c), r + 1))
                out.write("".join("".join(row) + "\n" for row in board))
            raise SystemExit(0)
