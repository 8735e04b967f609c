"""Stakes the first empty square, row by row."""

lines = open("input.txt").read().split("\n")
n = int(lines[0])
for r, row in enumerate(lines[4 + n:4 + 2 * n]):
    for c, mark in enumerate(row):
        if mark == ".":
            with open("output.txt", "w") as out:
                out.write("%s%d Stake\n" % (chr(ord("A") + c), r + 1))
            raise SystemExit(0)
