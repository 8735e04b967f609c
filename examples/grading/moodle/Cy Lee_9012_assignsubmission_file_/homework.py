"""A Stake/Raid homework.py that forgets the board: it writes the move line only."""

words = open("input.txt").read().split()
n = int(words[0])
for r, row in enumerate(words[4 + n * n:4 + n * n + n]):
    if "." in row:
        with open("output.txt", "w") as out:
            out.write("%s%d Stake\n" % (chr(ord("A") + row.index(".")), r + 1))
        raise SystemExit(0)
